//! Measuring one benchmark file: strip its barriers, synthesize with AutoSync (MaxSAT) and
//! with the naive baseline, verify both results with a fresh oracle, and keep the paper's
//! Table I/II columns. Nothing here panics on a kernel: a front-end error, an oracle error
//! or a synthesis without solution becomes a row that says so.

use std::time::Instant;

use oracle::{CheckOptions, Oracle};
use serde_json::{Value, json};
use synth::{Outcome, PaperCost, SynthOptions, Synthesis};

use crate::suite::{self, Entry};

/// Which oracle the harness uses (`--oracle dynamic` for the interpreter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Static,
    Dynamic,
}

/// A fresh oracle with these options (launch, warp size).
pub fn oracle(which: Which, opts: CheckOptions) -> Box<dyn Oracle> {
    match which {
        Which::Static => Box::new(oracle::verifier::StaticVerifier::new(opts)),
        Which::Dynamic => Box::new(oracle::dynamic::Interpreter::new(opts)),
    }
}

/// What one strategy (naive or AutoSync) gave on one kernel.
#[derive(Clone, Debug)]
pub struct Run {
    pub oracle_calls: u32,
    /// Barriers of the result (`None` when there is no result).
    pub barriers: Option<usize>,
    pub cost: Option<f64>,
    pub time_ms: f64,
    /// The result re-checked clean by a fresh oracle.
    pub verified: bool,
    /// Why there is no verified result (no solution, oracle error, re-check failed).
    pub error: Option<String>,
}

/// One row of the tables: a kernel (or a file whose kernels could not be read).
#[derive(Clone, Debug)]
pub struct Row {
    pub suite: &'static str,
    /// The file's stem (as the paper names benchmarks), `stem/kernel` when the file has
    /// several kernels.
    pub name: String,
    /// The kernel's name in the source (`reduce5<int,256>` for an instantiation).
    pub kernel: String,
    pub file: String,
    pub loc: usize,
    pub barriers_original: Option<usize>,
    pub cost_original: Option<f64>,
    /// Candidate places for a barrier in the stripped kernel.
    pub candidates: Option<usize>,
    /// The paper's barrier counts (original, AutoSync) for this benchmark, if it has one.
    pub paper: Option<(usize, usize)>,
    pub naive: Option<Run>,
    pub autosync: Option<Run>,
    /// Set when the file could not be loaded at all.
    pub error: Option<String>,
}

/// The paper's barrier counts, original → AutoSync: Table I (micro-benchmarks, the `m`
/// of `n-m-name`, equal in both columns) and Table II (SDK kernels, by file stem).
pub fn paper_barriers(suite: &str, stem: &str) -> Option<(usize, usize)> {
    if suite == "micro" {
        let m = stem.split('-').nth(1)?.parse().ok()?;
        return Some((m, m));
    }
    const TABLE_II: &[(&str, usize, usize)] = &[
        ("convolutionColumns", 1, 1),
        ("convolutionRows", 1, 1),
        ("d_transpose", 1, 1),
        ("NLM2", 1, 1),
        ("matrixMul", 2, 2),
        ("mergeHistogram256", 1, 1),
        ("mergeHistogram64", 1, 1),
        ("reduce0", 2, 1),
        ("reduce1", 2, 2),
        ("reduce2", 2, 1),
        ("reduce3", 2, 1),
        ("reduce5", 4, 3),
        ("reduce6", 4, 3),
        ("sobol", 1, 1),
        ("sum0", 2, 2),
        ("sum1", 2, 2),
        ("uniformUpdate", 1, 1),
        ("uniform_add", 1, 1),
    ];
    (suite == "realistic")
        .then(|| {
            TABLE_II
                .iter()
                .find(|(n, _, _)| *n == stem)
                .map(|&(_, o, a)| (o, a))
        })
        .flatten()
}

/// A message on one line, cut after about 400 characters (a race list can be long).
fn one_line(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match s.char_indices().nth(400) {
        Some((i, _)) => format!("{} …", &s[..i]),
        None => s,
    }
}

/// Runs one strategy on the stripped kernel and re-checks its result.
fn run_strategy(stripped: &kpl::Kernel, naive: bool, which: Which, launch: &CheckOptions) -> Run {
    let cost = PaperCost::default();
    let opts = SynthOptions::new(&cost);
    let mut o = oracle(
        which,
        CheckOptions {
            race_directions: true,
            ..launch.clone()
        },
    );
    let start = Instant::now();
    let result: Result<Synthesis, _> = if naive {
        synth::naive(stripped, o.as_mut(), &opts)
    } else {
        synth::synthesize(stripped, o.as_mut(), &opts)
    };
    let elapsed = start.elapsed().as_secs_f64() * 1e3;
    let s = match result {
        Ok(s) => s,
        Err(e) => {
            return Run {
                oracle_calls: 0,
                barriers: None,
                cost: None,
                time_ms: elapsed,
                verified: false,
                error: Some(one_line(&format!("synthesis error: {e}"))),
            };
        }
    };
    let time_ms = s.stats.time.as_secs_f64() * 1e3;
    if let Outcome::NoSolution(why) = &s.outcome {
        return Run {
            oracle_calls: s.stats.oracle_calls,
            barriers: None,
            cost: None,
            time_ms,
            verified: false,
            error: Some(one_line(&format!("no solution: {}", why.reason))),
        };
    }
    let (verified, error) = match oracle(which, launch.clone()).check(&s.kernel) {
        Ok(r) if r.is_clean() => (true, None),
        Ok(r) => (
            false,
            Some(format!(
                "result not clean: {} race(s), {} divergent barrier(s)",
                r.races.len(),
                r.divergences.len()
            )),
        ),
        Err(e) => (false, Some(one_line(&format!("re-check failed: {e}")))),
    };
    Run {
        oracle_calls: s.stats.oracle_calls,
        barriers: Some(s.kernel.barrier_count()),
        cost: Some(s.cost),
        time_ms,
        verified,
        error,
    }
}

/// Lines of a kernel's definition.
fn kernel_loc(k: &kpl::Kernel) -> usize {
    (k.span.end_line.max(k.body.span.end_line) as usize).saturating_sub(k.span.line as usize) + 1
}

/// Every row of one benchmark file (one per kernel, or one error row).
pub fn measure(entry: &Entry, which: Which) -> Vec<Row> {
    let stem = entry
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let root = suite::root();
    let file = entry
        .path
        .strip_prefix(&root)
        .unwrap_or(&entry.path)
        .display()
        .to_string();
    let paper = paper_barriers(entry.suite, &stem);
    let (kernels, launch) = match suite::load(&entry.path) {
        Ok(x) => x,
        Err(e) => {
            let loc = std::fs::read_to_string(&entry.path)
                .map(|t| t.lines().count())
                .unwrap_or(0);
            return vec![Row {
                suite: entry.suite,
                kernel: stem.clone(),
                name: stem,
                file,
                loc,
                barriers_original: None,
                cost_original: None,
                candidates: None,
                paper,
                naive: None,
                autosync: None,
                error: Some(one_line(&format!("front end: {e}"))),
            }];
        }
    };
    let cost = PaperCost::default();
    let several = kernels.len() > 1;
    kernels
        .iter()
        .map(|k| {
            let stripped = k.without_movable_barriers();
            let candidates = kpl::LabelTree::new(&stripped).candidates().len();
            Row {
                suite: entry.suite,
                name: if several {
                    format!("{stem}/{}", k.name)
                } else {
                    stem.clone()
                },
                kernel: k.name.clone(),
                file: file.clone(),
                loc: kernel_loc(k),
                barriers_original: Some(k.barrier_count()),
                cost_original: Some(synth::placement_cost(k, &cost)),
                candidates: Some(candidates),
                paper,
                naive: Some(run_strategy(&stripped, true, which, &launch)),
                autosync: Some(run_strategy(&stripped, false, which, &launch)),
                error: None,
            }
        })
        .collect()
}

impl Row {
    /// Both strategies produced a result that a fresh oracle verified.
    pub fn ok(&self) -> bool {
        self.error.is_none()
            && self.naive.as_ref().is_some_and(|r| r.verified)
            && self.autosync.as_ref().is_some_and(|r| r.verified)
    }

    /// Why this row is not a success, if it is not.
    pub fn failure(&self) -> Option<String> {
        if let Some(e) = &self.error {
            return Some(e.clone());
        }
        let mut why = Vec::new();
        for (label, r) in [("AutoSync", &self.autosync), ("naive", &self.naive)] {
            if let Some(Run { error: Some(e), .. }) = r {
                why.push(format!("{label}: {e}"));
            }
        }
        (!why.is_empty()).then(|| why.join("; "))
    }

    pub fn json(&self) -> Value {
        let n = self.naive.as_ref();
        let a = self.autosync.as_ref();
        json!({
            "suite": self.suite,
            "name": self.name,
            "kernel": self.kernel,
            "file": self.file,
            "loc": self.loc,
            "candidates": self.candidates,
            "oracle_calls_naive": n.map(|r| r.oracle_calls),
            "oracle_calls_autosync": a.map(|r| r.oracle_calls),
            "barriers_original": self.barriers_original,
            "barriers_naive": n.and_then(|r| r.barriers),
            "barriers_autosync": a.and_then(|r| r.barriers),
            "barriers_paper_original": self.paper.map(|p| p.0),
            "barriers_paper_autosync": self.paper.map(|p| p.1),
            "cost_original": self.cost_original,
            "cost_autosync": a.and_then(|r| r.cost),
            "time_ms_naive": n.map(|r| r.time_ms),
            "time_ms_autosync": a.map(|r| r.time_ms),
            "verified_naive": n.is_some_and(|r| r.verified),
            "verified_autosync": a.is_some_and(|r| r.verified),
            "error": self.failure(),
        })
    }
}

/// The rows of every given file, in order.
pub fn measure_all(entries: &[Entry], which: Which) -> Vec<Row> {
    entries.iter().flat_map(|e| measure(e, which)).collect()
}

/// One target of the evaluation and the kernels that miss it.
pub struct Target {
    pub what: &'static str,
    pub missed: Vec<String>,
    /// For the aggregate targets: the measured value.
    pub value: Option<String>,
}

impl Target {
    pub fn met(&self) -> bool {
        self.missed.is_empty()
    }
}

/// Median of the AutoSync synthesis times, in ms (over rows that ran it).
pub fn median_autosync_ms(rows: &[Row]) -> Option<f64> {
    let mut t: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.autosync.as_ref().map(|a| a.time_ms))
        .collect();
    if t.is_empty() {
        return None;
    }
    t.sort_by(f64::total_cmp);
    let m = t.len() / 2;
    Some(if t.len() % 2 == 1 {
        t[m]
    } else {
        (t[m - 1] + t[m]) / 2.0
    })
}

/// The targets of issue #5, evaluated on `rows`; `wall_ms` is the wall-clock time of
/// the whole run (loading, both strategies, verification).
pub fn targets(rows: &[Row], wall_ms: f64) -> Vec<Target> {
    let name = |r: &Row| format!("{}/{}", r.suite, r.name);
    let each = |what: &'static str, miss: &dyn Fn(&Row) -> bool| Target {
        what,
        missed: rows.iter().filter(|r| miss(r)).map(name).collect(),
        value: None,
    };
    let as_barriers = |r: &Row| r.autosync.as_ref().and_then(|a| a.barriers);
    let mut out = vec![
        each(
            "every kernel synthesized and verified (naive and AutoSync)",
            &|r| !r.ok(),
        ),
        each(
            "AutoSync barriers ≤ original",
            &|r| !matches!((as_barriers(r), r.barriers_original), (Some(a), Some(o)) if a <= o),
        ),
        each(
            "AutoSync barriers ≤ the paper's AutoSync column",
            &|r| match (as_barriers(r), r.paper) {
                (Some(a), Some((_, p))) => a > p,
                (None, _) => true,
                (Some(_), None) => false,
            },
        ),
        each("AutoSync cost ≤ original cost", &|r| {
            let c = r.autosync.as_ref().and_then(|a| a.cost);
            !matches!((c, r.cost_original), (Some(a), Some(o)) if a <= o + 1e-9)
        }),
        each(
            "AutoSync oracle calls < naive oracle calls (kernels with > 1 candidate place)",
            &|r| match (&r.naive, &r.autosync, r.candidates) {
                (Some(n), Some(a), Some(c)) => c > 1 && a.oracle_calls >= n.oracle_calls,
                _ => true,
            },
        ),
    ];
    let median = median_autosync_ms(rows);
    out.push(Target {
        what: "median AutoSync synthesis time per kernel ≤ 100 ms",
        missed: if median.is_some_and(|m| m <= 100.0) {
            vec![]
        } else {
            vec!["(median)".into()]
        },
        value: Some(median.map_or("n/a".into(), |m| format!("{m:.1} ms"))),
    });
    out.push(Target {
        what: "whole run (both strategies and verification, all kernels) ≤ 5 s",
        missed: if wall_ms <= 5000.0 {
            vec![]
        } else {
            vec!["(total)".into()]
        },
        value: Some(format!("{:.2} s", wall_ms / 1e3)),
    });
    out
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("–".into(), |v| v.to_string())
}

/// The Markdown table (the paper's Tables I and II in one), then the failures.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    s.push_str(
        "| suite | kernel | LoC | calls N | calls AS | B orig | B paper | B N | B AS | cost orig | cost AS | ms N | ms AS | N/AS | verified N/AS |\n",
    );
    s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for r in rows {
        let n = r.naive.as_ref();
        let a = r.autosync.as_ref();
        let ratio = match (n, a) {
            (Some(n), Some(a)) => format!("{:.1}×", n.time_ms / a.time_ms.max(1e-9)),
            _ => "–".into(),
        };
        let verified = |x: Option<&Run>| match x {
            Some(r) if r.verified => "yes",
            Some(r) if r.barriers.is_none() => "no result",
            Some(_) => "NO",
            None => "–",
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {}/{} |\n",
            r.suite,
            r.name,
            r.loc,
            opt(n.map(|r| r.oracle_calls)),
            opt(a.map(|r| r.oracle_calls)),
            opt(r.barriers_original),
            r.paper.map_or("–".into(), |(o, p)| format!("{o}→{p}")),
            opt(n.and_then(|r| r.barriers)),
            opt(a.and_then(|r| r.barriers)),
            opt(r.cost_original),
            opt(a.and_then(|r| r.cost)),
            n.map_or("–".into(), |r| format!("{:.1}", r.time_ms)),
            a.map_or("–".into(), |r| format!("{:.1}", r.time_ms)),
            ratio,
            verified(n),
            verified(a),
        ));
    }
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            r.failure()
                .map(|f| format!("- {}/{} (`{}`): {f}", r.suite, r.name, r.file))
        })
        .collect();
    if !failures.is_empty() {
        s.push_str("\nFailures:\n\n");
        for f in failures {
            s.push_str(&f);
            s.push('\n');
        }
    }
    s
}

/// The summary lines and the targets, as Markdown.
pub fn summary(rows: &[Row], wall_ms: f64) -> String {
    let mut s = String::new();
    let ok = rows.iter().filter(|r| r.ok()).count();
    let as_total: f64 = rows
        .iter()
        .filter_map(|r| r.autosync.as_ref().map(|a| a.time_ms))
        .sum();
    let n_total: f64 = rows
        .iter()
        .filter_map(|r| r.naive.as_ref().map(|a| a.time_ms))
        .sum();
    s.push_str(&format!(
        "- kernels: {}, synthesized and verified by both: {ok}\n",
        rows.len()
    ));
    s.push_str(&format!(
        "- median AutoSync synthesis time per kernel: {}\n",
        median_autosync_ms(rows).map_or("n/a".into(), |m| format!("{m:.1} ms"))
    ));
    s.push_str(&format!(
        "- total synthesis time: AutoSync {:.0} ms, naive {:.0} ms; whole run (load, both, verify): {:.0} ms\n",
        as_total, n_total, wall_ms
    ));
    s.push_str("\nTargets:\n\n");
    for t in targets(rows, wall_ms) {
        let value = t.value.as_ref().map_or(String::new(), |v| format!(" ({v})"));
        let n = rows.len();
        let status = if t.met() {
            "met".to_string()
        } else if t.value.is_some() {
            "NOT met".to_string()
        } else {
            format!(
                "met by {} of {n}; missed by {}",
                n - t.missed.len(),
                t.missed.join(", ")
            )
        };
        s.push_str(&format!("- {}{value}: {status}\n", t.what));
    }
    s
}
