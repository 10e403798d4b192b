//! The SMT queries: can two threads race on a pair of accesses (at one kind of iteration
//! relationship), can a barrier diverge?
//!
//! A race query instantiates the first access for thread copy 0 at iteration numbers
//! `K0` and the second for copy 1 at `K1`, and asks for both enabled, the same element,
//! distinct threads, and — for threads of one block — no barrier that must execute
//! between the two occurrences. Occurrences are ordered as in the SDV trace: by the
//! iteration numbers of the common loops (lexicographically), then by program text.
//!
//! "A barrier executes between" is under-approximated by a disjunction over a few
//! instances of every barrier that is never divergent (a divergent barrier synchronizes
//! nothing, as in the interpreter): the instance in the same iterations as the earlier
//! access (as far as their loops agree, first iterations of the barrier's other loops),
//! the same for the later access, and the instance in the next iteration of each loop
//! around the earlier access. Each counts when it lies strictly between the two
//! occurrences and is enabled; a never-divergent barrier enabled for one thread is
//! enabled for the whole block. Dropping instances only adds races, so this is sound;
//! these instances are where barriers of real kernels sit. When an unconditional
//! barrier of an occurrence's own loops lies between them whatever the values, the race
//! type needs no query at all ([`Separation::Always`]).

use std::cell::Cell;

use z3::ast::Bool;
use z3::{Model, Solver};

use super::encode::{BlockSizeLimit, Ctx, Encoder, Map, Nonlinear, Val};
use super::symbolic::{BarrierFact, Summary};
use super::term::LoopId;
use crate::{AccessKind, CheckOptions, ThreadId, Witness};

mod race;
mod screen;
mod trace_order;

use trace_order::{It, Iters};

// The solver plumbing moved to `solver`; these paths stay for its callers.
pub(super) use super::solver::trace_slow;
pub use super::solver::{Attempt, Limits, Meter};
use super::solver::{decide, dump_undecided, linear_abstraction, set_limit};

/// What a query found.
#[derive(Clone, Debug)]
pub enum Outcome {
    Unsat,
    /// No race, but only because the two writes store equal values wherever they
    /// would race (a benign write-write pair; [`CheckOptions::no_benign_tolerance`] off).
    Benign,
    Sat(Box<Witness>),
    /// The solver gave up; callers treat it as a possible defect (soundness).
    Unknown(String),
}

impl Outcome {
    pub fn possible(&self) -> bool {
        !matches!(self, Outcome::Unsat | Outcome::Benign)
    }
}

fn outcome(r: Result<Option<Witness>, String>) -> Outcome {
    match r {
        Ok(None) => Outcome::Unsat,
        Ok(Some(w)) => Outcome::Sat(Box::new(w)),
        Err(why) => Outcome::Unknown(why),
    }
}

/// Which pairs of threads a race query considers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Two threads of one block (barriers order them).
    SameBlock,
    /// Threads of different blocks (global arrays; only grid barriers order them).
    CrossBlock,
}

/// How the iterations of the common loops relate (the race types of AutoSync).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// The same iteration of every common loop.
    Intra,
    /// Same iterations of the loops around common loop `depth` (1-based), different
    /// iterations of it: the first access's iteration is smaller when `forward`.
    Inter { depth: usize, forward: bool },
}

pub struct Checker<'s> {
    pub sum: &'s Summary,
    pub opts: &'s CheckOptions,
    /// Per barrier of the summary: proved never divergent.
    pub uniform: Vec<bool>,
    /// Resource limits (race queries take theirs as an argument, one of these).
    pub limits: Limits,
    /// Warp lock step checked in two passes (seed 000, Sec. 3.2: threads of different
    /// warps, then threads of one warp) instead of one re-sync query.
    pub two_pass: bool,
    /// The solver work of this check so far, against its budget: once spent, later
    /// queries are not run and count as undecided (so as possible defects).
    pub meter: Meter,
    /// The kernel's incremental solver (in the kernel's own Z3 context).
    pub solver: &'s Solver,
    /// The resource limit last set on `solver` by this check (0: none yet). Setting
    /// solver parameters costs Z3 a lookup of its whole parameter table, more than most
    /// queries take, so it is done only when the limit changes.
    pub limit_set: Cell<u64>,
}

/// Whether barriers order the occurrences of a race type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Separation {
    /// No never-divergent barrier can lie between them.
    Never,
    /// Depends on the values: the query decides.
    Maybe,
    /// An unconditional barrier lies between them whenever they occur.
    Always,
}

/// Why a query was not run.
const BUDGET_SPENT: &str = "the check's solver budget is spent";

impl Checker<'_> {
    /// Decides the conjunction of `fs` in a scope of the kernel's incremental solver, within
    /// `limit` resource units; on `sat`, `model` turns the model into a witness.
    fn solve<R>(
        &self,
        fs: &[Bool],
        limit: u64,
        nonlinear: &Nonlinear,
        model: impl FnOnce(&Model) -> R,
    ) -> Result<Option<R>, String> {
        self.solve_with(fs, limit, false, nonlinear, model)
    }

    /// [`Checker::solve`], on a solver of its own when `fresh`: for queries asked once
    /// per kernel or after an attempt that ran out of units, which would otherwise change
    /// what the incremental solver answers next. A query with products of non-constant
    /// terms is first checked in its linear abstraction (`solver::linear_abstraction`),
    /// on a solver of its own within [`Limits::abstraction`] units more (at most a
    /// quarter of `limit`; not for probes, whose limit is below [`Limits::first`]):
    /// unsat there is unsat. Otherwise the query itself
    /// is decided as before: a model of the abstraction may not keep the products, and
    /// one that does is a poor witness (the linear solver picks huge blocks and sizes
    /// where the nonlinear one picks small ones, which a run can confirm).
    fn solve_with<R>(
        &self,
        fs: &[Bool],
        limit: u64,
        fresh: bool,
        nonlinear: &Nonlinear,
        model: impl FnOnce(&Model) -> R,
    ) -> Result<Option<R>, String> {
        let lazy = nonlinear.block_size.as_ref();
        // Not for probes: a query they decide in a few hundred units would pay a fresh
        // solver and a substitution over the whole query first (llm.c's
        // `fused_residual_forward.cu` took 453 s with it, 78 s without). On a solver of
        // its own, so the abstraction never changes `limit_set`.
        if !nonlinear.products.is_empty() && limit >= self.limits.first && limit.min(self.meter.left()) > 0 {
            let abstracted = linear_abstraction(fs, &nonlinear.products);
            if let Ok(None) = self.check(
                &abstracted,
                (limit / 4).min(self.limits.abstraction).max(1),
                true,
                lazy,
            ) {
                return Ok(None);
            }
        }
        let limit = limit.min(self.meter.left());
        if limit == 0 {
            return Err(BUDGET_SPENT.to_string());
        }
        let out = self.check(fs, limit, fresh, lazy);
        if out.is_err() {
            dump_undecided(fs);
        }
        match out {
            Ok(m) => Ok(m.map(|m| model(&m))),
            // Z3 says "canceled" for some resource-limit stops too.
            Err(_) if self.meter.last() >= limit => Err(format!("out of its budget of {limit} solver steps")),
            Err(why) => Err(match why.as_str() {
                "max. resource limit exceeded" => format!("out of its budget of {limit} solver steps"),
                "canceled" | "timeout" => "stopped by the wall-clock safety net".to_string(),
                _ => why,
            }),
        }
    }

    /// One check of `fs` within `limit` units (at most what the check's budget has left),
    /// on a solver of its own when `fresh`, else in a scope of the incremental solver.
    fn check(
        &self,
        fs: &[Bool],
        limit: u64,
        fresh: bool,
        lazy: Option<&BlockSizeLimit>,
    ) -> Result<Option<Model>, String> {
        let limit = limit.min(self.meter.left());
        if limit == 0 {
            return Err(BUDGET_SPENT.to_string());
        }
        if fresh {
            let s = Solver::new();
            set_limit(&s, limit);
            let out = decide(&s, fs, lazy);
            self.meter.update(&s);
            out
        } else {
            let s = self.solver;
            if self.limit_set.replace(limit) != limit {
                set_limit(s, limit);
            }
            s.push();
            let out = decide(s, fs, lazy);
            self.meter.update(s);
            s.pop(1);
            out
        }
    }

    /// The `assume`s a thread passed on its way to an occurrence at `loops` and `pos`,
    /// as implications in the occurrence's context.
    fn assumes(&self, enc: &mut Encoder, loops: &[LoopId], pos: u32, cx: usize) -> Vec<Bool> {
        let mut out = Vec::new();
        for a in &self.sum.assumes {
            if !a.two_thread && a.pos < pos && loops.starts_with(&a.loops) {
                let p = enc.cond(&a.pred, cx);
                let c = enc.cond(&a.cond, cx);
                out.push(p.implies(c));
            }
        }
        out
    }

    /// The two-thread `assume`s (outside loops) both thread copies passed on their way
    /// to their occurrences (`at`: position and context of each): when both threads
    /// reach one, it holds for the pair in both orders. Pairs the two contexts
    /// ([`Encoder::pair`]).
    fn pair_assumes(&self, enc: &mut Encoder, at: [(u32, usize); 2]) -> Vec<Bool> {
        let [(pos0, cx0), (pos1, cx1)] = at;
        enc.pair(cx0, cx1);
        let mut out = Vec::new();
        for a in self
            .sum
            .assumes
            .iter()
            .filter(|a| a.two_thread && a.pos < pos0 && a.pos < pos1)
        {
            let both = Bool::and(&[enc.cond(&a.pred, cx0), enc.cond(&a.pred, cx1)]);
            let c = Bool::and(&[enc.cond(&a.cond, cx0), enc.cond(&a.cond, cx1)]);
            out.push(both.implies(c));
        }
        out
    }

    fn requires(&self, enc: &mut Encoder, cxs: &[usize]) -> Vec<Bool> {
        let mut out = Vec::new();
        for r in &self.sum.requires {
            for &cx in cxs {
                out.push(enc.cond(r, cx));
            }
        }
        out
    }

    /// Can the preconditions hold at all: some launch (within the options and CUDA's
    /// limits) and parameter values (within their types) that satisfy every `requires`
    /// and every `assume` outside loops before the first write, atomic or barrier (where
    /// a precondition over the thread or the inputs stands, GPUVerify's `__requires` in
    /// CUDA; nothing can race or diverge before them) — for two distinct threads of the
    /// launch, in both orders, when such an `assume` is two-thread?
    /// `Ok(false)` means they never can, and every kernel property would hold vacuously.
    pub fn preconditions_hold(&self) -> Result<bool, String> {
        let mut enc = Encoder::new(self.sum);
        let sum = self.sum;
        let first = (sum.accesses.iter())
            .filter(|a| a.kind != AccessKind::Read)
            .map(|a| a.pos)
            .chain(sum.barriers.iter().map(|b| b.pos))
            .min()
            .unwrap_or(u32::MAX);
        let pairs = sum.assumes.iter().any(|a| a.two_thread && a.pos < first);
        let copies: &[(usize, usize)] = if pairs { &[(0, 0), (1, 1)] } else { &[(0, 0)] };
        let cxs: Vec<usize> = copies
            .iter()
            .map(|&(copy, block)| {
                enc.ctx(Ctx {
                    copy,
                    block,
                    iters: Map::new(),
                })
            })
            .collect();
        let mut fs = enc.launch_facts(copies);
        fs.extend(self.requires(&mut enc, &cxs));
        for &cx in &cxs {
            fs.extend(self.assumes(&mut enc, &[], first, cx));
        }
        if pairs {
            fs.push(Bool::or(&[
                enc.distinct_threads(true),
                enc.distinct_threads(false),
            ]));
            fs.extend(self.pair_assumes(&mut enc, [(first, cxs[0]), (first, cxs[1])]));
        }
        enc.finish();
        fs.append(&mut enc.facts);
        let nonlinear = Nonlinear {
            block_size: None,
            ..enc.nonlinear()
        };
        self.solve_with(&fs, self.limits.query, true, &nonlinear, |_| ())
            .map(|m| m.is_some())
    }

    /// Can two threads of a block disagree on reaching this barrier?
    pub fn divergence(&self, bar: &BarrierFact) -> Outcome {
        self.divergence_in(bar, Scope::SameBlock)
    }

    /// Can two threads of different blocks disagree on reaching this grid barrier
    /// (grid barriers must be reached by every thread of the grid)?
    pub fn divergence_across_blocks(&self, bar: &BarrierFact) -> Outcome {
        self.divergence_in(bar, Scope::CrossBlock)
    }

    /// The divergence query for two threads of `scope`.
    fn divergence_in(&self, bar: &BarrierFact, scope: Scope) -> Outcome {
        let block1 = match scope {
            Scope::SameBlock => 0,
            Scope::CrossBlock => 1,
        };
        let mut enc = Encoder::new(self.sum);
        let mut iters = Iters { next: 0 };
        let k: Vec<It> = bar.loops.iter().map(|_| iters.fresh(&mut enc, "k")).collect();
        let map: Map<LoopId, Val> = bar
            .loops
            .iter()
            .copied()
            .zip(k.iter().map(|x| x.v.clone()))
            .collect();
        let cx0 = enc.ctx(Ctx {
            copy: 0,
            block: 0,
            iters: map.clone(),
        });
        let cx1 = enc.ctx(Ctx {
            copy: 1,
            block: block1,
            iters: map,
        });
        let mut fs = enc.launch_facts(&[(0, 0), (1, block1)]);
        fs.push(enc.distinct_threads(scope == Scope::SameBlock));
        if bar.warp {
            // `__syncwarp()` must be reached by all threads of the warp.
            fs.push(enc.same_warp(self.opts.warp_barrier_size()));
        }
        fs.extend(self.requires(&mut enc, &[cx0, cx1]));
        fs.extend(self.assumes(&mut enc, &bar.loops, bar.pos, cx0));
        fs.extend(self.assumes(&mut enc, &bar.loops, bar.pos, cx1));
        fs.extend(self.pair_assumes(&mut enc, [(bar.pos, cx0), (bar.pos, cx1)]));
        fs.push(enc.cond(&bar.pred, cx0));
        fs.push(enc.cond(&bar.pred, cx1).not());
        enc.finish();
        fs.append(&mut enc.facts);
        let nonlinear = enc.nonlinear();
        let out = self.solve(&fs, self.limits.query, &nonlinear, |m| {
            self.witness(&enc, m, [(0, 0), (1, block1)], None, [&k, &k])
        });
        outcome(out)
    }

    fn witness(
        &self,
        enc: &Encoder,
        m: &Model,
        copies: [(usize, usize); 2],
        index: Option<i64>,
        iters: [&[It]; 2],
    ) -> Witness {
        let get = |v: &Val| v.as_i64(m).unwrap_or(0);
        let dim3 = |vs: &[Val; 3]| -> crate::Dim3 {
            std::array::from_fn(|d| u32::try_from(get(&vs[d])).unwrap_or(0))
        };
        let thread = |(c, b): (usize, usize)| ThreadId {
            tid: dim3(&enc.tid[c]),
            bid: dim3(&enc.bid[b]),
        };
        let mut params: Vec<(String, i64)> = self
            .sum
            .params
            .iter()
            .zip(&enc.params)
            .map(|(n, v)| (n.clone(), get(v)))
            .collect();
        params.extend(self.sum.fixed_params.iter().cloned());
        params.sort();
        let its = |ks: &[It]| ks.iter().map(|k| u64::try_from(get(&k.v)).unwrap_or(0)).collect();
        Witness {
            threads: [thread(copies[0]), thread(copies[1])],
            index,
            iterations: [its(iters[0]), its(iters[1])],
            block_dim: dim3(&enc.bdim),
            grid_dim: dim3(&enc.gdim),
            params,
        }
    }
}
