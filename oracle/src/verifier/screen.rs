//! Screening: grouped queries over one array's accesses that rule out, at once, the
//! pairs no two threads can race on, and the measure (resource units per race type so
//! far) that decides when a screen pays for itself.

use std::collections::{BTreeSet, HashMap, HashSet};

use kpl::{Space, StmtId};

use super::pairs::{Apart, conflicting, conflicting_indices};
use super::queries::{Checker, Scope};
use super::symbolic::{AccessFact, Summary};

/// Pairs of accesses (smaller statement id first) that the screening queries proved
/// unable to race, within a block and across blocks.
#[derive(Default)]
pub(super) struct Screen {
    /// The arrays whose screen was weighed ([`RacePhase::screen_if_worth`](super::races::RacePhase::screen_if_worth)).
    pub(super) arrays: HashSet<String>,
    /// Those of them that were screened.
    pub(super) ran: BTreeSet<String>,
    pub(super) same: HashSet<(StmtId, StmtId)>,
    pub(super) cross: HashSet<(StmtId, StmtId)>,
}

pub(super) fn pair_key(a: &AccessFact, b: &AccessFact) -> (StmtId, StmtId) {
    (a.stmt.min(b.stmt), a.stmt.max(b.stmt))
}

/// Screens one array's accesses (one grouped query per scope, plus one per pair that
/// may race): the pairs left unnamed need no per-pair query.
pub(super) fn screen_array(
    ck: &Checker,
    sum: &Summary,
    array: &str,
    many_blocks: bool,
    budget: u64,
    out: &mut Screen,
) {
    let accs: Vec<&AccessFact> = sum.accesses.iter().filter(|a| a.array == array).collect();
    let global = accs.first().is_some_and(|a| a.space == Space::Global);
    // Many pairs racing without barriers (a synchronized kernel): the screen cannot
    // pay off, give up early.
    let limit = 1 + accs.len() / 16;
    let mut scopes = vec![(Scope::SameBlock, &mut out.same)];
    if global && many_blocks {
        scopes.push((Scope::CrossBlock, &mut out.cross));
    }
    for (scope, proved) in scopes {
        // The indices alone often keep threads apart (`A[tid + c * bdim]`): a cheap
        // query over them first, the full one only when it names a pair.
        let named = match ck.may_race(&accs, scope, 0, budget / 4, true) {
            Some(none) => Some(none),
            None => ck.may_race(&accs, scope, limit, budget, false),
        };
        let Some(named) = named else {
            continue;
        };
        for (i, a) in accs.iter().enumerate() {
            for (j, b) in accs.iter().enumerate().skip(i) {
                if conflicting(a, b) && !named.contains(&(i, j)) {
                    proved.insert(pair_key(a, b));
                }
            }
        }
    }
}

/// An array's accesses are screened once its remaining pair queries are expected (at
/// the rate of the ones done so far) to take more resource units than this: small
/// kernels never pay for a grouped query (much harder than a pair query when barriers
/// synchronize the array), large ones grow much more slowly. Measured in units, not
/// time, so that whether an array is screened (and so the verdict) never depends on
/// the machine.
pub(super) const SCREEN_WORTH: f64 = 400_000.0;

/// The budget of a screen: a third of what it may save, within these bounds (a screen
/// that gives up must cost little next to the pair queries that follow it).
pub(super) const SCREEN_BUDGET: (f64, f64) = (300_000.0, 3_000_000.0);

/// Race types of an array its rate is measured on before screening is considered.
const SCREEN_SAMPLE: usize = 4;

/// The share of an array's race types asked so far that may race above which its
/// screen waits (a screen pays when most pairs cannot race: it gives up once it has
/// named a few racing pairs).
const SCREEN_RACING: f64 = 0.25;

/// Per array: race types of its conflicting pairs, those asked so far, those of them
/// found racing, resource units spent on them (deep pairs have more race types, so they
/// count for more).
#[derive(Default)]
pub(super) struct PairProgress {
    pub(super) total: usize,
    pub(super) done: usize,
    pub(super) racing: usize,
    pub(super) spent: u64,
}

impl PairProgress {
    /// Expected resource units for the pairs not asked yet.
    pub(super) fn remaining(&self) -> f64 {
        if self.done < SCREEN_SAMPLE {
            return 0.0;
        }
        let rate = self.spent as f64 / self.done as f64;
        rate * self.total.saturating_sub(self.done) as f64
    }

    /// More than [`SCREEN_RACING`] of the race types asked so far may race: an
    /// unsynchronized array (a kernel stripped of its barriers), whose screen would only
    /// name pairs until it gives up.
    pub(super) fn mostly_racing(&self) -> bool {
        self.racing as f64 > SCREEN_RACING * self.done as f64
    }
}

/// Per array, how many race types its conflicting pairs have (none asked yet), but for
/// the pairs the dependence test rules out.
pub(super) fn pair_progress<'s>(sum: &'s Summary, apart: &Apart) -> HashMap<&'s str, PairProgress> {
    let mut progress: HashMap<&str, PairProgress> = HashMap::new();
    for (i, j) in conflicting_indices(&sum.accesses) {
        let scopes = apart.scopes(sum, i, j);
        if !scopes.same && !scopes.cross {
            continue;
        }
        let (a, b) = (&sum.accesses[i], &sum.accesses[j]);
        progress.entry(a.array.as_str()).or_default().total += race_types(a, b);
    }
    progress
}

/// `orders(a, b).len()` without building the list.
pub(super) fn race_types(a: &AccessFact, b: &AccessFact) -> usize {
    let depth = Summary::common_loops(&a.loops, &b.loops);
    1 + depth * if a.stmt == b.stmt { 1 } else { 2 }
}
