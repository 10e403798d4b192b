//! The static verifier: proves kernels free of data races and barrier divergence under
//! the semantics of `docs/semantics.md`, or reports every racing pair of statements and every
//! divergent barrier with a witness from the SMT model. Sound: "clean" means no race and
//! no divergence exists under the semantics, for every launch the options allow, every
//! parameter value the `requires` clauses allow and every memory content.
//!
//! The modules, in pipeline order (ARCHITECTURE.md's "The static verifier" says more):
//!
//! *Summarize the kernel* (no solver):
//! 1. [`symbolic`] runs one symbolic thread over the kernel (predicated execution, with
//!    `return`/`break`/`continue` as flags) and records, for every access, barrier and
//!    `assume`, index and predicate terms over the thread id, the launch, the parameters
//!    and the iteration numbers of the enclosing loops: `symbolic/exec` (the pass over
//!    statements), `symbolic/loops` (one loop: analysis passes, trip count, exit
//!    values), `symbolic/closed_forms` (induction variables, geometric sequences, powers
//!    of two; other carried values are per-iteration unknowns) and `symbolic/syntax`
//!    (what a loop body assigns, whether it jumps). Loops need no invariants to get
//!    closed forms.
//! 2. [`term`] holds those terms and their uniformity classes (which values all threads
//!    of a warp, block or grid agree on); `candidates` generates loop-invariant
//!    candidates from them.
//!
//! *Rule pairs out without the solver*:
//! 3. [`affine`] compares indices affine in the ids, launch sizes and parameters (gcd,
//!    bounds, mixed-radix and exact tests), and with a fixed block `unrolled` enumerates
//!    a pair's iterations and the block's threads: a pair no two threads can meet on
//!    needs no query.
//!
//! *Ask the solver* (within the resource limits of `solver`, [`Limits`]):
//! 4. [`encode`] instantiates terms for one thread copy at chosen iteration numbers in
//!    Z3: `encode/terms` (node by node), `encode/atoms` (unknowns as functions of their
//!    iterations, and the lemmas a query used), `encode/arith` (C arithmetic),
//!    `encode/bits` (bit-level forms), `encode/pow2` (powers of two and tables).
//! 5. [`invariants`] proves the candidates (Houdini), only when a check without them
//!    finds a possible defect.
//! 6. [`queries`] asks, per pair of accesses and race type (same iteration of all common
//!    loops; different iterations of common loop `j`, in both directions until one
//!    races), whether two threads can touch one element with no barrier in between
//!    (`queries/race`, with the digit lemmas of [`radix`]; `queries/trace_order`: the
//!    barrier instances between two occurrences; `queries/screen`: one grouped query for
//!    all accesses of an array), and per barrier whether two threads can disagree on
//!    reaching it. `concrete` answers race types the interpreter shows satisfiable
//!    without the solver; a "cannot race" is always a proof or an enumeration.
//!
//! *The check*, per kernel ([`Oracle::check`] here):
//! 7. `divergence` asks about every barrier first (only never-divergent barriers order
//!    accesses); then `races` asks about every pair of conflicting accesses in program
//!    order (`pairs`: which pairs, their race types, the dependence test's scopes;
//!    `screen`: when grouped queries pay; `pair_race`: every race type of one pair), on
//!    two threads for large kernels (`lanes`). Preconditions that no launch satisfies
//!    are an error.
//! 8. `cache` keeps, per kernel, what does not depend on barriers (which race types of a
//!    pair can happen at all, cross-block races), since the synthesizer checks one
//!    kernel many times with different barriers, keyed by `fingerprint`, in the kernel's
//!    own Z3 context (`session`).
//!
//! `describe` prints the queries a check would ask and the symbolic summary (`--show
//! queries|summary`). The deviations from the interpreter's semantics and the shortcuts
//! the verifier takes are the rules of [`deviations`], each with its tests.

pub mod affine;
mod cache;
mod candidates;
mod concrete;
mod describe;
pub mod deviations;
mod divergence;
pub mod encode;
mod fingerprint;
pub mod invariants;
mod lanes;
mod pair_race;
mod pairs;
pub mod queries;
mod races;
pub mod radix;
mod screen;
mod session;
mod solver;
pub mod symbolic;
pub mod term;
mod unrolled;

use std::collections::HashSet;

use kpl::{Kernel, StmtId};

use crate::{CheckOptions, Oracle, OracleError, Report};
use cache::Cache;
use divergence::divergences;
pub use queries::{Attempt, Limits};
use queries::{Checker, Meter};
use races::{RacePhase, order_races};
use screen::PairProgress;
use session::{Z3Session, in_context};
use symbolic::{Origin, Summary};
use term::Class;

/// The static verifier (the `static` oracle).
pub struct StaticVerifier {
    pub opts: CheckOptions,
    /// Solver limits in resource units: an undecided query counts as a possible defect.
    /// Race types are first tried within [`Limits::first`], and only the ones still
    /// undecided and still relevant get [`Limits::query`].
    pub limits: Limits,
    /// Screen the accesses of arrays whose per-pair queries take long with grouped
    /// queries ([`Checker::may_race`]); off only to measure what it saves.
    pub screening: bool,
    /// Rule out pairs with the solver-free dependence test ([`affine`]) before any
    /// query; off only to check that it changes no verdict.
    pub dependence_test: bool,
    /// Rule out race types of a pair within a block by enumerating its iterations and
    /// the block's threads ([`unrolled`]); off only to check that it changes no
    /// verdict.
    pub unrolled_test: bool,
    /// Under `--warp-size`, ask threads of different warps and threads of one warp in
    /// two queries (seed 000's two-pass method) instead of one (its re-sync method, the
    /// default: measured faster on the warp-synchronous reductions, see
    /// `benches/README.md`).
    pub warp_two_pass: bool,
    /// Prove the loop invariants only once a check without them finds a possible
    /// defect ([`Oracle::check`]); off only to check that it changes no verdict.
    pub lazy_invariants: bool,
    /// Ask the race queries of a kernel on two threads ([`lanes`]) once its pairs have
    /// at least this many race types (`usize::MAX`: never; tests set 0 to exercise the
    /// second lane on small kernels).
    pub lane_min_types: usize,
    /// Run the kernel once the solver has found this many race types of a check
    /// satisfiable, and answer the race types the run shows without the solver
    /// ([`concrete`]); `usize::MAX`: never (only to check that it changes no verdict;
    /// tests set 1 to run small kernels).
    pub concrete_after: usize,
    cache: Option<Cache>,
}

fn with_notes(mut report: Report, notes: Vec<String>) -> Report {
    report.notes.extend(notes);
    report
}

impl StaticVerifier {
    pub fn new(opts: CheckOptions) -> StaticVerifier {
        StaticVerifier {
            opts,
            limits: Limits::DEFAULT,
            screening: true,
            dependence_test: true,
            unrolled_test: true,
            warp_two_pass: false,
            lazy_invariants: true,
            lane_min_types: lanes::LANE_MIN_TYPES,
            concrete_after: concrete::RUN_AFTER,
            cache: None,
        }
    }

    /// How many race types the last check answered from runs of the kernel instead of
    /// the solver ([`concrete`]), in both lanes.
    pub fn shown_by_runs(&self) -> usize {
        self.cache
            .as_ref()
            .map_or(0, |c| c.shown + c.lane.as_ref().map_or(0, |l| l.shown))
    }

    /// What the unrolled test ([`unrolled`]) ruled out for the last kernel checked
    /// (both lanes): race types within a block at which no two threads meet at all (in
    /// any check of the kernel so far), and pairs whose same-iteration meetings the
    /// barriers of the last check all separate.
    pub fn unrolled(&self) -> (usize, usize) {
        let count = |c: &Cache| {
            let apart = c
                .unrolled
                .values()
                .filter(|m| m.as_ref().is_some_and(Vec::is_empty))
                .count();
            (apart, c.separated)
        };
        self.cache.as_ref().map_or((0, 0), |c| {
            let (x, y) = count(c);
            let (p, q) = c.lane.as_ref().map_or((0, 0), |l| count(l));
            (x + p, y + q)
        })
    }

    /// The arrays of the last kernel checked whose accesses were screened, in any of
    /// its checks (what a screen saves or costs is only seen in resource units; this
    /// says whether one ran).
    pub fn screened(&self) -> Vec<String> {
        let screen = self.cache.as_ref().and_then(|c| c.screen.as_ref());
        screen
            .map(|s| s.ran.iter().cloned().collect())
            .unwrap_or_default()
    }
}

impl Oracle for StaticVerifier {
    fn name(&self) -> &'static str {
        "static"
    }

    fn replay(&mut self, kernel: &Kernel, report: &mut Report) {
        crate::replay::replay_report(kernel, &self.opts, report);
    }

    /// Summarizes the kernel, then: preconditions, divergence, race queries per pair,
    /// report order. The per-kernel cache goes back into `self` on every return.
    ///
    /// Loop invariants are proved only when they can matter: a kernel whose
    /// queries are all unsatisfiable without them is verified without them (they only
    /// add assumptions, so every such answer stands with them too). Otherwise the check
    /// stops at its first possible defect, proves the invariants, and starts again
    /// with the unsatisfiable answers kept. A kernel with `invariant` statements has
    /// them proved first, since the user is told which were not.
    ///
    /// A check whose run is cancelled (`crate::interrupt`) before it returns is
    /// [`OracleError::Interrupted`]: its interrupted queries would read as possible
    /// defects, so nothing of it is reported or kept (the cache goes too).
    fn check(&mut self, kernel: &Kernel) -> Result<Report, OracleError> {
        if crate::interrupt::cancelled() {
            return Err(OracleError::Interrupted);
        }
        let out = self.check_uninterrupted(kernel);
        if crate::interrupt::cancelled() {
            self.cache = None;
            return Err(OracleError::Interrupted);
        }
        out
    }

    /// The uniformity analysis of [`term`] on the kernel with a barrier after each label
    /// of `after`: a barrier whose predicate is of class grid or block needs no
    /// divergence query (the rule of [`divergences`]). No solver is involved.
    fn uniform_places(
        &mut self,
        kernel: &Kernel,
        tree: &kpl::LabelTree,
        after: &[kpl::Label],
    ) -> Option<Vec<bool>> {
        let (probe, ids) = kpl::insert_barriers(kernel, tree, after);
        let sum = symbolic::summarize(&probe, &self.opts);
        let uniform: HashSet<StmtId> = sum
            .barriers
            .iter()
            .filter(|b| sum.class(&b.pred) <= Class::Block)
            .map(|b| b.stmt)
            .collect();
        Some(ids.iter().map(|id| uniform.contains(id)).collect())
    }
}

impl StaticVerifier {
    /// [`Oracle::check`] but for interruption.
    fn check_uninterrupted(&mut self, kernel: &Kernel) -> Result<Report, OracleError> {
        let mut sum = symbolic::summarize(kernel, &self.opts);
        let mut cache = self.cache_for(kernel, fingerprint::of(&sum));
        cache.synced.clear();
        cache.separated = 0;
        if let Some(lane) = &mut cache.lane {
            lane.synced.clear();
            lane.separated = 0;
        }
        let annotated = sum.invariants.iter().any(|l| {
            l.candidates
                .iter()
                .any(|c| matches!(c.origin, Origin::Annotated(_)))
        });
        if self.lazy_invariants
            && cache.invariants.is_none()
            && !annotated
            && !sum.invariants.is_empty()
            && let Some(out) = self.without_invariants(kernel, &sum, &mut cache)
        {
            self.cache = Some(cache);
            return out;
        }
        let z3 = cache.z3.clone();
        let out = in_context(&z3.ctx, || {
            // Loop invariants do not depend on barriers: proved once per kernel, before
            // any other query of its context.
            let budget = self.limits.invariants;
            let verdicts = cache
                .invariants
                .get_or_insert_with(|| invariants::prove(&sum, budget))
                .clone();
            invariants::apply(&mut sum, &verdicts);
            let notes = invariants::notes(&sum, &verdicts);
            self.check_in(kernel, &sum, Some(&verdicts), &mut cache, &z3.solver, false)
                .map(|r| with_notes(r, notes))
        });
        self.cache = Some(cache);
        out
    }

    /// The first pass of a check whose loop invariants are not proved yet: the
    /// answer when it finds no possible defect (or an error), else `None`, with the
    /// cache left for the check with the invariants ([`Cache::after_first_pass`]).
    fn without_invariants(
        &self,
        kernel: &Kernel,
        sum: &Summary,
        cache: &mut Cache,
    ) -> Option<Result<Report, OracleError>> {
        let seen = cache.seen();
        let z3 = cache.z3.clone();
        let first = in_context(&z3.ctx, || {
            self.check_in(kernel, sum, None, cache, &z3.solver, true)
        });
        match first {
            Ok(r) if r.is_clean() && r.benign.is_empty() => {
                Some(Ok(with_notes(r, invariants::notes(sum, &[]))))
            }
            Err(e) => Some(Err(e)),
            Ok(_) => {
                cache.after_first_pass(seen);
                None
            }
        }
    }

    /// The phases of a check, in the kernel's Z3 context: preconditions, divergence,
    /// race queries per pair, report order.
    /// With `first_defect`, stops at the first barrier that may diverge or pair that
    /// may race (or is benign): the report then only says whether there is one.
    /// `verdicts`: those of the loop invariants applied to `sum` (`None` in a first
    /// pass), for the second lane's summary ([`lanes`]).
    fn check_in(
        &self,
        kernel: &Kernel,
        sum: &Summary,
        verdicts: Option<&Vec<Vec<invariants::Verdict>>>,
        cache: &mut Cache,
        solver: &z3::Solver,
        first_defect: bool,
    ) -> Result<Report, OracleError> {
        let mut report = Report::default();
        let mut checker = self.checker(sum, solver);
        preconditions(&checker, kernel, cache)?;
        divergences(&mut checker, &mut report);
        if first_defect && !report.divergences.is_empty() {
            return Ok(report);
        }
        let mut lane = cache.lane.take();
        let mut races = RacePhase::new(self, &checker, cache, kernel);
        races.first_defect = first_defect;
        let split = lanes::split(&races.progress, self.lane_min_types);
        match &split {
            None => races.run(&mut report),
            Some(split) => {
                let input = lanes::LaneInput {
                    kernel,
                    verifier: lanes::Settings::of(self),
                    verdicts: verdicts.cloned(),
                    uniform: checker.uniform.clone(),
                    first_defect,
                };
                let theirs = lane.take().unwrap_or_else(|| lanes::fresh(races.cache));
                races.lane = lanes::Lane::First(split);
                lane = Some(lanes::run_two(input, split, theirs, &mut report, |r| {
                    races.run(r)
                }));
            }
        }
        races.finish();
        cache.lane = lane;
        order_races(&mut report);
        Ok(report)
    }
}

impl StaticVerifier {
    /// The cache for `kernel`: the previous check's when it was about the same kernel
    /// but for its barriers (the synthesizer asks again after each barrier it places,
    /// and answers that ignore barriers still hold) and the barriers did not change
    /// what the answers are about (`facts`), else an empty one. The Z3 session stays
    /// with the kernel either way.
    fn cache_for(&mut self, kernel: &Kernel, facts: u64) -> Cache {
        let key = kernel.without_any_barriers();
        match self.cache.take() {
            Some(c) if c.key == key && c.facts == facts => c,
            Some(c) if c.key == key => Cache::new(key, facts, c.z3),
            _ => Cache::new(key, facts, std::rc::Rc::new(Z3Session::new())),
        }
    }

    /// The query maker of one check: its solver budget starts now.
    fn checker<'s>(&'s self, sum: &'s Summary, solver: &'s z3::Solver) -> Checker<'s> {
        Checker {
            sum,
            opts: &self.opts,
            uniform: Vec::new(),
            limits: self.limits,
            two_pass: self.warp_two_pass,
            meter: Meter::new(solver, self.limits.check),
            solver,
            limit_set: std::cell::Cell::new(0),
        }
    }
}

/// Preconditions that can never hold would make every answer below vacuous: an error
/// instead of a report (undecided counts as feasible).
fn preconditions(checker: &Checker, kernel: &Kernel, cache: &mut Cache) -> Result<(), OracleError> {
    if checker.sum.requires.is_empty() && checker.sum.assumes.iter().all(|a| !a.loops.is_empty()) {
        return Ok(());
    }
    let feasible = *cache
        .feasible
        .get_or_insert_with(|| checker.preconditions_hold() != Ok(false));
    if !feasible {
        return Err(OracleError::NoFeasibleRun(format!(
            "the preconditions of `{}` can never hold (with the launch and the parameters' types, \
             for two distinct threads when they relate two threads); \
             nothing would be verified",
            kernel.name
        )));
    }
    Ok(())
}
