//! The naive baseline of the AutoSync paper (Sec. IV-B): a barrier after every
//! statement, minus the ones that diverge, then each barrier dropped in turn unless
//! dropping it brings a race back. It always needs one oracle call per candidate
//! barrier, which is what AutoSync is measured against.

use std::time::Instant;

use kpl::{Kernel, Label, LabelTree};
use oracle::Oracle;

use crate::{NoSolution, Outcome, Stats, SynthError, SynthOptions, Synthesis, ask, finish, hopeless};

pub fn naive(kernel: &Kernel, oracle: &mut dyn Oracle, opts: &SynthOptions) -> Result<Synthesis, SynthError> {
    let start = Instant::now();
    let tree = LabelTree::new(kernel);
    let mut stats = Stats::default();
    let mut notes = Vec::new();
    let done = |outcome, kept: Vec<Label>, stats, notes| {
        Ok(finish(outcome, kernel, &tree, kept, opts, stats, start, notes))
    };

    let report = ask(oracle, kernel, &mut stats, &mut notes)?;
    if report.is_clean() {
        return done(Outcome::AlreadyCorrect, Vec::new(), stats, notes);
    }
    if let Some(ns) = hopeless(&report, &[]) {
        return done(Outcome::NoSolution(ns), Vec::new(), stats, notes);
    }

    // Everywhere, then without the barriers that diverge (removing some can only make
    // fewer diverge, so this settles in a few rounds).
    let mut kept = tree.candidates();
    let report = loop {
        stats.iterations += 1;
        let (k, ids) = kpl::insert_barriers(kernel, &tree, &kept);
        let report = ask(oracle, &k, &mut stats, &mut notes)?;
        if let Some(ns) = hopeless(&report, &ids) {
            return done(Outcome::NoSolution(ns), Vec::new(), stats, notes);
        }
        if report.divergences.is_empty() {
            break report;
        }
        let diverging: Vec<Label> = report
            .divergences
            .iter()
            .filter_map(|d| ids.iter().position(|id| *id == d.stmt).map(|i| kept[i]))
            .collect();
        kept.retain(|l| !diverging.contains(l));
    };
    if !report.races.is_empty() {
        let ns = NoSolution {
            reason: "races remain with a barrier at every place that does not diverge".to_string(),
            races: report.races,
        };
        return done(Outcome::NoSolution(ns), Vec::new(), stats, notes);
    }

    // Drop what is not needed, one barrier at a time, in program order.
    let mut i = 0;
    while i < kept.len() {
        stats.iterations += 1;
        let mut without = kept.clone();
        without.remove(i);
        let (k, _) = kpl::insert_barriers(kernel, &tree, &without);
        if ask(oracle, &k, &mut stats, &mut notes)?.is_clean() {
            kept = without;
        } else {
            i += 1;
        }
    }
    done(Outcome::Fixed, kept, stats, notes)
}
