//! Solver plumbing shared by every query: limits in Z3 resource units (`Limits`, a race
//! query's `Attempt`s, a check's `Meter`), setting them on a solver, deciding a query
//! with its lazy cuts, and the `AUTOSYNC_TRACE_SLOW`/`AUTOSYNC_DUMP_UNDECIDED` traces;
//! apart from `queries` because the invariant proofs use it too.

use std::cell::Cell;

use z3::ast::{Ast, Bool, Int};
use z3::{Model, Params, SatResult, Solver};

use super::encode::BlockSizeLimit;

/// Solver limits in Z3 resource units (`rlimit`): a count of the solver's elementary
/// steps, so whether a query is decided depends on the query alone, never on the speed
/// or the load of the machine (wall-clock timeouts made verdicts flip under load).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// A race query's probes, before its first attempt (when smaller than `first`): on
    /// the kernel's incremental solver, where nearly every query needs far less, then
    /// `probe_fresh` on a solver of its own. Z3 preprocesses a fresh solver's first check
    /// (bit-blasting, for one), which decides in a few thousand units some queries the
    /// incremental solver cannot decide in millions (block indices modulo the grid, as
    /// in `tests/corpus/slow/transposeDiagonal.cu`), and the other way round for others.
    pub probe: u64,
    pub probe_fresh: u64,
    /// A race query's first attempt: most queries need a tiny fraction of it, and a
    /// hard one may turn out not to matter.
    pub first: u64,
    /// Any other query, and the second attempt of the race queries still undecided.
    pub query: u64,
    /// All queries of one check together (per lane when its race queries run on two
    /// threads, `verifier::lanes`); past it, the remaining questions count as undecided
    /// (possible defects, with a note) instead of running.
    pub check: u64,
    /// The proofs of one kernel's loop invariants together (`verifier::invariants`): an
    /// invariant not proved within them is not used.
    pub invariants: u64,
    /// The linear abstraction checked before a query with products of non-constant
    /// terms ([`linear_abstraction`]), and at most a quarter of the query's own limit.
    /// Large queries need millions (with at most 0.1 million, llm.c's
    /// `layernorm_backward_kernel10` took 5 min 18 s to check instead of 1 min 54 s).
    pub abstraction: u64,
}

impl Limits {
    /// The limits of `autosync check` (`--solver-budget 1`), calibrated on the corpus
    /// and the benches (`benches/README.md`): one million units take about 0.2 to 2 s
    /// of solver time on the reference machine, depending on the theory; the median
    /// query takes a few hundred units, the slowest of the corpus about 4.5 million.
    pub const DEFAULT: Limits = Limits {
        probe: 200_000,
        probe_fresh: 50_000,
        first: 1_000_000,
        query: 10_000_000,
        check: 120_000_000,
        invariants: 4_000_000,
        abstraction: 2_500_000,
    };

    /// Every limit times `factor` (`--solver-budget`), at least one unit each.
    pub fn scaled(self, factor: f64) -> Limits {
        let scale = |x: u64| ((x as f64 * factor).round() as u64).max(1);
        Limits {
            probe: scale(self.probe),
            probe_fresh: scale(self.probe_fresh),
            first: scale(self.first),
            query: scale(self.query),
            check: scale(self.check),
            invariants: scale(self.invariants),
            abstraction: scale(self.abstraction),
        }
    }

    /// The attempts at a race query, in order, each after the previous one ran out of
    /// units: the probes (when smaller than the first attempt), the first attempt on the
    /// incremental solver, then the query limit on a solver of its own (one that ran out
    /// of units would otherwise change what the incremental solver answers next).
    pub fn attempts(&self) -> Vec<Attempt> {
        let mut out = Vec::new();
        if self.probe < self.first.min(self.query) {
            out.push(Attempt {
                units: self.probe,
                fresh: false,
            });
            out.push(Attempt {
                units: self.probe_fresh.min(self.probe),
                fresh: true,
            });
        }
        if self.first < self.query {
            out.push(Attempt {
                units: self.first,
                fresh: false,
            });
            out.push(Attempt {
                units: self.query,
                fresh: true,
            });
        } else {
            out.push(Attempt {
                units: self.query,
                fresh: false,
            });
        }
        out
    }

    /// The single attempt of a query asked once (the query limit; on a solver of its
    /// own when larger than the first attempt, as in [`Limits::attempts`]).
    pub fn last_attempt(&self) -> Attempt {
        Attempt {
            units: self.query,
            fresh: self.query > self.first,
        }
    }
}

/// One attempt at a race query: its resource units, on the kernel's incremental solver
/// or on a solver of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    pub units: u64,
    pub fresh: bool,
}

impl Attempt {
    /// Whether a query undecided in this attempt is undecided in `other` too.
    pub fn covers(self, other: Attempt) -> bool {
        self.fresh == other.fresh && self.units >= other.units
    }
}

/// A check's solver work: Z3 counts the resource units of a context in one
/// monotone counter, so the work of the check is the counter's growth since it began.
pub struct Meter {
    /// The counter when the check began.
    start: u64,
    /// The counter after the last query.
    now: Cell<u64>,
    /// Units the last query took.
    last: Cell<u64>,
    budget: u64,
}

impl Meter {
    /// A meter for a check that starts now on `solver`'s context, allowed `budget` units.
    pub fn new(solver: &Solver, budget: u64) -> Meter {
        let start = resource_count(solver);
        Meter {
            start,
            now: Cell::new(start),
            last: Cell::new(0),
            budget,
        }
    }

    /// Units spent by the check so far.
    pub fn spent(&self) -> u64 {
        self.now.get() - self.start
    }

    /// Units the check may still spend.
    pub(super) fn left(&self) -> u64 {
        self.budget.saturating_sub(self.spent())
    }

    /// Units the last query took.
    pub fn last(&self) -> u64 {
        self.last.get()
    }

    /// Records the counter after a query on `solver`.
    pub(super) fn update(&self, solver: &Solver) {
        let now = resource_count(solver).max(self.now.get());
        self.last.set(now - self.now.get());
        self.now.set(now);
    }
}

/// Z3's resource counter of `solver`'s context (all solvers of a context share it).
pub(super) fn resource_count(solver: &Solver) -> u64 {
    match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
        Some(z3::StatisticsValue::Double(x)) => x as u64,
        None => 0,
    }
}

/// The wall-clock safety net of one query, far above what its resource limit takes on
/// any machine: it only guards against a solver that hangs without counting. A query
/// stopped by it counts as undecided, like one that ran out of units.
const WALL_SAFETY_MS: u32 = 300_000;

/// With `AUTOSYNC_TRACE_SLOW=MS` in the environment, queries slower than `MS`
/// milliseconds are described on stderr with the resource units they took (for finding
/// what makes a kernel slow, and for calibrating [`Limits`]: `AUTOSYNC_TRACE_SLOW=0`
/// describes every query).
pub(super) fn trace_slow(started: std::time::Instant, what: impl FnOnce() -> String) {
    static LIMIT: std::sync::OnceLock<Option<u128>> = std::sync::OnceLock::new();
    let limit = LIMIT.get_or_init(|| {
        std::env::var("AUTOSYNC_TRACE_SLOW")
            .ok()
            .and_then(|v| v.parse().ok())
    });
    if let Some(ms) = limit
        && started.elapsed().as_millis() >= *ms
    {
        eprintln!("autosync: {} ms: {}", started.elapsed().as_millis(), what());
    }
}

/// With `AUTOSYNC_DUMP_UNDECIDED=DIR`, each query the solver could not decide is written
/// to `DIR` as an SMT-LIB file (`q<N>.smt2`, the facts only: the kernel solver's history
/// is not in it), for finding out with `z3` itself what makes it hard.
pub(super) fn dump_undecided(fs: &[Bool]) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let Some(dir) = std::env::var_os("AUTOSYNC_DUMP_UNDECIDED") else {
        return;
    };
    let s = Solver::new();
    for f in fs {
        s.assert(f);
    }
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::path::Path::new(&dir).join(format!("q{n}.smt2"));
    if let Err(e) = std::fs::write(&path, format!("{s}\n(check-sat)\n")) {
        eprintln!("autosync: cannot write {}: {e}", path.display());
    }
}

/// Sets the resource limit (and the wall-clock safety net) of `s`'s next checks.
/// Z3 does not catch SIGINT during them (`ctrl_c`): its handler, installed and removed
/// around each check, would take the signal from the command line's handler (which
/// stops the whole run, `crate::interrupt`) and only stop one query.
pub(super) fn set_limit(s: &Solver, limit: u64) {
    let mut p = Params::new();
    p.set_u32("rlimit", u32::try_from(limit).unwrap_or(u32::MAX).max(1));
    p.set_u32("timeout", WALL_SAFETY_MS);
    p.set_bool("ctrl_c", false);
    s.set_params(&p);
}

/// Why a query was not asked or not finished: its run was cancelled.
pub(super) const INTERRUPTED: &str = "interrupted";

/// Asserts `fs` and checks: `Ok(None)` unsat, the model on sat. A `lazy` fact (true
/// of every run, but nonlinear) is cut into linear facts only as far as models break
/// it, each cut asserted and the query checked again.
pub(super) fn decide(
    s: &Solver,
    fs: &[Bool],
    lazy: Option<&BlockSizeLimit>,
) -> Result<Option<Model>, String> {
    for f in fs {
        s.assert(f);
    }
    // After this many cuts, the whole (nonlinear) fact.
    const CUTS: usize = 32;
    let mut cuts = 0;
    loop {
        // A cancelled run starts no new solver work (`crate::interrupt`).
        if crate::interrupt::cancelled() {
            return Err(INTERRUPTED.to_string());
        }
        match s.check() {
            SatResult::Unsat => return Ok(None),
            SatResult::Unknown => return Err(s.get_reason_unknown().unwrap_or_default()),
            SatResult::Sat => {
                let Some(m) = s.get_model() else {
                    return Err("no model".to_string());
                };
                match lazy.and_then(|l| Some((l, l.cut(&m)?))) {
                    Some((l, _)) if cuts == CUTS => s.assert(l.whole()),
                    Some((_, cut)) => s.assert(&cut),
                    None => return Ok(Some(m)),
                }
                cuts += 1;
            }
        }
    }
}

/// The linear abstraction of a query: each product `x·y` of two non-constant terms
/// replaced by a fresh integer, wherever it occurs (the product lemmas, linear facts
/// over the products, stay). Every model of the query is one of the abstraction (the
/// fresh integer taking the product's value), so an abstraction without a model proves
/// the query has none. Z3 4.8's nonlinear solver can spend minutes, counting resource
/// units slowly, on a query whose linear part alone is contradictory (offsets
/// `3200·blockIdx.x` apart with a symbolic grid and a product of loop counts beside
/// them); the linear solver decides it in milliseconds.
pub(super) fn linear_abstraction(fs: &[Bool], products: &[Int]) -> Vec<Bool> {
    let fresh: Vec<Int> = products.iter().map(|_| Int::fresh_const("product")).collect();
    let pairs: Vec<(&Int, &Int)> = products.iter().zip(&fresh).collect();
    fs.iter().map(|f| f.substitute(&pairs)).collect()
}

#[cfg(test)]
mod tests {
    use z3::ast::{Bool, Int};
    use z3::{SatResult, Solver};

    use super::linear_abstraction;

    fn ints(names: &[&str]) -> Vec<Int> {
        names.iter().map(|n| Int::new_const(*n)).collect()
    }

    /// A query whose linear part is contradictory has a contradictory abstraction:
    /// stripes `3200·b` apart never meet within 1600, whatever the product beside them.
    #[test]
    fn an_abstraction_without_a_model_proves_the_query_has_none() {
        let [b0, b1, t0, t1, g, n] = &ints(&["b0", "b1", "t0", "t1", "g", "n"])[..] else {
            unreachable!()
        };
        let product = g * n;
        let fs = vec![
            Bool::and(&[t0.ge(0), t0.lt(1600), t1.ge(0), t1.lt(1600)]),
            (t0 + b0 * 3200).eq(&(t1 + b1 * 3200 + 1600)),
            product.ge(b0),
            product.ge(b1),
        ];
        let abstracted = linear_abstraction(&fs, std::slice::from_ref(&product));
        assert!(abstracted.iter().all(|f| !f.to_string().contains("(* g n)")));
        let s = Solver::new();
        for f in &abstracted {
            s.assert(f);
        }
        assert_eq!(s.check(), SatResult::Unsat);
    }
}
