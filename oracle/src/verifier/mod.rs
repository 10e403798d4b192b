//! The static verifier: proves kernels free of data races and barrier divergence under
//! the SDV semantics of DESIGN §4, or reports every racing pair of statements and every
//! divergent barrier with a witness from the SMT model. Sound: "clean" means no race and
//! no divergence exists under the semantics, for every launch the options allow, every
//! parameter value the `requires` clauses allow and every memory content.
//!
//! The pipeline, one module each:
//! 1. [`symbolic`] runs one symbolic thread over the kernel (predicated execution, with
//!    `return`/`break`/`continue` as flags) and records, for every access, barrier and
//!    `assume`, index and predicate terms over the thread id, the launch, the parameters
//!    and the iteration numbers of the enclosing loops. Loops need no invariants:
//!    induction variables get closed forms, geometric steps are tabulated or bounded,
//!    other loop-carried values are per-iteration unknowns, and trip counts are unknowns
//!    shared by the threads of a block when the loop's guard is uniform.
//! 2. [`term`] holds those terms and their uniformity classes (the uniformity analysis:
//!    which values all threads of a block or grid agree on).
//! 3. [`encode`] instantiates terms for one thread copy at chosen iteration numbers in Z3.
//! 4. [`queries`] asks, per pair of accesses and per race type (same iteration of all
//!    common loops; different iterations of common loop `j`), whether two threads can
//!    touch the same element with no barrier executing in between, and per barrier
//!    whether two threads of a block can disagree on reaching it.
//!
//! Per kernel, the pairs that cannot conflict even without barriers are cached, since the
//! synthesizer checks one kernel many times with different barriers.
//!
//! # Deviations and shortcuts (each has a test in `tests/verifier_semantics.rs`)
//!
//! - **Memory is abstract.** Every read (and the value an atomic returns) is an arbitrary
//!   value, also when the thread wrote the element before. So Faial's Test 5 DRF kernel
//!   (`A[tid] = tid; x = A[tid]; A[x] = 0;`) is reported racy, as Faial does.
//! - **Divergent barriers synchronize nothing.** A barrier orders two accesses only when
//!   it is proved never divergent; then being enabled for one thread means being enabled
//!   for the block. This is the interpreter's rule (a barrier not reached by all threads
//!   of the block is reported and does not clear the access logs). Divergence is checked
//!   first and reported on its own.
//! - **Which barrier instances count** is under-approximated: for a pair of occurrences,
//!   each never-divergent barrier is tried in the iterations of the earlier occurrence, in
//!   those of the later one, and (across iterations of loop `j`) in the iteration after
//!   the earlier one, always in the *first* iteration of the barrier's own other loops.
//!   A barrier that executes between the two only at some other iteration (for instance
//!   `if (j == 3) barrier;` inside an inner loop) is not credited: a possible false
//!   alarm, never a missed race.
//! - **Loop-carried values** without a closed form are arbitrary at every iteration but
//!   the first, constrained only by the loop guard (and, for geometric sequences with a
//!   symbolic start, by monotonicity and one-step relations between the iterations a
//!   query mentions). Values after a loop left by `break` are arbitrary. Possible false
//!   alarms, never missed races.
//! - **Non-terminating loops** are handled soundly: nothing assumes that a loop exits.
//! - **`assume`** constrains an occurrence only through the `assume`s before it in the
//!   same iterations of its loops; an `assume` that fails later in the run is ignored,
//!   so races before it are still reported.
//! - **Parameters and launch sizes** are 32-bit unsigned values (`0 ≤ p < 2^32`, sizes
//!   `≥ 1`) in both arithmetics. Under `Wrap32`, iteration numbers are 64-bit and below
//!   `2^62` (loops with more iterations are not modelled).
//! - **Undefined operations** (division by zero, shifts by a negative amount or by 63 or
//!   more under `Unbounded`) give arbitrary values, as `kpl::arith` tells callers to.
//! - **Atomics**: atomic/atomic pairs never race; the values atomics return are arbitrary
//!   (repetition-free counters are not exploited, so `x = atomic_add(C[0], 1); A[x] = 0;`
//!   is reported racy). Warp lock step is not modelled.
//! - **Solver gave up** (timeout or `unknown`): the pair (or barrier) is reported as a
//!   defect without a witness, with a note.

pub mod encode;
pub mod queries;
pub mod symbolic;
pub mod term;

use std::collections::HashSet;

use kpl::{Kernel, Space, StmtId};

use crate::{Access, AccessKind, CheckOptions, Divergence, Oracle, OracleError, Race, Report};
use queries::{Checker, Order, Outcome, Scope};
use symbolic::{AccessFact, Summary};
use term::Class;

/// The static verifier (the `static` oracle).
pub struct StaticVerifier {
    pub opts: CheckOptions,
    /// Per-query solver timeout; a timeout counts as a possible defect.
    pub timeout_ms: u32,
    cache: Option<Cache>,
}

/// What stays true while only barriers change.
struct Cache {
    /// The kernel without its barriers.
    key: Kernel,
    /// Pairs that cannot touch the same element even without barriers.
    conflict_free: HashSet<(StmtId, StmtId)>,
}

impl StaticVerifier {
    pub fn new(opts: CheckOptions) -> StaticVerifier {
        StaticVerifier {
            opts,
            timeout_ms: 10_000,
            cache: None,
        }
    }

    fn cache_for(&mut self, kernel: &Kernel) -> &mut Cache {
        let key = kernel.without_barriers();
        if self.cache.as_ref().is_none_or(|c| c.key != key) {
            self.cache = Some(Cache {
                key,
                conflict_free: HashSet::new(),
            });
        }
        self.cache.get_or_insert_with(|| unreachable!("set above"))
    }

    /// Whether the launch can have two blocks.
    fn many_blocks(&self) -> bool {
        self.opts
            .grid_dim
            .is_none_or(|g| g.iter().map(|d| *d as u64).product::<u64>() >= 2)
    }
}

/// Two accesses can race: same array, at least one writes, not both atomic.
fn conflicting(a: &AccessFact, b: &AccessFact) -> bool {
    use AccessKind::*;
    a.array == b.array
        && !matches!((a.kind, b.kind), (Read, Read) | (Atomic, Atomic))
        && !(a.stmt == b.stmt && a.kind == Read)
}

fn access(a: &AccessFact) -> Access {
    Access {
        stmt: a.stmt,
        kind: a.kind,
        span: a.span,
    }
}

impl Oracle for StaticVerifier {
    fn name(&self) -> &'static str {
        "static"
    }

    fn check(&mut self, kernel: &Kernel) -> Result<Report, OracleError> {
        let sum = symbolic::summarize(kernel, &self.opts);
        let mut report = Report::default();
        let many_blocks = self.many_blocks();
        let timeout_ms = self.timeout_ms;
        let opts = self.opts.clone();
        let mut checker = Checker {
            sum: &sum,
            opts: &opts,
            uniform: Vec::new(),
            timeout_ms,
        };

        // Divergence first: only never-divergent barriers order accesses.
        for bar in &sum.barriers {
            if sum.class(&bar.pred) <= Class::Block {
                checker.uniform.push(true);
                continue;
            }
            let out = checker.divergence(bar);
            checker.uniform.push(!out.possible());
            match out {
                Outcome::Unsat => {}
                Outcome::Sat(w) => report.divergences.push(Divergence {
                    stmt: bar.stmt,
                    span: bar.span,
                    witness: Some(*w),
                }),
                Outcome::Unknown(why) => {
                    report.notes.push(format!(
                        "line {}: the solver could not decide whether this barrier diverges ({why}); reported as divergent",
                        bar.span.line
                    ));
                    report.divergences.push(Divergence {
                        stmt: bar.stmt,
                        span: bar.span,
                        witness: None,
                    });
                }
            }
        }

        let cache = self.cache_for(kernel);
        let accesses = &sum.accesses;
        for i in 0..accesses.len() {
            for j in i..accesses.len() {
                let (a, b) = if accesses[i].pos <= accesses[j].pos {
                    (&accesses[i], &accesses[j])
                } else {
                    (&accesses[j], &accesses[i])
                };
                if !conflicting(a, b) || cache.conflict_free.contains(&(a.stmt, b.stmt)) {
                    continue;
                }
                if !checker.race(a, b, Scope::AnyPair, Order::Any).possible() {
                    cache.conflict_free.insert((a.stmt, b.stmt));
                    continue;
                }
                if let Some(race) = pair_race(&checker, a, b, many_blocks, &mut report.notes) {
                    report.races.push(race);
                }
            }
        }
        report.races.sort_by_key(|r| {
            (
                r.first.span.start,
                r.second.span.start,
                r.first.stmt,
                r.second.stmt,
            )
        });
        Ok(report)
    }
}

/// The race of one pair, with its types, or `None` when every typed query is refuted.
fn pair_race(
    ck: &Checker,
    a: &AccessFact,
    b: &AccessFact,
    many_blocks: bool,
    notes: &mut Vec<String>,
) -> Option<Race> {
    let common = Summary::common_loops(&a.loops, &b.loops);
    let mut witness = None;
    let mut note = |out: &Outcome, what: &str, witness: &mut Option<crate::Witness>| match out {
        Outcome::Sat(w) => {
            if witness.is_none() {
                *witness = Some((**w).clone());
            }
        }
        Outcome::Unknown(why) => notes.push(format!(
            "lines {} and {}: the solver could not decide a {what} race on `{}` ({why}); reported as racing",
            a.span.line, b.span.line, a.array
        )),
        Outcome::Unsat => {}
    };
    let typed = |scope: Scope,
                 witness: &mut Option<crate::Witness>,
                 note: &mut dyn FnMut(&Outcome, &str, &mut Option<crate::Witness>)| {
        let intra_out = ck.race(a, b, scope, Order::Intra);
        note(&intra_out, "same-iteration", witness);
        let mut inter = Vec::new();
        for depth in 1..=common {
            let fwd = ck.race(a, b, scope, Order::Inter { depth, forward: true });
            note(&fwd, "cross-iteration", witness);
            let found = fwd.possible()
                || (a.stmt != b.stmt && {
                    let bwd = ck.race(
                        a,
                        b,
                        scope,
                        Order::Inter {
                            depth,
                            forward: false,
                        },
                    );
                    note(&bwd, "cross-iteration", witness);
                    bwd.possible()
                });
            if found {
                inter.push(depth);
            }
        }
        (intra_out.possible(), inter)
    };
    let (mut intra, mut inter) = typed(Scope::SameBlock, &mut witness, &mut note);
    let mut fixable = true;
    if a.space == Space::Global && many_blocks {
        let cross = ck.race(a, b, Scope::CrossBlock, Order::Any);
        if cross.possible() {
            fixable = false;
            let mut w2 = None;
            note(&cross, "cross-block", &mut w2);
            let (ci, cinter) = typed(Scope::CrossBlock, &mut w2, &mut note);
            intra |= ci;
            for d in cinter {
                if !inter.contains(&d) {
                    inter.push(d);
                }
            }
            inter.sort_unstable();
            // The witness of an unfixable race shows the threads of different blocks.
            witness = w2.or(witness);
        }
    }
    if !intra && inter.is_empty() {
        return None;
    }
    Some(Race {
        array: a.array.clone(),
        space: a.space,
        first: access(a),
        second: access(b),
        intra,
        inter,
        fixable,
        witness,
    })
}
