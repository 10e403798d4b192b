//! The per-kernel cache of answers that do not depend on barriers: the synthesizer
//! checks one kernel many times with different barriers, and these answers (race types
//! impossible whatever the barriers, cross-block races, preconditions, invariants) stay.

use std::collections::{HashMap, HashSet};

use kpl::{Kernel, StmtId};

use super::invariants;
use super::queries::{Attempt, Order, Outcome, Scope};
use super::screen::Screen;
use super::session::Z3Session;
use super::unrolled;

/// [`Cache::seen`]: the pairs asked once, and those of the second lane.
pub(super) type Seen = (
    HashSet<(StmtId, StmtId, Order)>,
    Option<HashSet<(StmtId, StmtId, Order)>>,
);

/// Answers that stay true while only barriers change, with the resource limit they
/// were computed under (an `Unknown` may be decided with more units).
pub(super) struct Cache {
    /// The kernel without its block and grid barriers.
    pub(super) key: Kernel,
    /// What the answers below depend on beyond the kernel's text ([`fingerprint`](super::fingerprint)): a
    /// barrier can change it, and then they are dropped.
    pub(super) facts: u64,
    /// The kernel's own Z3 context and incremental solver: a context's history (the
    /// terms it has seen) steers the solver, so a kernel's answers would otherwise
    /// depend on the kernels checked before it on the same thread.
    pub(super) z3: std::rc::Rc<Z3Session>,
    /// Same-block race types of a pair, ignoring barriers (unsat: impossible whatever
    /// the barriers).
    pub(super) same: HashMap<(StmtId, StmtId, Order), (Outcome, Attempt)>,
    /// Cross-block race types of a pair, ignoring (grid) barriers.
    pub(super) cross: HashMap<(StmtId, StmtId, Order), (Outcome, Attempt)>,
    /// Same-block race types already checked once with barriers.
    pub(super) seen: HashSet<(StmtId, StmtId, Order)>,
    /// Per race type of a pair, where the unrolled test ([`unrolled`]) found two
    /// threads meeting (`None`: the test does not apply, or met too often).
    pub(super) unrolled: HashMap<(StmtId, StmtId, Order), Option<unrolled::Meetings>>,
    /// Pairs whose same-iteration race type the unrolled test found separated by the
    /// barriers of the current check.
    pub(super) separated: usize,
    /// Race types ruled out with the barriers of the current check (unsat, same block
    /// then across blocks): a check without loop invariants leaves them to the check
    /// with them (see [`Cache::after_first_pass`]). Emptied at the start of every check,
    /// since the barriers may have changed.
    pub(super) synced: HashSet<(StmtId, StmtId, Order, Scope)>,
    /// Pairs that cannot race at all (see [`Checker::may_race`](super::queries::Checker::may_race)), per array screened.
    pub(super) screen: Option<Screen>,
    /// Whether the preconditions can hold (barriers do not change them).
    pub(super) feasible: Option<bool>,
    /// What became of each loop's candidate invariants (barriers do not change them).
    pub(super) invariants: Option<Vec<Vec<invariants::Verdict>>>,
    /// The answers of the second lane's arrays, with its own Z3 session, when the
    /// kernel's race queries run on two threads ([`lanes`](super::lanes)).
    pub(super) lane: Option<Box<Cache>>,
    /// Race types the last check answered from runs of the kernel ([`concrete`](super::concrete)).
    pub(super) shown: usize,
    /// The share of satisfiable answers runs gave in the last check of this kernel
    /// that ran it (barriers do not change the kernel's runs much, so a kernel whose
    /// runs missed its races is not run again: [`concrete::RUN_WORTH`](super::concrete::RUN_WORTH)).
    pub(super) run_yield: Option<usize>,
}

impl Cache {
    pub(super) fn new(key: Kernel, facts: u64, z3: std::rc::Rc<Z3Session>) -> Cache {
        Cache {
            key,
            facts,
            z3,
            same: HashMap::new(),
            cross: HashMap::new(),
            seen: HashSet::new(),
            unrolled: HashMap::new(),
            separated: 0,
            synced: HashSet::new(),
            screen: None,
            feasible: None,
            invariants: None,
            lane: None,
            shown: 0,
            run_yield: None,
        }
    }

    /// Keeps, of a check without the loop invariants, only what holds with them too:
    /// the unsatisfiable answers (the invariants only add assumptions; the barrier
    /// answers of the check are in `synced`). Satisfiable and undecided answers are
    /// dropped, the pairs asked once are as they were before it (`seen`), and the Z3
    /// session is a fresh one, so that the check with the invariants runs as if the
    /// first had not been (but for the queries it need not ask again). The first pass
    /// screens no array, so the screens are as they were.
    pub(super) fn after_first_pass(&mut self, seen: Seen) {
        self.z3 = std::rc::Rc::new(Z3Session::new());
        self.same.retain(|_, (out, _)| matches!(out, Outcome::Unsat));
        self.cross.retain(|_, (out, _)| matches!(out, Outcome::Unsat));
        self.seen = seen.0;
        if let Some(lane) = &mut self.lane {
            lane.after_first_pass((seen.1.unwrap_or_default(), None));
        }
    }

    /// The pairs asked once so far, of this cache and of its second lane's.
    pub(super) fn seen(&self) -> Seen {
        (self.seen.clone(), self.lane.as_ref().map(|l| l.seen.clone()))
    }
}

/// The cached outcome for `key`, or a fresh one from `run` when there is none yet or
/// the cached one is undecided under a smaller resource limit.
pub(super) fn cached(
    map: &mut HashMap<(StmtId, StmtId, Order), (Outcome, Attempt)>,
    key: (StmtId, StmtId, Order),
    limit: Attempt,
    run: impl FnOnce() -> Outcome,
) -> Outcome {
    if let Some((out, l)) = map.get(&key)
        && (!matches!(out, Outcome::Unknown(_)) || l.covers(limit))
    {
        return out.clone();
    }
    let out = run();
    map.insert(key, (out.clone(), limit));
    out
}

/// `run`'s outcome, or unsat when `ruled_out` says so (from an earlier pass of the same
/// check); an unsat outcome is added to it.
pub(super) fn synced(
    ruled_out: &mut HashSet<(StmtId, StmtId, Order, Scope)>,
    key: (StmtId, StmtId, Order, Scope),
    run: impl FnOnce() -> Outcome,
) -> Outcome {
    if ruled_out.contains(&key) {
        return Outcome::Unsat;
    }
    let out = run();
    if matches!(out, Outcome::Unsat) {
        ruled_out.insert(key);
    }
    out
}
