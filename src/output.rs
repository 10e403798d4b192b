//! Rendering results: compiler-style text diagnostics (codespan-reporting) and the JSON
//! documents described in docs/cli.md.

use codespan_reporting::diagnostic::{Diagnostic, Label as CsLabel};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor::WriteColor};
use driver::report::{Divergence, GuardKind, Race, ThreadId, Witness};
use serde_json::{Value, json};

use driver::{Explained, FileFix, FixStatus, KernelCheck, Source, Verdict};

/// The files a report's labels point into: the checked file (id 0) and the headers it
/// includes (id `i` is the front end's file `i`, see [`driver::report::FileSpan`]).
pub type ReportFiles<'s> = SimpleFiles<String, &'s str>;

pub fn cs_files(src: &Source) -> ReportFiles<'_> {
    let mut files = SimpleFiles::new();
    files.add(src.path.display().to_string(), src.text.as_str());
    for h in &src.headers {
        files.add(h.path.display().to_string(), h.text.as_str());
    }
    files
}

/// Where a span really is ([`driver::report::Span::real`]): the id of its file in
/// [`cs_files`] and its place there (a device function of an included header is shown in
/// the header, not at the `#include` line that stands for it in the checked file; the
/// last statement of an inlined function at its own line, not at the call). A header the
/// report does not have falls back to the span's place in the checked file.
pub(crate) fn real_span(src: &Source, span: driver::report::Span) -> (usize, driver::report::FileSpan) {
    let e = span.real();
    if e.file == 0 || src.header(e.file).is_some() {
        (e.file as usize, e)
    } else {
        let main = driver::report::Span {
            elsewhere: None,
            ..span
        };
        (0, main.real())
    }
}

/// The text and the path of file `file` of [`cs_files`].
pub(crate) fn file_of(src: &Source, file: usize) -> (&str, String) {
    match u32::try_from(file).ok().and_then(|f| src.header(f)) {
        Some(h) => (h.text.as_str(), h.path.display().to_string()),
        None => (src.text.as_str(), src.path.display().to_string()),
    }
}

/// Where a span really is: the id of its file in [`cs_files`] and its range there (see
/// [`real_span`]).
pub fn place(src: &Source, span: driver::report::Span) -> (usize, std::ops::Range<usize>) {
    let (file, e) = real_span(src, span);
    let (text, _) = file_of(src, file);
    let end = e.end.min(text.len());
    (file, e.start.min(end)..end)
}

/// The line of a span for a sentence: `line 5` in the checked file, `kern.cuh:5` in a
/// header.
pub fn line_of(src: &Source, span: driver::report::Span) -> String {
    match real_span(src, span) {
        (0, e) => format!("line {}", e.line),
        (file, e) => format!("{}:{}", file_of(src, file).1, e.line),
    }
}

/// The file (as the user named it, or as the include was resolved) and 1-based line
/// and column where a span really is.
pub fn real_position(src: &Source, span: driver::report::Span) -> (String, u32, u32) {
    let (file, e) = real_span(src, span);
    (file_of(src, file).1, e.line, e.col)
}

/// The inlined calls that reach the code at `span` in kernel `kernel` in words,
/// innermost first: "in `Comparator`, called at line 40"; nested, "in `g`, called from
/// `f` at line 12, called at line 40" (the last call is the kernel's). A call site in a
/// header is `common.h:12`. `None` for the kernel's own code.
pub fn calls_phrase(src: &Source, kernel: &str, span: driver::report::Span) -> Option<String> {
    let chain = driver::report::call_chain(src, kernel, span);
    let first = chain.first()?;
    let mut out = format!("in `{}`", first.callee);
    for (i, f) in chain.iter().enumerate() {
        match chain.get(i + 1) {
            Some(caller) => out.push_str(&format!(
                ", called from `{}` at {}",
                caller.callee,
                line_of(src, f.site)
            )),
            None => out.push_str(&format!(", called at {}", line_of(src, f.site))),
        }
    }
    Some(out)
}

/// Where the code at `span` is, for a sentence: `line 5`, or with the inlined calls that
/// reach it, `line 5, in `g`, called at line 17` (see [`calls_phrase`]).
pub fn at_phrase(src: &Source, kernel: &str, span: driver::report::Span) -> String {
    match calls_phrase(src, kernel, span) {
        Some(c) => format!("{}, {c}", line_of(src, span)),
        None => line_of(src, span),
    }
}

/// Adds secondary labels at the call sites of the inlined calls that reach the code at
/// `spans` (each site once, innermost call first, none where a label already is): "`g`
/// is called here".
pub(crate) fn add_call_labels(
    src: &Source,
    kernel: &str,
    spans: &[driver::report::Span],
    labels: &mut Vec<CsLabel<usize>>,
) {
    for span in spans {
        for f in driver::report::call_chain(src, kernel, *span) {
            let (file, range) = place(src, f.site);
            if labels.iter().any(|l| l.file_id == file && l.range == range) {
                continue;
            }
            labels
                .push(CsLabel::secondary(file, range).with_message(format!("`{}` is called here", f.callee)));
        }
    }
}

/// A thread of a witness: `thread 3` when both threads are in one block of a
/// one-dimensional launch, `thread 3 of block 1` otherwise.
fn thread_name(w: &Witness, which: usize) -> String {
    let t: ThreadId = w.threads[which];
    let one_block = w.threads[0].bid == w.threads[1].bid;
    if one_block && t.tid[1] == 0 && t.tid[2] == 0 {
        format!("thread {}", t.tid[0])
    } else {
        t.to_string()
    }
}

/// `line 5` or `line 5, loop iteration 2` (iterations of the enclosing loops, outermost
/// first).
fn where_in(w: &Witness, which: usize, line: String) -> String {
    let it = &w.iterations[which];
    if it.is_empty() {
        line
    } else {
        let its: Vec<String> = it.iter().map(|i| i.to_string()).collect();
        format!("{line}, loop iteration {}", its.join("."))
    }
}

pub(crate) fn verb(kind: driver::report::AccessKind) -> &'static str {
    match kind {
        driver::report::AccessKind::Read => "reads",
        driver::report::AccessKind::Write => "writes",
        driver::report::AccessKind::Atomic => "atomically updates",
    }
}

/// Whether a barrier can fix a race of kernel `kernel`, and how; `Err` says why none can.
pub fn remedy(src: &Source, kernel: &str, r: &Race) -> Result<String, String> {
    if !r.fixable {
        Err(format!(
            "no block barrier can fix this: the threads are in different blocks, and `__syncthreads()` only \
             orders threads of one block; {}",
            driver::report::cross_block_hint(r)
        ))
    } else if r.is_self_race() && r.intra {
        Err(
            "no barrier can fix this: the statement races with itself; split it (read into a local, then \
             write) or change the indexing"
                .to_string(),
        )
    } else if let Some(h) = [r.first.span, r.second.span]
        .iter()
        .find_map(|s| src.header(s.elsewhere?.file))
    {
        Ok(format!(
            "a barrier between the two accesses fixes this; they are in {}, an included header, where \
             `autosync fix` places no barrier: add it there",
            h.path.display()
        ))
    } else if let Some(f) = driver::report::enclosing_call(src, kernel, r) {
        // Every barrier that orders the accesses would be in the function's body.
        Ok(format!(
            "a barrier between the two accesses fixes this; they are both in `{}` (called at {}), a device \
             function, inside which `autosync fix` places no barrier: add it there",
            f.callee,
            line_of(src, f.site)
        ))
    } else {
        Ok(format!(
            "a barrier between the two accesses fixes this: run `autosync fix {}`",
            src.path.display()
        ))
    }
}

/// The witness of a race in words: "thread 3 writes `A[4]` (line 7) while thread 4
/// reads `A[4]` (line 5) in the same barrier interval"; accesses in inlined functions of
/// kernel `kernel` say through which calls (see [`calls_phrase`]): once at the end when
/// both are reached through the same calls ("..., both in `g`, called at line 17"),
/// else each after its line.
pub fn race_sentence(src: &Source, kernel: &str, r: &Race) -> String {
    let witness = shown_witness(r);
    let elem = match witness.as_ref().and_then(|w| w.index) {
        Some(i) => format!("`{}[{i}]`", r.array),
        None => format!("`{}`", r.array),
    };
    let calls = [
        calls_phrase(src, kernel, r.first.span),
        calls_phrase(src, kernel, r.second.span),
    ];
    let shared = match &calls {
        [Some(a), Some(b)] if a == b => Some(a.clone()),
        _ => None,
    };
    let with_calls = |line: String, which: usize| match (&shared, &calls[which]) {
        (None, Some(c)) => format!("{line}, {c}"),
        _ => line,
    };
    let both = shared.as_ref().map_or(String::new(), |c| format!(", both {c}"));
    match &witness {
        Some(w) => {
            let when = if driver::report::possible(&r.replay).is_some() {
                if r.intra {
                    "in the same barrier interval"
                } else {
                    "with no barrier between them"
                }
            } else if w.iterations[0] == w.iterations[1] {
                "in the same barrier interval"
            } else {
                "with no barrier between them"
            };
            format!(
                "{} {} {elem} ({}) while {} {} {elem} ({}) {when}{both}",
                thread_name(w, 1),
                verb(r.second.kind),
                with_calls(where_in(w, 1, line_of(src, r.second.span)), 1),
                thread_name(w, 0),
                verb(r.first.kind),
                with_calls(where_in(w, 0, line_of(src, r.first.span)), 0),
            )
        }
        None => {
            let at = |which: usize, span| match (&shared, &calls[which]) {
                (None, Some(c)) => format!("{} ({c})", line_of(src, span)),
                _ => line_of(src, span),
            };
            format!(
                "two threads access {elem} (a {} at {} and a {} at {}) with no barrier between them{both}",
                r.first.kind.word(),
                at(0, r.first.span),
                r.second.kind.word(),
                at(1, r.second.span)
            )
        }
    }
}

/// What each access of a race does: "thread 3 writes `A[4]`" (or "write of `A`" with
/// no witness), for the first and the second access.
pub fn access_messages(r: &Race) -> (String, String) {
    let witness = shown_witness(r);
    let elem = match witness.as_ref().and_then(|w| w.index) {
        Some(i) => format!("`{}[{i}]`", r.array),
        None => format!("`{}`", r.array),
    };
    match &witness {
        Some(w) => (
            format!("{} {} {elem}", thread_name(w, 0), verb(r.first.kind)),
            format!("{} {} {elem}", thread_name(w, 1), verb(r.second.kind)),
        ),
        None => (
            format!("{} of `{}`", r.first.kind.word(), r.array),
            format!("{} of `{}`", r.second.kind.word(), r.array),
        ),
    }
}

/// The witness of a race as reports show it: a possible race's element and iterations
/// are the verifier's model, which no run reproduced, so only its threads and launch are
/// shown (the JSON report keeps the model whole).
fn shown_witness(r: &Race) -> Option<Witness> {
    let mut w = r.witness.clone()?;
    if driver::report::possible(&r.replay).is_some() {
        w.index = None;
        w.iterations = [Vec::new(), Vec::new()];
    }
    Some(w)
}

/// A race as the text report shows it: the second access is the primary label.
pub fn race_diagnostic(src: &Source, kernel: &str, r: &Race) -> Diagnostic<usize> {
    let (m1, m2) = access_messages(r);
    let space = match r.space {
        driver::report::Space::Shared => "shared",
        driver::report::Space::Global => "global",
    };
    let mut notes = vec![format!("in kernel `{kernel}`: {}", race_sentence(src, kernel, r))];
    match (r.intra, r.inter.as_slice()) {
        (_, []) => {}
        (true, d) => notes.push(format!(
            "the race happens within one loop iteration and across iterations (loop depth {})",
            join(d)
        )),
        (false, d) => notes.push(format!(
            "the race happens across loop iterations (loop depth {})",
            join(d)
        )),
    }
    if let Some(w) = &r.witness {
        notes.push(launch_note(w));
    }
    notes.extend(host_launch_note(src, kernel));
    if let Some(why) = driver::report::possible(&r.replay) {
        notes.push(possible_note(why));
    }
    notes.push(match remedy(src, kernel, r) {
        Ok(help) => format!("help: {help}"),
        Err(why) => why,
    });
    let (f2, r2) = place(src, r.second.span);
    let mut labels = vec![CsLabel::primary(f2, r2.clone()).with_message(m2)];
    let (f1, r1) = place(src, r.first.span);
    if (f1, &r1) != (f2, &r2) {
        labels.push(CsLabel::secondary(f1, r1).with_message(m1));
    }
    add_call_labels(src, kernel, &[r.second.span, r.first.span], &mut labels);
    let message = format!("{} race on {space} array `{}`", r.kind(), r.array);
    match driver::report::possible(&r.replay) {
        None => Diagnostic::error().with_code("race").with_message(message),
        Some(_) => Diagnostic::warning()
            .with_code("possible-race")
            .with_message(format!("possible {message}")),
    }
    .with_labels(labels)
    .with_notes(notes)
}

/// `; 2 possible` when runs did not confirm some findings of the report.
fn possible_count(r: &driver::report::Report) -> String {
    use driver::report::possible;
    let n = r.races.iter().filter(|x| possible(&x.replay).is_some()).count()
        + r.divergences
            .iter()
            .filter(|d| possible(&d.replay).is_some())
            .count();
    if n == 0 {
        String::new()
    } else {
        format!("; {n} possible, not confirmed by a run")
    }
}

/// What a possible finding's report says: a run of its witness did not show it, and why.
fn possible_note(why: &str) -> String {
    format!("possible, not confirmed: {why}")
}

pub(crate) fn join(d: &[usize]) -> String {
    d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// The host launch a kernel was checked for, when it has one: a race or divergence
/// holds for that launch (the LSP shows it too).
pub(crate) fn host_launch_note(src: &Source, kernel: &str) -> Option<String> {
    let l = src.launch_of(kernel);
    (!l.sites.is_empty()).then(|| format!("checked for the {}", l.describe()))
}

pub(crate) fn launch_note(w: &Witness) -> String {
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
    let plural = |d: &[u32; 3], what: &str| {
        let n = dims(d);
        format!("{n} {what}{}", if n == "1" { "" } else { "s" })
    };
    format!(
        "witness launch: {} per block, {}{params}",
        plural(&w.block_dim, "thread"),
        plural(&w.grid_dim, "block")
    )
}

/// The first line of a statement's span (an `if (...) {` header, not its whole body).
pub(crate) fn first_line(r: std::ops::Range<usize>, text: &str) -> std::ops::Range<usize> {
    let end = text[r.clone()].find('\n').map_or(r.end, |i| r.start + i);
    let trimmed = text[r.start..end].trim_end().len();
    r.start..r.start + trimmed
}

/// A divergent barrier as the text report shows it: the barrier, and the guard that
/// decides whether a thread reaches it as a secondary label.
pub fn divergence_diagnostic(src: &Source, kernel: &str, d: &Divergence) -> Diagnostic<usize> {
    let msg = match &d.witness {
        Some(w) => format!(
            "{} reaches this barrier but {} does not",
            thread_name(w, 0),
            thread_name(w, 1)
        ),
        None => "threads of one block may disagree on reaching this barrier".to_string(),
    };
    let (fd, rd) = place(src, d.span);
    let mut labels = vec![CsLabel::primary(fd, rd).with_message(msg)];
    let guard = driver::report::divergence_guard(src, kernel, d.stmt);
    let mut notes = vec![format!(
        "in kernel `{kernel}`: barrier divergence is undefined behaviour"
    )];
    // A barrier of an inlined function: through which calls.
    let calls = calls_phrase(src, kernel, d.span);
    // A grid barrier that threads of different blocks disagree on.
    let across_blocks = d
        .witness
        .as_ref()
        .is_some_and(|w| w.threads[0].bid != w.threads[1].bid);
    if let Some(g) = guard {
        let what = match g.kind {
            GuardKind::Condition => "this condition",
            GuardKind::TripCount => "this loop's trip count",
            GuardKind::Exit => "whether they get past this",
        };
        let who = d
            .witness
            .as_ref()
            .map_or("threads of one block".to_string(), |w| {
                format!("{} and {}", thread_name(w, 0), thread_name(w, 1))
            });
        let (fg, rg) = place(src, g.span);
        let (text, _) = file_of(src, fg);
        let guard = first_line(rg, text);
        labels.push(CsLabel::secondary(fg, guard.clone()).with_message(format!("{who} disagree on {what}")));
        let guard_text = text[guard].trim().to_string();
        let whose = if across_blocks { "the grid" } else { "a block" };
        notes[0] = format!(
            "in kernel `{kernel}`: the guard `{guard_text}` ({}) lets some threads of {whose} reach the \
             barrier and not others; barrier divergence is undefined behaviour",
            at_phrase(src, kernel, g.span)
        );
    }
    if let Some(c) = calls {
        notes.insert(1, format!("the barrier ({}) is {c}", line_of(src, d.span)));
    }
    let mut spans = vec![d.span];
    spans.extend(guard.map(|g| g.span));
    add_call_labels(src, kernel, &spans, &mut labels);
    if let Some(w) = &d.witness {
        notes.push(launch_note(w));
    }
    notes.extend(host_launch_note(src, kernel));
    if let Some(why) = driver::report::possible(&d.replay) {
        notes.push(possible_note(why));
    }
    let chain = driver::report::call_chain(src, kernel, d.span);
    notes.push(if let Some(outer) = chain.last() {
        // `fix --strip` keeps a barrier of a device function (it is not in the kernel's
        // text): the call is what moves.
        let whose = if across_blocks { "the grid" } else { "a block" };
        format!(
            "help: every thread of {whose} must reach the barrier, or none: move the call of `{}` ({}) out of \
             the guard, or the barrier out of `{}`",
            outer.callee,
            line_of(src, outer.site),
            chain[0].callee
        )
    } else if across_blocks {
        format!(
            "help: a grid barrier (`this_grid().sync()`) must be reached by every thread of the grid, or \
             none: move it out of the guard, or run `autosync fix --cooperative --strip {}` to place the \
             barriers anew",
            src.path.display()
        )
    } else {
        format!(
            "help: every thread of a block must reach the barrier, or none: move it out of the guard, or \
             run `autosync fix --strip {}` to place the barriers anew",
            src.path.display()
        )
    });
    match driver::report::possible(&d.replay) {
        None => Diagnostic::error()
            .with_code("divergence")
            .with_message("barrier divergence"),
        Some(_) => Diagnostic::warning()
            .with_code("possible-divergence")
            .with_message("possible barrier divergence"),
    }
    .with_labels(labels)
    .with_notes(notes)
}

/// What the text reports say about a file without kernels (a header, or kernels that
/// are all in an included file: `#include`d `.cu` files are not checked on their own).
const NO_KERNELS: &str = "no kernel here (no `__global__` function in this file itself); nothing checked";

/// Text report of `check` for one file.
pub fn check_text(out: &mut dyn WriteColor, src: &Source, results: &[KernelCheck]) -> std::io::Result<()> {
    let file = cs_files(src);
    let config = term::Config::default();
    if src.kernels.is_empty() && src.failed.is_empty() {
        writeln!(out, "{}: {}", src.path.display(), NO_KERNELS)?;
    }
    for k in results {
        for d in &k.report.divergences {
            emit(out, &config, &file, &divergence_diagnostic(src, &k.name, d))?;
        }
        let diagnostics = crate::grouped::race_diagnostics(src, k);
        for d in &diagnostics {
            emit(out, &config, &file, d)?;
        }
        // Races in fewer reports: how many reports.
        let grouped = if diagnostics.len() < k.report.races.len() {
            format!(" in {} group(s)", diagnostics.len())
        } else {
            String::new()
        };
        let detail = match k.verdict {
            Verdict::Verified => "no data race, no barrier divergence".to_string(),
            Verdict::Race | Verdict::Divergence => format!(
                "{} race(s){grouped}, {} divergent barrier(s){}",
                k.report.races.len(),
                k.report.divergences.len(),
                possible_count(&k.report)
            ),
            Verdict::Unsupported | Verdict::Timeout => k.error.clone().unwrap_or_default(),
        };
        // A front-end error's help goes on its own line, after the verdict.
        let (detail, help) = match detail.split_once('\n') {
            Some((d, h)) => (d.to_string(), Some(h.to_string())),
            None => (detail, None),
        };
        writeln!(
            out,
            "{}: kernel `{}`: {} ({detail}) [{:.1} ms]",
            src.path.display(),
            k.name,
            k.verdict.word(),
            k.time_ms
        )?;
        if let Some(h) = help {
            writeln!(out, "{h}")?;
        }
        if let Some(n) = benign_note(&k.report) {
            writeln!(out, "  note: {n}")?;
        }
        for n in &k.report.notes {
            writeln!(out, "  note: {n}")?;
        }
    }
    Ok(())
}

/// The note of a report with benign write-write pairs (not reported as races by
/// default, as in GPUVerify): how many, and where (the first few).
pub fn benign_note(report: &driver::report::Report) -> Option<String> {
    const SHOWN: usize = 4;
    let ps = &report.benign;
    let at = |p: &driver::report::BenignPair| match (p.first.span.line, p.second.span.line) {
        (a, b) if a == b => format!("`{}` line {a}", p.array),
        (a, b) => format!("`{}` lines {a} and {b}", p.array),
    };
    let mut places: Vec<String> = ps.iter().take(SHOWN).map(at).collect();
    if ps.len() > SHOWN {
        places.push(format!("{} more", ps.len() - SHOWN));
    }
    match ps.len() {
        0 => None,
        1 => Some(format!(
            "1 write-write pair stores equal values ({}): a benign race, not reported as in \
             GPUVerify (--no-benign-tolerance reports it)",
            places.join("; ")
        )),
        n => Some(format!(
            "{n} write-write pairs store equal values ({}): benign races, not reported as in \
             GPUVerify (--no-benign-tolerance reports them)",
            places.join("; ")
        )),
    }
}

fn benign_json(src: &Source, kernel: &str, p: &driver::report::BenignPair) -> Value {
    json!({
        "array": p.array,
        "first": pos(src, kernel, p.first.span),
        "second": pos(src, kernel, p.second.span),
    })
}

fn emit(
    out: &mut dyn WriteColor,
    config: &term::Config,
    file: &ReportFiles<'_>,
    d: &Diagnostic<usize>,
) -> std::io::Result<()> {
    term::emit(out, config, file, d).map_err(std::io::Error::other)
}

/// A place in a JSON report. `line` and `column` are in the entry's file, or, when the
/// place is in a header it includes (device code defined there), in that header, named
/// by `file` (docs/cli.md: a field added, so scripts that know only `line` still read a
/// place, and the ones in the file itself are unchanged). Code of an inlined device
/// function of kernel `kernel` has `calls`: the calls that reach it, innermost first,
/// each the function called and the place of the call (`line`, `column`, and `file` in
/// a header).
fn pos(src: &Source, kernel: &str, span: driver::report::Span) -> Value {
    let mut v = file_pos(src, span);
    let chain = driver::report::call_chain(src, kernel, span);
    if !chain.is_empty() {
        v["calls"] = json!(
            chain
                .iter()
                .map(|f| {
                    let mut c = json!({"function": f.callee});
                    if let (Value::Object(c), Value::Object(at)) = (&mut c, file_pos(src, f.site)) {
                        c.extend(at);
                    }
                    c
                })
                .collect::<Vec<_>>()
        );
    }
    v
}

/// `line`, `column` and, in a header, `file` of a place (see [`pos`]).
fn file_pos(src: &Source, span: driver::report::Span) -> Value {
    let (file, line, column) = real_position(src, span);
    let mut v = json!({"line": line, "column": column});
    if span.in_header() && file != src.path.display().to_string() {
        v["file"] = json!(file);
    }
    v
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

/// What replaying a finding showed (docs/cli.md): `null` when it was not replayed.
fn replay_json(replay: &Option<driver::report::Replay>) -> Value {
    let Some(p) = replay else {
        return Value::Null;
    };
    json!({
        "confirmed": p.confirmed,
        "why": p.why,
        "seeds": p.seeds,
        "run": p.run.as_ref().map(|c| json!({
            "block_dim": c.block_dim,
            "grid_dim": c.grid_dim,
            "params": c.params.iter().map(|(n, v)| (n.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
            "blocks": c.blocks,
        })),
    })
}

fn race_json(src: &Source, kernel: &str, r: &Race) -> Value {
    let mut v = json!({
        "array": r.array,
        "kind": r.kind(),
        "first": pos(src, kernel, r.first.span),
        "second": pos(src, kernel, r.second.span),
        "fixable": r.fixable,
        "intra": r.intra,
        "inter": r.inter,
        "witness": r.witness.as_ref().map(witness_json),
        "confirmed": driver::report::confirmed(&r.replay),
        "replay": replay_json(&r.replay),
    });
    if !r.fixable {
        // What fixes a race between blocks (docs/cli.md).
        v["hint"] = json!(driver::report::cross_block_hint(r));
    }
    v
}

/// The schema version of the JSON documents (`docs/cli.md`): raised when a field is
/// removed or changes meaning; new fields may appear without a new version.
pub const JSON_VERSION: u32 = 1;

/// The JSON document of `check`, `fix` or `cost`: the schema version and the files'
/// entries in input order.
pub fn json_document(files: Vec<Value>) -> Value {
    json!({ "version": JSON_VERSION, "files": files })
}

/// `check --format json`: one file's entry.
pub fn check_json(src: &Source, results: &[KernelCheck]) -> Value {
    json!({
        "path": src.path.display().to_string(),
        "kernels": results.iter().map(|k| {
            let groups = driver::group::groups_or_each(&k.groups, k.report.races.len());
            let mut v = json!({
                "name": k.name,
                "verdict": k.verdict.word(),
                "races": k.report.races.iter().enumerate().map(|(i, r)| {
                    let mut v = race_json(src, &k.name, r);
                    v["group"] = json!(groups.iter().position(|g| g.members.contains(&i)));
                    v
                }).collect::<Vec<_>>(),
                "groups": groups.iter().map(crate::grouped::group_json).collect::<Vec<_>>(),
                "divergences": k.report.divergences.iter().map(|d| {
                    let mut p = pos(src, &k.name, d.span);
                    p["witness"] = d.witness.as_ref().map(witness_json).unwrap_or(Value::Null);
                    p["confirmed"] = json!(driver::report::confirmed(&d.replay));
                    p["replay"] = replay_json(&d.replay);
                    p
                }).collect::<Vec<_>>(),
                "time_ms": round3(k.time_ms),
                "notes": k.report.notes,
                "benign_races": k.report.benign.iter().map(|p| benign_json(src, &k.name, p)).collect::<Vec<_>>(),
                "launch": launch_json(&src.launch_of(&k.name)),
            });
            if let Some(e) = &k.error {
                v["error"] = json!(e);
            }
            v
        }).collect::<Vec<_>>(),
    })
}

/// The launch a kernel was checked for: where it came from (`source`: the layer of
/// highest precedence that gave a fact, `flags|header|host|bounds|requires`, or
/// `symbolic`), the host sites, the sizes (`null`: symbolic), the relations.
pub fn launch_json(l: &driver::report::Launch) -> Value {
    json!({
        "source": l.source().map_or("symbolic", |o| o.word()),
        "sources": l.sources.iter().map(|o| o.word()).collect::<Vec<_>>(),
        "sites": l.sites.iter().map(|s| json!({"file": s.file, "line": s.line})).collect::<Vec<_>>(),
        "block": l.block,
        "grid": l.grid,
        "max_threads": l.max_threads,
        "params": l.params,
        "relations": driver::report::relations_text(l),
        "cooperative": l.cooperative,
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn explain_json(e: &Explained) -> Value {
    json!({
        "place": e.place,
        "cost": e.cost,
        "fixes": e.fixes.iter().map(|f| json!({
            "array": f.array,
            "kind": f.kind,
            "first": {"line": f.first_line},
            "second": {"line": f.second_line},
            "how": f.how,
        })).collect::<Vec<_>>(),
        "rejected": e.rejected.iter().map(|r| json!({
            "place": r.place,
            "line": r.line,
            "cost": r.cost,
            "why": r.why,
        })).collect::<Vec<_>>(),
    })
}

/// A no-solution kernel's partial placement: `after_line` (original file) per barrier,
/// and `line` (the new text) when the barriers are written into it.
fn partial_json(k: &driver::KernelFix) -> Value {
    if k.partial_inserted.is_empty() {
        return json!(
            k.partial
                .iter()
                .map(|l| json!({"after_line": l}))
                .collect::<Vec<_>>()
        );
    }
    json!(
        k.partial_inserted
            .iter()
            .map(|i| json!({"line": i.line, "after_line": i.after_line}))
            .collect::<Vec<_>>()
    )
}

/// `fix --format json`: one file's entry (with `explain`: an `explain` field per
/// inserted barrier).
pub fn fix_json(src: &Source, fix: &FileFix, explain: bool) -> Value {
    json!({
        "path": src.path.display().to_string(),
        "kernels": fix.kernels.iter().map(|k| {
            let mut v = json!({
                "name": k.name,
                "status": k.status.word(),
                "inserted": k.inserted.iter().map(|i| {
                    let mut v = json!({"line": i.line, "after_line": i.after_line});
                    if i.split {
                        v["split"] = json!(true);
                    }
                    if k.warp_barriers || k.cooperative {
                        v["kind"] = json!(if i.grid {
                            "grid"
                        } else if i.warp {
                            "warp"
                        } else {
                            "block"
                        });
                    }
                    if let (true, Some(e)) = (explain, &i.why) {
                        v["explain"] = explain_json(e);
                    }
                    v
                }).collect::<Vec<_>>(),
                "removed": k.removed.iter().map(|l| json!({"line": l})).collect::<Vec<_>>(),
                "split": k.split.iter().map(|l| json!({"line": l})).collect::<Vec<_>>(),
                "redundant": k.redundant.iter().map(|l| json!({"line": l})).collect::<Vec<_>>(),
                "optimal_cost": k.optimal_cost,
                "optimal_inserted": k.optimal_instead.iter().map(|l| json!({"after_line": l})).collect::<Vec<_>>(),
                "partial_inserted": partial_json(k),
                "partial_fix": !k.partial_inserted.is_empty(),
                "barriers": k.barriers,
                "cost": k.cost,
                "original_cost": k.original_cost,
                "oracle_calls": k.stats.oracle_calls,
                "solver_calls": k.stats.solver_calls,
                "iterations": k.stats.iterations,
                "time_ms": round3(k.stats.time.as_secs_f64() * 1e3),
                "notes": k.notes,
                "launch": launch_json(&src.launch_of(&k.name)),
            });
            if let Some(r) = &k.reason {
                v["reason"] = json!(r);
                v["races"] = json!(k.races.races.iter().map(|r| race_json(src, &k.name, r)).collect::<Vec<_>>());
            }
            v
        }).collect::<Vec<_>>(),
    })
}

/// Text report of `fix` for one file (what happened per kernel; with `explain`, a note
/// per inserted barrier saying why it is there). `dry` (`fix --check`: nothing is
/// written) says what `fix` would do.
pub fn fix_text(
    out: &mut dyn WriteColor,
    src: &Source,
    fix: &FileFix,
    explain: bool,
    dry: bool,
) -> std::io::Result<()> {
    let (insert, remove, split) = if dry {
        ("would insert", "would remove", "it would be split")
    } else {
        ("inserted", "removed", "it was split")
    };
    let file = cs_files(src);
    let config = term::Config::default();
    if src.kernels.is_empty() && src.failed.is_empty() {
        writeln!(out, "{}: {}", src.path.display(), NO_KERNELS)?;
    }
    for k in &fix.kernels {
        let head = format!("{}: kernel `{}`", src.path.display(), k.name);
        let stats = format!(
            "{} verifier run(s), {} solver call(s), {:.1} ms",
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
                        "{insert} {} barrier(s) at line(s) {}",
                        k.inserted.len(),
                        lines.join(", ")
                    ));
                    let warp: Vec<String> = k
                        .inserted
                        .iter()
                        .filter(|i| i.warp)
                        .map(|i| i.line.to_string())
                        .collect();
                    if !warp.is_empty() {
                        parts.push(format!(
                            "of which {} warp barrier(s) (`{}`) at line(s) {}",
                            warp.len(),
                            src.lang.warp_barrier(),
                            warp.join(", ")
                        ));
                    }
                    let grid: Vec<String> = k
                        .inserted
                        .iter()
                        .filter(|i| i.grid)
                        .map(|i| i.line.to_string())
                        .collect();
                    if !grid.is_empty() {
                        parts.push(format!(
                            "of which {} grid barrier(s) (`{}`) at line(s) {}",
                            grid.len(),
                            driver::run::grid::statement(src),
                            grid.join(", ")
                        ));
                    }
                }
                if !k.removed.is_empty() {
                    let lines: Vec<String> = k.removed.iter().map(|l| l.to_string()).collect();
                    parts.push(format!(
                        "{remove} the barrier(s) at original line(s) {}",
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
                for i in k.inserted.iter().filter(|i| i.split) {
                    writeln!(
                        out,
                        "  note: line {} raced with itself; {split}: its racing operand is read into a \
                         local before the barrier at line {}, the rest of the statement follows it",
                        i.after_line, i.line
                    )?;
                }
                if explain {
                    explain_text(out, k)?;
                }
            }
            FixStatus::NoSolution | FixStatus::Unsupported => {
                let what = if k.status == FixStatus::NoSolution {
                    "no barrier placement fixes this kernel"
                } else {
                    "cannot be checked"
                };
                let mut notes = vec![k.reason.clone().unwrap_or_default()];
                notes.extend(k.races.races.iter().map(|r| race_sentence(src, &k.name, r)));
                notes.extend(partial_note(k));
                let mut d = Diagnostic::error()
                    .with_code(k.status.word())
                    .with_message(format!("kernel `{}`: {what}", k.name))
                    .with_notes(notes);
                for r in &k.races.races {
                    let (f2, r2) = place(src, r.second.span);
                    d.labels
                        .push(CsLabel::primary(f2, r2.clone()).with_message(format!(
                            "{} of `{}`",
                            r.second.kind.word(),
                            r.array
                        )));
                    let (f1, r1) = place(src, r.first.span);
                    if (f1, &r1) != (f2, &r2) {
                        d.labels.push(CsLabel::secondary(f1, r1).with_message(format!(
                            "{} of `{}`",
                            r.first.kind.word(),
                            r.array
                        )));
                    }
                }
                emit(out, &config, &file, &d)?;
            }
        }
        redundancy_text(out, k)?;
        for n in &k.notes {
            writeln!(out, "  note: {n}")?;
        }
    }
    Ok(())
}

/// What a no-solution kernel's partial placement does: the barriers that fix its other
/// races, in the new text (`--diff`, `--stdout`, `fix --partial`) or only reported.
fn partial_note(k: &driver::KernelFix) -> Option<String> {
    let after: Vec<String> = k.partial.iter().map(u32::to_string).collect();
    if after.is_empty() {
        return None;
    }
    let after = after.join(", ");
    if k.partial_inserted.is_empty() {
        return Some(format!(
            "barriers after line(s) {after} would fix every other race of this kernel; the file is not changed \
             while the races above remain"
        ));
    }
    let lines: Vec<String> = k.partial_inserted.iter().map(|i| i.line.to_string()).collect();
    Some(format!(
        "barriers after line(s) {after} fix every other race of this kernel (line(s) {} of the partially \
         fixed text); the races above remain",
        lines.join(", ")
    ))
}

/// Barriers the cheapest placement does without: a warning each (without `--strip`), or
/// what moved (with it).
fn redundancy_text(out: &mut dyn WriteColor, k: &driver::KernelFix) -> std::io::Result<()> {
    let Some(optimal) = k.optimal_cost else {
        return Ok(());
    };
    if k.status == FixStatus::Fixed && !k.removed.is_empty() {
        // --strip applied the optimal placement.
        let removed: Vec<String> = k.removed.iter().map(|l| l.to_string()).collect();
        let now: Vec<String> = k.inserted.iter().map(|i| i.line.to_string()).collect();
        writeln!(
            out,
            "  note: moved: the barrier(s) at original line(s) {} {}; cost {} → {}",
            removed.join(", "),
            if now.is_empty() {
                "were removed (the kernel is race-free without them)".to_string()
            } else {
                format!(
                    "were replaced by the barrier(s) now at line(s) {}",
                    now.join(", ")
                )
            },
            k.original_cost,
            optimal
        )?;
        return Ok(());
    }
    if k.redundant.is_empty() && k.optimal_instead.is_empty() {
        return Ok(());
    }
    let instead = if k.optimal_instead.is_empty() {
        String::new()
    } else {
        let l: Vec<String> = k.optimal_instead.iter().map(|l| l.to_string()).collect();
        format!(" (it puts barriers after line(s) {} instead)", l.join(", "))
    };
    for l in &k.redundant {
        writeln!(
            out,
            "warning: kernel `{}`: the barrier at line {l} can be removed or moved: the cheapest placement \
             costs {optimal}{instead}, these barriers cost {}; run with --strip to apply it",
            k.name, k.cost
        )?;
    }
    if k.redundant.is_empty() {
        writeln!(
            out,
            "warning: kernel `{}`: a cheaper placement exists (cost {optimal}{instead}, these barriers cost {}); \
             run with --strip to apply it",
            k.name, k.cost
        )?;
    }
    Ok(())
}

/// `fix --explain`: one note per inserted barrier.
fn explain_text(out: &mut dyn WriteColor, k: &driver::KernelFix) -> std::io::Result<()> {
    for i in &k.inserted {
        let Some(e) = &i.why else {
            writeln!(
                out,
                "  note: the barrier at line {} has no explanation (only AutoSync synthesis records one)",
                i.line
            )?;
            continue;
        };
        writeln!(
            out,
            "  note: the {}barrier inserted at line {} ({} of the original, cost {}) removes:",
            if i.grid {
                "grid "
            } else if i.warp {
                "warp "
            } else {
                ""
            },
            i.line,
            e.place,
            e.cost
        )?;
        for f in &e.fixes {
            writeln!(
                out,
                "        - {}, {}",
                driver::races_phrase(std::slice::from_ref(f)),
                f.how
            )?;
        }
        if e.fixes.is_empty() && !k.together_with.is_empty() {
            // A joint placement: the barrier is there for another instantiation.
            let others: Vec<String> = k.together_with.iter().map(|n| format!("`{n}`")).collect();
            writeln!(
                out,
                "        no race of this kernel: it is there for the other instantiation(s) of its template ({})",
                others.join(", ")
            )?;
        } else if e.rejected.is_empty() {
            writeln!(out, "        no cheaper place removes these races")?;
        }
        for r in &e.rejected {
            writeln!(out, "        rejected {} (cost {}): {}", r.place, r.cost, r.why)?;
        }
    }
    for l in &k.removed {
        writeln!(
            out,
            "  note: the barrier at original line {l} was removed: the kernel is race-free without it"
        )?;
    }
    Ok(())
}
