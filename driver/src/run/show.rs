//! `--show STAGE`: a stage's output instead of the verdict, for finding out why a kernel
//! verifies slowly or not at all. Each stage is a table row: what it prints and how
//! (Faial's `show_*` flags, and what used to hide behind `AUTOSYNC_TRACE_*`).

use std::sync::{Arc, Mutex};

use anyhow::Result;
use kpl::Kernel;

use super::{check_options, selected, static_verifier};
use crate::source::{Lang, Source};
use crate::{FixSettings, Settings};

/// A stage of the pipeline whose output `--show` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The file after the CUDA preprocessor (`#include`, `#define`, `#if`), with the
    /// preprocessor's notes first; a `.kpl` file as it is.
    Preprocessed,
    /// The lowered kernels, as KPL text (`kpl::print`).
    Kpl,
    /// The label tree of each kernel (`kpl::LabelTree::describe`).
    Labels,
    /// What the static verifier's symbolic execution computed for each kernel: per access
    /// its index and condition terms, per loop its trip count and the invariants it proved
    /// (`oracle::verifier::StaticVerifier::describe_summary`).
    Summary,
    /// The static verifier's queries for each kernel
    /// (`oracle::verifier::StaticVerifier::describe_queries`), not asked.
    Queries,
    /// The synthesis of `fix`, round by round: each placement it asked the oracle about
    /// and the racing line pairs the oracle answered. This stage runs the synthesis
    /// (nothing is written).
    Rounds,
}

/// What `--show` prints for the selected kernels of a file: the preprocessed text, the
/// KPL text, or for each kernel a line `PATH: kernel `NAME`` followed by the stage's
/// lines indented by two spaces. Only [`Stage::Rounds`] verifies (with `fix`'s
/// settings, `fix`).
///
/// A run cancelled ([`crate::interrupt`]) before this returns is the error
/// [`crate::Interrupted`].
pub fn show(settings: &Settings, fix: &FixSettings, src: &Source, stage: Stage) -> Result<String> {
    let ks = selected(settings, src)?;
    let out = match stage {
        Stage::Preprocessed => preprocessed(settings, src),
        Stage::Kpl => {
            let owned: Vec<Kernel> = ks.into_iter().cloned().collect();
            Ok(kpl::print(&owned))
        }
        Stage::Rounds => rounds(settings, fix, src, &ks),
        Stage::Labels => Ok(per_kernel(src, &ks, |k| kpl::LabelTree::new(k).describe())),
        Stage::Summary => Ok(per_kernel(src, &ks, |k| {
            verifier_of(settings, src, k).describe_summary(k)
        })),
        Stage::Queries => Ok(per_kernel(src, &ks, |k| {
            verifier_of(settings, src, k).describe_queries(k)
        })),
    };
    crate::unless_interrupted(out)
}

/// The static verifier as `check` makes it for kernel `k` (its own launch).
fn verifier_of(settings: &Settings, src: &Source, k: &Kernel) -> oracle::verifier::StaticVerifier {
    static_verifier(settings, check_options(settings, src, &src.launch_of(&k.name)))
}

/// A header line per kernel, then its lines indented by two spaces.
fn per_kernel(src: &Source, ks: &[&Kernel], lines_of: impl Fn(&Kernel) -> Vec<String>) -> String {
    let mut out = String::new();
    for k in ks {
        out.push_str(&format!("{}: kernel `{}`\n", src.path.display(), k.name));
        for l in lines_of(k) {
            out.push_str(&format!("  {l}\n"));
        }
    }
    out
}

/// The preprocessor's output: its notes as `//` comments, then the text.
fn preprocessed(settings: &Settings, src: &Source) -> Result<String> {
    if src.lang == Lang::Kpl {
        return Ok(src.text.clone());
    }
    let map = cuda::preprocess::preprocess(&src.path, &src.text, &settings.front_end)?;
    let mut out = String::new();
    for n in map.notes.iter().chain(&map.unread) {
        out.push_str(&format!("// autosync: {n}\n"));
    }
    out.push_str(&map.text);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// Runs `fix`'s synthesis on the file (nothing is written) and lists its rounds per
/// kernel, then each kernel's outcome.
fn rounds(settings: &Settings, fix: &FixSettings, src: &Source, ks: &[&Kernel]) -> Result<String> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut fix = fix.clone();
    fix.rounds = Some(log.clone());
    let fixed = super::fix::fix(settings, &fix, src)?;
    let rounds = log.lock().map(|l| l.clone()).unwrap_or_default();
    Ok(per_kernel(src, ks, |k| {
        let mut lines: Vec<String> = rounds
            .iter()
            .filter(|r| r.kernel == k.name)
            .enumerate()
            .map(|(i, r)| format!("round {}: {r}", i + 1))
            .collect();
        if lines.is_empty() {
            lines.push("no round: the synthesis did not run the verifier".to_string());
        }
        if let Some(f) = fixed.kernels.iter().find(|f| f.name == k.name) {
            lines.push(outcome(f));
        }
        lines
    }))
}

/// A kernel's fix in one line: the status, the barriers inserted (after which lines of
/// the original) and the cost, or why there is no fix.
fn outcome(f: &super::fix::KernelFix) -> String {
    let mut line = format!("outcome: {}", f.status.word());
    let after: Vec<u32> = f.inserted.iter().map(|i| i.after_line).collect();
    if !after.is_empty() {
        line.push_str(&format!(", {}", lines("barrier after", "barriers after", &after)));
    }
    if !f.removed.is_empty() {
        line.push_str(&format!(
            ", {}",
            lines("barrier removed at", "barriers removed at", &f.removed)
        ));
    }
    line.push_str(&format!(", cost {} (was {})", f.cost, f.original_cost));
    if let Some(why) = &f.reason {
        line.push_str(&format!(": {why}"));
    }
    line
}

/// `one line 4` or `many lines 4, 9`.
fn lines(one: &str, many: &str, at: &[u32]) -> String {
    let list: Vec<String> = at.iter().map(u32::to_string).collect();
    match list.len() {
        1 => format!("{one} line {}", list[0]),
        _ => format!("{many} lines {}", list.join(", ")),
    }
}
