//! One placement for several kernels that share one source text: the instantiations of
//! a template (`k<32>`, `k<64>`) are lowered to one kernel each, but a barrier written
//! into the text is in all of them. Synthesizing each alone gives placements that may
//! differ (one needs a barrier, the other none) or that are wrong for the other (a
//! barrier inside `if (t < N)` is uniform when `N` is the block size and divergent when
//! it is smaller).
//!
//! [`synthesize_jointly`] runs Algorithm 1 once for all of them, as one weighted MaxSAT
//! problem: every kernel has its own label tree, race constraints and `P` variables,
//! but the variables of a candidate (`L_ℓ`, `W_ℓ`, `G_ℓ`) are named after its *source
//! place* ([`Member::places`], the text edit that writes a barrier there), so labels of
//! different kernels at one place are one variable. Each round the optimum is given to
//! every kernel (its labels at the chosen places) and checked by that kernel's oracle:
//! a barrier that diverges in one kernel excludes its block's places for all of them
//! (they are the same variables), and races refine the constraints of the kernel they
//! are in. The result is race- and divergence-free in every kernel, each checked by the
//! oracle, or there is no solution, with the reason naming the kernels.
//!
//! Cost: each kernel adds its own soft constraint `¬L_ℓ` with its own cost model's
//! weight `C(ℓ)` for its label at the place, so the optimum minimises the **sum** over
//! the kernels of their placement costs (a place some kernel lacks, code its
//! instantiation folds away, costs nothing for that kernel). The sum, not the maximum:
//! every instantiation is launched and pays for its barriers, and a sum is what
//! weighted MaxSAT minimises natively.
//!
//! A member with [`Member::fix`] false (an instantiation `fix --kernel` did not select)
//! takes part only so that no barrier placed for the others diverges in it: its races
//! are no target, and its result says nothing else about it.
//!
//! Not done jointly: splitting a self-racing statement ([`Joint::NeedsSplit`]: the
//! caller synthesizes each kernel alone and must check that the results agree).

use std::collections::BTreeMap;

use kpl::{Kernel, Label};
use oracle::Oracle;

use crate::autosync::{Names, Part, Start, give_up_all, new_optimize, refine, start};
use crate::{Outcome, Run, SynthError, SynthOptions, Synthesis};

/// One kernel of a joint synthesis.
pub struct Member<'a> {
    pub kernel: &'a Kernel,
    /// Its own oracle: an oracle may keep answers about the kernel it was last asked
    /// about, and the rounds ask about each member in turn.
    pub oracle: &'a mut dyn Oracle,
    pub opts: &'a SynthOptions<'a>,
    /// The source place of each candidate label of `LabelTree::new(kernel)` that has
    /// one, as a number: equal numbers in different members are the same place of the
    /// text. Candidates without a number are not used (no barrier goes there).
    pub places: BTreeMap<Label, usize>,
    /// Its races are to be removed. `false`: a kernel that only must not get worse
    /// (`fix --kernel` chose another instantiation): no barrier placed for the others
    /// may diverge in it, its own races and divergences are left as they are, and its
    /// result says nothing else about it.
    pub fix: bool,
}

/// What [`synthesize_jointly`] found.
pub enum Joint {
    /// One synthesis per member, in their order, all with the barriers at the same
    /// places (each in its own labels): all `Fixed` or `AlreadyCorrect` when a common
    /// placement was found, else `NoSolution` (the reason names the kernels).
    Synthesized(Vec<Synthesis>),
    /// This member (its index) needs a self-racing statement split, which is not done
    /// jointly.
    NeedsSplit(usize),
}

/// The cheapest placement of barriers at source places that makes every member to fix
/// race- and divergence-free, and diverges in no member (module doc).
pub fn synthesize_jointly(members: Vec<Member<'_>>) -> Result<Joint, SynthError> {
    let mut runs = Vec::with_capacity(members.len());
    let mut places = Vec::with_capacity(members.len());
    let mut fix = Vec::with_capacity(members.len());
    for m in members {
        runs.push(Run::new(m.kernel, m.oracle, m.opts));
        places.push(m.places);
        fix.push(m.fix);
    }
    // What the first answers say; a member not to fix has nothing to remove.
    let mut starts = Vec::with_capacity(runs.len());
    for (run, fix) in runs.iter_mut().zip(&fix) {
        let s = start(run, true)?;
        starts.push(if *fix { s } else { Start::Clean });
    }
    if let Some(i) = starts.iter().position(|s| matches!(s, Start::Split(_))) {
        return Ok(Joint::NeedsSplit(i));
    }
    if starts.iter().all(|s| matches!(s, Start::Clean)) {
        let done = runs
            .into_iter()
            .map(|r| r.finish(Outcome::AlreadyCorrect, Vec::new()))
            .collect();
        return Ok(Joint::Synthesized(done));
    }
    let why: Vec<_> = starts
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Start::GiveUp(ns) => Some((i, ns.clone())),
            _ => None,
        })
        .collect();
    if !why.is_empty() {
        return Ok(Joint::Synthesized(give_up_all(runs, &Default::default(), why)));
    }
    let trees: Vec<kpl::LabelTree> = runs.iter().map(|r| r.tree.clone()).collect();
    let opt = new_optimize();
    let mut parts = Vec::with_capacity(runs.len());
    let each = runs.into_iter().zip(&trees).zip(&places).zip(starts).zip(fix);
    for (i, ((((run, tree), places), start), fix)) in each.enumerate() {
        let fixable = match start {
            Start::Refine(races) => races,
            _ => Vec::new(),
        };
        parts.push(Part::new(run, tree, &opt, Names::shared(i, places), fixable, fix));
    }
    Ok(Joint::Synthesized(refine(parts, &opt)?))
}
