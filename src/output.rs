//! Rendering results: compiler-style text diagnostics (codespan-reporting) and the JSON
//! documents of DESIGN §6.

use std::io::{IsTerminal, Write};

use codespan_reporting::diagnostic::{Diagnostic, Label as CsLabel};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};
use oracle::{Divergence, Race, Witness};
use serde_json::{Value, json};

use crate::run::{FileFix, FixStatus, KernelCheck, Verdict};
use crate::source::Source;

/// Where text diagnostics go: stdout, colored only on a terminal.
pub fn stdout() -> termcolor::StandardStream {
    let choice = if std::io::stdout().is_terminal() {
        termcolor::ColorChoice::Auto
    } else {
        termcolor::ColorChoice::Never
    };
    termcolor::StandardStream::stdout(choice)
}

fn cs_file(src: &Source) -> SimpleFile<String, &str> {
    SimpleFile::new(src.path.display().to_string(), src.text.as_str())
}

fn range(span: kpl::Span, text: &str) -> std::ops::Range<usize> {
    let end = span.end.min(text.len());
    span.start.min(end)..end
}

fn place(w: &Witness, which: usize) -> String {
    let t = w.threads[which];
    let it = &w.iterations[which];
    let iters = if it.is_empty() {
        String::new()
    } else {
        format!(
            " in loop iteration {}",
            it.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(".")
        )
    };
    format!("{t}{iters}")
}

fn verb(kind: oracle::AccessKind) -> &'static str {
    match kind {
        oracle::AccessKind::Read => "reads",
        oracle::AccessKind::Write => "writes",
        oracle::AccessKind::Atomic => "atomically updates",
    }
}

fn race_diagnostic(src: &Source, kernel: &str, r: &Race) -> Diagnostic<()> {
    let elem = |w: &Option<Witness>| match w.as_ref().and_then(|w| w.index) {
        Some(i) => format!("`{}[{i}]`", r.array),
        None => format!("`{}`", r.array),
    };
    let (m1, m2) = match &r.witness {
        Some(w) => (
            format!("{} {} {}", place(w, 0), verb(r.first.kind), elem(&r.witness)),
            format!("{} {} {}", place(w, 1), verb(r.second.kind), elem(&r.witness)),
        ),
        None => (
            format!("{} of `{}`", r.first.kind.word(), r.array),
            format!("{} of `{}`", r.second.kind.word(), r.array),
        ),
    };
    let space = match r.space {
        kpl::Space::Shared => "shared",
        kpl::Space::Global => "global",
    };
    let when = match (r.intra, r.inter.as_slice()) {
        (_, []) => "in the same barrier interval".to_string(),
        (true, d) => format!(
            "within one loop iteration and across iterations (depth {})",
            join(d)
        ),
        (false, d) => format!("across loop iterations (depth {})", join(d)),
    };
    let mut notes = vec![format!("in kernel `{kernel}`, {when}")];
    if let Some(w) = &r.witness {
        notes.push(launch_note(w));
    }
    notes.push(if r.fixable {
        format!(
            "help: `autosync fix {}` inserts the barrier that removes it",
            src.path.display()
        )
    } else {
        "the threads are in different blocks: no barrier can order them".to_string()
    });
    let mut labels = vec![CsLabel::primary((), range(r.second.span, &src.text)).with_message(m2)];
    labels.push(CsLabel::secondary((), range(r.first.span, &src.text)).with_message(m1));
    Diagnostic::error()
        .with_code("race")
        .with_message(format!("{} race on {space} array `{}`", r.kind(), r.array))
        .with_labels(labels)
        .with_notes(notes)
}

fn join(d: &[usize]) -> String {
    d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

fn launch_note(w: &Witness) -> String {
    let dims = |d: &[u32; 3]| {
        if d[1] == 1 && d[2] == 1 {
            d[0].to_string()
        } else {
            format!("{}x{}x{}", d[0], d[1], d[2])
        }
    };
    let params = if w.params.is_empty() {
        String::new()
    } else {
        format!(
            ", {}",
            w.params
                .iter()
                .map(|(n, v)| format!("{n} = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    format!(
        "witness: {} threads per block, {} blocks{params}",
        dims(&w.block_dim),
        dims(&w.grid_dim)
    )
}

fn divergence_diagnostic(src: &Source, kernel: &str, d: &Divergence) -> Diagnostic<()> {
    let msg = match &d.witness {
        Some(w) => format!(
            "{} reaches this barrier but {} does not",
            w.threads[0], w.threads[1]
        ),
        None => "threads of one block may disagree on reaching this barrier".to_string(),
    };
    let mut notes = vec![format!(
        "in kernel `{kernel}`: barrier divergence is undefined behaviour"
    )];
    if let Some(w) = &d.witness {
        notes.push(launch_note(w));
    }
    Diagnostic::error()
        .with_code("divergence")
        .with_message("barrier divergence")
        .with_labels(vec![
            CsLabel::primary((), range(d.span, &src.text)).with_message(msg),
        ])
        .with_notes(notes)
}

/// Text report of `check` for one file.
pub fn check_text(
    out: &mut termcolor::StandardStream,
    src: &Source,
    results: &[KernelCheck],
) -> std::io::Result<()> {
    let file = cs_file(src);
    let config = term::Config::default();
    for k in results {
        for d in &k.report.divergences {
            emit(out, &config, &file, &divergence_diagnostic(src, &k.name, d))?;
        }
        for r in &k.report.races {
            emit(out, &config, &file, &race_diagnostic(src, &k.name, r))?;
        }
        let detail = match k.verdict {
            Verdict::Verified => "no data race, no barrier divergence".to_string(),
            Verdict::Race | Verdict::Divergence => format!(
                "{} race(s), {} divergent barrier(s)",
                k.report.races.len(),
                k.report.divergences.len()
            ),
            Verdict::Unsupported | Verdict::Timeout => k.error.clone().unwrap_or_default(),
        };
        writeln!(
            out,
            "{}: kernel `{}`: {} ({detail}) [{:.1} ms]",
            src.path.display(),
            k.name,
            k.verdict.word(),
            k.time_ms
        )?;
        for n in &k.report.notes {
            writeln!(out, "  note: {n}")?;
        }
    }
    Ok(())
}

fn emit(
    out: &mut termcolor::StandardStream,
    config: &term::Config,
    file: &SimpleFile<String, &str>,
    d: &Diagnostic<()>,
) -> std::io::Result<()> {
    term::emit(out, config, file, d).map_err(std::io::Error::other)
}

fn pos(span: kpl::Span) -> Value {
    json!({"line": span.line, "column": span.col})
}

fn witness_json(w: &Witness) -> Value {
    json!({
        "threads": w.threads.iter().map(|t| json!({"tid": t.tid, "bid": t.bid})).collect::<Vec<_>>(),
        "index": w.index,
        "iterations": w.iterations,
        "block_dim": w.block_dim,
        "grid_dim": w.grid_dim,
        "params": w.params.iter().map(|(n, v)| (n.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
    })
}

fn race_json(r: &Race) -> Value {
    json!({
        "array": r.array,
        "kind": r.kind(),
        "first": pos(r.first.span),
        "second": pos(r.second.span),
        "fixable": r.fixable,
        "intra": r.intra,
        "inter": r.inter,
        "witness": r.witness.as_ref().map(witness_json),
    })
}

/// `check --format json`: one file's entry.
pub fn check_json(src: &Source, results: &[KernelCheck]) -> Value {
    json!({
        "path": src.path.display().to_string(),
        "kernels": results.iter().map(|k| {
            let mut v = json!({
                "name": k.name,
                "verdict": k.verdict.word(),
                "races": k.report.races.iter().map(race_json).collect::<Vec<_>>(),
                "divergences": k.report.divergences.iter().map(|d| {
                    let mut p = pos(d.span);
                    p["witness"] = d.witness.as_ref().map(witness_json).unwrap_or(Value::Null);
                    p
                }).collect::<Vec<_>>(),
                "time_ms": round3(k.time_ms),
                "notes": k.report.notes,
            });
            if let Some(e) = &k.error {
                v["error"] = json!(e);
            }
            v
        }).collect::<Vec<_>>(),
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// `fix --format json`: one file's entry.
pub fn fix_json(src: &Source, fix: &FileFix) -> Value {
    json!({
        "path": src.path.display().to_string(),
        "kernels": fix.kernels.iter().map(|k| {
            let mut v = json!({
                "name": k.name,
                "status": k.status.word(),
                "inserted": k.inserted.iter().map(|i| json!({"line": i.line, "after_line": i.after_line})).collect::<Vec<_>>(),
                "removed": k.removed.iter().map(|l| json!({"line": l})).collect::<Vec<_>>(),
                "barriers": k.barriers,
                "cost": k.cost,
                "original_cost": k.original_cost,
                "oracle_calls": k.stats.oracle_calls,
                "solver_calls": k.stats.solver_calls,
                "iterations": k.stats.iterations,
                "time_ms": round3(k.stats.time.as_secs_f64() * 1e3),
                "notes": k.notes,
            });
            if let Some(r) = &k.reason {
                v["reason"] = json!(r);
                v["races"] = json!(k.races.races.iter().map(race_json).collect::<Vec<_>>());
            }
            v
        }).collect::<Vec<_>>(),
    })
}

/// Text report of `fix` for one file (what happened per kernel).
pub fn fix_text(out: &mut termcolor::StandardStream, src: &Source, fix: &FileFix) -> std::io::Result<()> {
    let file = cs_file(src);
    let config = term::Config::default();
    for k in &fix.kernels {
        let head = format!("{}: kernel `{}`", src.path.display(), k.name);
        let stats = format!(
            "{} oracle call(s), {} solver call(s), {:.1} ms",
            k.stats.oracle_calls,
            k.stats.solver_calls,
            k.stats.time.as_secs_f64() * 1e3
        );
        match k.status {
            FixStatus::Unchanged => writeln!(out, "{head}: already correct, nothing to change ({stats})")?,
            FixStatus::Fixed => {
                let mut parts = Vec::new();
                if !k.inserted.is_empty() {
                    let lines: Vec<String> = k.inserted.iter().map(|i| i.line.to_string()).collect();
                    parts.push(format!(
                        "inserted {} barrier(s) at line(s) {}",
                        k.inserted.len(),
                        lines.join(", ")
                    ));
                }
                if !k.removed.is_empty() {
                    let lines: Vec<String> = k.removed.iter().map(|l| l.to_string()).collect();
                    parts.push(format!(
                        "removed the barrier(s) at original line(s) {}",
                        lines.join(", ")
                    ));
                }
                writeln!(
                    out,
                    "{head}: {}; {} barrier(s), cost {} (was {}) ({stats})",
                    parts.join("; "),
                    k.barriers,
                    k.cost,
                    k.original_cost
                )?;
            }
            FixStatus::NoSolution | FixStatus::Unsupported => {
                let what = if k.status == FixStatus::NoSolution {
                    "no barrier placement fixes this kernel"
                } else {
                    "cannot be checked"
                };
                let mut d = Diagnostic::error()
                    .with_code(k.status.word())
                    .with_message(format!("kernel `{}`: {what}", k.name))
                    .with_notes(vec![k.reason.clone().unwrap_or_default()]);
                for r in &k.races.races {
                    d.labels.push(
                        CsLabel::primary((), range(r.second.span, &src.text)).with_message(format!(
                            "{} of `{}`",
                            r.second.kind.word(),
                            r.array
                        )),
                    );
                    if r.first.span != r.second.span {
                        d.labels.push(
                            CsLabel::secondary((), range(r.first.span, &src.text)).with_message(format!(
                                "{} of `{}`",
                                r.first.kind.word(),
                                r.array
                            )),
                        );
                    }
                }
                emit(out, &config, &file, &d)?;
            }
        }
        for n in &k.notes {
            writeln!(out, "  note: {n}")?;
        }
    }
    Ok(())
}
