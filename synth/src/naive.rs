//! The naive baseline of the AutoSync paper (Sec. IV-B): a barrier after every
//! statement, minus the ones that diverge, then each barrier dropped in turn unless
//! dropping it brings a race back. It always needs one oracle call per candidate
//! barrier, which is what AutoSync is measured against.

use kpl::{Kernel, Label};
use oracle::Oracle;

use crate::{NoSolution, Outcome, Run, SynthError, SynthOptions, Synthesis, hopeless};

/// Block barriers only: with `SynthOptions::grid_barriers` or `warp_barriers` it refuses
/// ([`SynthError::Unsupported`]) rather than ignore them (the CLI rejects `--naive` with
/// `--cooperative` or `--warp-barriers` before that).
pub fn naive(kernel: &Kernel, oracle: &mut dyn Oracle, opts: &SynthOptions) -> Result<Synthesis, SynthError> {
    if opts.grid_barriers {
        return Err(SynthError::Unsupported(
            "the naive baseline places block barriers only: grid barriers (--cooperative) need the AutoSync \
             synthesis",
        ));
    }
    if opts.warp_barriers {
        return Err(SynthError::Unsupported(
            "the naive baseline places block barriers only: warp barriers (--warp-barriers) need the AutoSync \
             synthesis",
        ));
    }
    let mut run = Run::new(kernel, oracle, opts);
    let report = run.ask(kernel)?;
    if report.is_clean() {
        return Ok(run.finish(Outcome::AlreadyCorrect, Vec::new()));
    }
    if let Some(ns) = hopeless(&report, &[]) {
        return Ok(run.give_up(ns));
    }

    // Everywhere, then without the barriers that diverge (removing some can only make
    // fewer diverge, so this settles in a few rounds).
    let mut kept = run.tree.candidates();
    let report = loop {
        run.stats.iterations += 1;
        let (k, ids) = run.with_barriers(&kept);
        let report = run.ask(&k)?;
        if let Some(ns) = hopeless(&report, &ids) {
            return Ok(run.give_up(ns));
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
        return Ok(run.give_up(NoSolution {
            reason: "races remain with a barrier at every place that does not diverge".to_string(),
            races: report.races,
        }));
    }

    // Drop what is not needed, one barrier at a time, in program order.
    let mut i = 0;
    while i < kept.len() {
        run.stats.iterations += 1;
        let mut without = kept.clone();
        without.remove(i);
        let (k, _) = run.with_barriers(&without);
        if run.ask(&k)?.is_clean() {
            kept = without;
        } else {
            i += 1;
        }
    }
    Ok(run.finish(Outcome::Fixed, kept))
}
