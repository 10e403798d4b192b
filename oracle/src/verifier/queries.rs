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

use kpl::BinOp;
use z3::ast::Bool;
use z3::{Model, Solver};

use super::encode::{BlockSizeLimit, Ctx, Encoder, Map, Val};
use super::radix::Premise;
use super::symbolic::{AccessFact, BarrierFact, Summary};
use super::term::{LoopId, T, Term, any_node};
use crate::{AccessKind, CheckOptions, ThreadId, Witness};

// The solver plumbing moved to `solver`; these paths stay for its callers.
pub(super) use super::solver::trace_slow;
pub use super::solver::{Attempt, Limits, Meter};
use super::solver::{decide, dump_undecided, set_limit};

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

/// The parameter values of [`Checker::small_instances`], in the order of the kernel's
/// parameters (repeated when it has more): distinct small extents in both orders, and
/// equal ones.
const SMALL_INSTANCES: [&[i64]; 3] = [&[2, 3, 4, 5], &[5, 4, 3, 2], &[2]];

/// An iteration number with what is statically known about it.
#[derive(Clone, Debug)]
struct It {
    v: Val,
    sym: Sym,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    Var(usize, i64),
    Const(i64),
}

/// A formula folded statically where possible.
#[derive(Clone, Debug)]
enum Sb {
    Known(bool),
    Dyn(Bool),
}

impl Sb {
    fn and(self, o: Sb) -> Sb {
        match (self, o) {
            (Sb::Known(false), _) | (_, Sb::Known(false)) => Sb::Known(false),
            (Sb::Known(true), x) | (x, Sb::Known(true)) => x,
            (Sb::Dyn(a), Sb::Dyn(b)) => Sb::Dyn(Bool::and(&[a, b])),
        }
    }

    fn or(self, o: Sb) -> Sb {
        match (self, o) {
            (Sb::Known(true), _) | (_, Sb::Known(true)) => Sb::Known(true),
            (Sb::Known(false), x) | (x, Sb::Known(false)) => x,
            (Sb::Dyn(a), Sb::Dyn(b)) => Sb::Dyn(Bool::or(&[a, b])),
        }
    }

    fn bool(self) -> Bool {
        match self {
            Sb::Known(b) => Bool::from_bool(b),
            Sb::Dyn(b) => b,
        }
    }
}

/// An occurrence of a statement: its loops, their iteration numbers, its text position.
struct Point<'a> {
    loops: &'a [LoopId],
    k: &'a [It],
    pos: u32,
}

/// The two occurrences of a race type as points, the one executed first first.
fn in_trace_order<'p>(
    a: &'p AccessFact,
    ka: &'p [It],
    b: &'p AccessFact,
    kb: &'p [It],
    order: Order,
) -> (Point<'p>, Point<'p>) {
    let pa = Point {
        loops: &a.loops,
        k: ka,
        pos: a.pos,
    };
    let pb = Point {
        loops: &b.loops,
        k: kb,
        pos: b.pos,
    };
    match order {
        Order::Inter { forward: false, .. } => (pb, pa),
        _ => (pa, pb),
    }
}

struct Iters {
    next: usize,
}

impl Iters {
    fn fresh(&mut self, enc: &mut Encoder, name: &str) -> It {
        self.next += 1;
        It {
            v: enc.iter_var(name),
            sym: Sym::Var(self.next, 0),
        }
    }
}

fn zero(enc: &Encoder) -> It {
    It {
        v: enc.inum(0),
        sym: Sym::Const(0),
    }
}

fn succ(enc: &Encoder, x: &It) -> It {
    It {
        v: enc.iter_add(&x.v, 1),
        sym: match x.sym {
            Sym::Var(i, o) => Sym::Var(i, o + 1),
            Sym::Const(n) => Sym::Const(n + 1),
        },
    }
}

/// Iteration variables known to be ordered (`a < b`): the differing iteration of an
/// inter-iteration query.
#[derive(Default)]
struct Rel {
    less: Vec<(usize, usize)>,
}

impl Rel {
    /// `i + o < j + p` follows from `i < j` when `o <= p`.
    fn lt(&self, i: usize, o: i64, j: usize, p: i64) -> bool {
        o <= p && self.less.contains(&(i, j))
    }

    fn eq(&self, x: &It, y: &It) -> Sb {
        match (x.sym, y.sym) {
            (Sym::Var(i, o), Sym::Var(j, p)) if i == j => Sb::Known(o == p),
            (Sym::Var(i, o), Sym::Var(j, p)) if self.lt(i, o, j, p) || self.lt(j, p, i, o) => {
                Sb::Known(false)
            }
            (Sym::Const(m), Sym::Const(n)) => Sb::Known(m == n),
            _ => Sb::Dyn(x.v.eq(&y.v)),
        }
    }

    fn lt_it(&self, enc: &Encoder, x: &It, y: &It) -> Sb {
        match (x.sym, y.sym) {
            (Sym::Var(i, o), Sym::Var(j, p)) if i == j => Sb::Known(o < p),
            (Sym::Var(i, o), Sym::Var(j, p)) if self.lt(i, o, j, p) => Sb::Known(true),
            (Sym::Var(i, o), Sym::Var(j, p)) if self.lt(j, p, i, o + 1) => Sb::Known(false),
            (Sym::Const(m), Sym::Const(n)) => Sb::Known(m < n),
            (_, Sym::Const(n)) if n <= 0 => Sb::Known(false),
            _ => Sb::Dyn(enc.iter_lt(&x.v, &y.v)),
        }
    }

    /// `p` comes before `q` in the trace.
    fn before(&self, enc: &Encoder, p: &Point, q: &Point) -> Sb {
        let c = Summary::common_loops(p.loops, q.loops);
        let mut result = Sb::Known(false);
        let mut same = Sb::Known(true);
        for m in 0..c {
            result = result.or(same.clone().and(self.lt_it(enc, &p.k[m], &q.k[m])));
            same = same.and(self.eq(&p.k[m], &q.k[m]));
        }
        result.or(same.and(Sb::Known(p.pos < q.pos)))
    }
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

/// A context of thread copy `copy` in block `block` at iteration numbers `k` of `loops`.
fn at(enc: &mut Encoder, copy: usize, block: usize, loops: &[LoopId], k: &[It]) -> usize {
    enc.ctx(Ctx {
        copy,
        block,
        iters: loops.iter().copied().zip(k.iter().map(|x| x.v.clone())).collect(),
    })
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
        lazy: Option<&BlockSizeLimit>,
        model: impl FnOnce(&Model) -> R,
    ) -> Result<Option<R>, String> {
        self.solve_with(fs, limit, false, lazy, model)
    }

    /// [`Checker::solve`], on a solver of its own when `fresh`: for queries asked once
    /// per kernel or after an attempt that ran out of units, which would otherwise change
    /// what the incremental solver answers next.
    fn solve_with<R>(
        &self,
        fs: &[Bool],
        limit: u64,
        fresh: bool,
        lazy: Option<&BlockSizeLimit>,
        model: impl FnOnce(&Model) -> R,
    ) -> Result<Option<R>, String> {
        let limit = limit.min(self.meter.left());
        if limit == 0 {
            return Err(BUDGET_SPENT.to_string());
        }
        let out = if fresh {
            let s = Solver::new();
            set_limit(&s, limit);
            let out = decide(&s, fs, lazy, model);
            self.meter.update(&s);
            out
        } else {
            let s = self.solver;
            if self.limit_set.replace(limit) != limit {
                set_limit(s, limit);
            }
            s.push();
            let out = decide(s, fs, lazy, model);
            self.meter.update(s);
            s.pop(1);
            out
        };
        if out.is_err() {
            dump_undecided(fs);
        }
        out.map_err(|why| match why.as_str() {
            // Z3 says "canceled" for some resource-limit stops too.
            _ if self.meter.last() >= limit => format!("out of its {limit} resource units"),
            "max. resource limit exceeded" => format!("out of its {limit} resource units"),
            "canceled" | "timeout" => "stopped by the wall-clock safety net".to_string(),
            _ => why,
        })
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

    /// Can the two accesses race under `scope` and `order`? With `sync`, occurrences
    /// that a barrier separates do not count (same-block queries only).
    pub fn race(
        &self,
        a: &AccessFact,
        b: &AccessFact,
        scope: Scope,
        order: Order,
        sync: bool,
        limit: Attempt,
    ) -> Outcome {
        self.race_in(a, b, scope, order, sync, None, limit)
    }

    /// [`Checker::race`] of two threads of one block in different warps of `warp`
    /// threads, barriers counted (`CheckOptions::classify_warps`): unsat means every
    /// occurrence of this race type is between threads of one warp.
    pub fn race_across_warps(
        &self,
        a: &AccessFact,
        b: &AccessFact,
        order: Order,
        warp: u32,
        limit: Attempt,
    ) -> Outcome {
        self.race_in(a, b, Scope::SameBlock, order, true, Some(warp), limit)
    }

    /// The race query; for two plain writes that can race, asked again with the values
    /// they store required to differ (benign tolerance): unsat then means every race of
    /// this type stores equal values ([`Outcome::Benign`]). Only would-be races pay for
    /// the second query, and the first stays as small as without tolerance. A second
    /// query the solver cannot decide keeps the first one's witness (sound).
    #[allow(clippy::too_many_arguments)]
    fn race_in(
        &self,
        a: &AccessFact,
        b: &AccessFact,
        scope: Scope,
        order: Order,
        sync: bool,
        apart: Option<u32>,
        limit: Attempt,
    ) -> Outcome {
        let out = self.race_query(a, b, scope, order, sync, apart, limit, false);
        let tolerated = !self.opts.no_benign_tolerance
            && a.kind == AccessKind::Write
            && b.kind == AccessKind::Write
            && a.value.is_some()
            && b.value.is_some();
        if !tolerated || !matches!(out, Outcome::Sat(_)) {
            return out;
        }
        match self.race_query(a, b, scope, order, sync, apart, limit, true) {
            Outcome::Unsat | Outcome::Benign => Outcome::Benign,
            Outcome::Sat(w) => Outcome::Sat(w),
            Outcome::Unknown(_) => out,
        }
    }

    /// One race query; with `differ`, the two writes' values must differ too
    /// ([`Checker::values_differ`]).
    #[allow(clippy::too_many_arguments)]
    fn race_query(
        &self,
        a: &AccessFact,
        b: &AccessFact,
        scope: Scope,
        order: Order,
        sync: bool,
        apart: Option<u32>,
        limit: Attempt,
        differ: bool,
    ) -> Outcome {
        let mut enc = Encoder::new(self.sum);
        let (ka, kb, rel) = self.occurrences(&mut enc, a, b, order);
        let mut fs: Vec<Bool> = Vec::new();
        if let Order::Inter { depth, forward } = order {
            let (x, y) = (&ka[depth - 1], &kb[depth - 1]);
            fs.push(if forward {
                enc.iter_lt(&x.v, &y.v)
            } else {
                enc.iter_lt(&y.v, &x.v)
            });
        }
        let block1 = match scope {
            Scope::SameBlock => 0,
            Scope::CrossBlock => 1,
        };
        let cx0 = at(&mut enc, 0, 0, &a.loops, &ka);
        let cx1 = at(&mut enc, 1, block1, &b.loops, &kb);
        fs.extend(enc.launch_facts(&[(0, 0), (1, block1)]));
        fs.push(enc.distinct_threads(scope == Scope::SameBlock));
        if let Some(w) = apart {
            fs.push(enc.same_warp(w).not());
        }
        // Warp lock step: one query for both cases (re-sync), or one per case
        // (two-pass: threads of different warps, then threads of one warp).
        let mut passes: Vec<Bool> = Vec::new();
        if scope == Scope::SameBlock
            && let Some(w) = self.opts.launch.warp_size
        {
            let (apart, same_warp_race) = self.warp_race(&mut enc, a, &ka, b, &kb, order, w);
            if self.two_pass {
                passes = vec![apart.clone(), Bool::and(&[apart.not(), same_warp_race])];
            } else {
                fs.push(Bool::or(&[apart, same_warp_race]));
            }
        }
        fs.extend(self.requires(&mut enc, &[cx0, cx1]));
        fs.push(enc.cond(&a.pred, cx0));
        fs.push(enc.cond(&b.pred, cx1));
        let ia = enc.val(&a.index, cx0);
        let ib = enc.val(&b.index, cx1);
        fs.push(ia.eq(&ib));
        fs.extend(enc.same_index_bits(&a.index, cx0, &b.index, cx1));
        fs.extend(self.same_digits(&mut enc, a, cx0, b, cx1));
        fs.extend(self.digit_lemmas(&mut enc, a, cx0, b, cx1));
        fs.extend(self.assumes(&mut enc, &a.loops, a.pos, cx0));
        fs.extend(self.assumes(&mut enc, &b.loops, b.pos, cx1));
        fs.extend(self.pair_assumes(&mut enc, [(a.pos, cx0), (b.pos, cx1)]));
        if differ && let Some(d) = self.values_differ(&mut enc, a, cx0, b, cx1) {
            fs.push(d);
        }
        if sync {
            let (x, y) = in_trace_order(a, &ka, b, &kb, order);
            match self.barrier_between(&mut enc, &rel, &x, &y, scope) {
                Sb::Known(true) => return Outcome::Unsat,
                sync => fs.push(sync.bool().not()),
            }
        }
        enc.finish();
        fs.append(&mut enc.facts);
        let started = std::time::Instant::now();
        let block_size = enc.block_size_limit();
        let solve_in = |fs: &[Bool], units: u64| {
            self.solve_with(fs, units, limit.fresh, block_size.as_ref(), |m| {
                let index = ia.as_i64(m);
                self.witness(&enc, m, [(0, 0), (1, block1)], index, [&ka, &kb])
            })
        };
        let solve = |fs: &[Bool]| solve_in(fs, limit.units);
        if passes.is_empty()
            && let Some(w) = self.small_instances(&enc, a, b, limit, &fs, &solve_in)
        {
            return Outcome::Sat(Box::new(w));
        }
        let out = if passes.is_empty() {
            solve(&fs)
        } else {
            let mut out = Ok(None);
            for pass in passes {
                fs.push(pass);
                out = solve(&fs);
                fs.pop();
                if !matches!(out, Ok(None)) {
                    break;
                }
            }
            out
        };
        trace_slow(started, || {
            format!(
                "race query lines {} and {} ({:?}, {:?}, sync {sync}): {:?}, {} units",
                a.span.line,
                b.span.line,
                scope,
                order,
                out.as_ref().map(|w| w.is_some()),
                self.meter.last()
            )
        });
        outcome(out)
    }

    /// A race in a small instance, before the first attempt at a query whose index
    /// multiplies or divides by parameters: the parameters pinned to a few small
    /// values each, which makes the arithmetic linear. Such queries that race are
    /// otherwise beyond the solver (a model of nonlinear integer arithmetic), and a
    /// witness of an instance is a witness of the query. `None` when no instance
    /// races within its units (the query is then asked as it is).
    fn small_instances<W>(
        &self,
        enc: &Encoder,
        a: &AccessFact,
        b: &AccessFact,
        limit: Attempt,
        fs: &[Bool],
        solve: &impl Fn(&[Bool], u64) -> Result<Option<W>, String>,
    ) -> Option<W> {
        if limit.fresh || limit.units != self.limits.first || self.sum.arith != kpl::Arith::Unbounded {
            return None;
        }
        let by_param = |t: &Term| match t {
            Term::Bin(BinOp::Mul, x, y) => x.as_const().is_none() && y.as_const().is_none(),
            Term::Bin(BinOp::Div | BinOp::Rem, _, y) => y.as_const().is_none(),
            _ => false,
        };
        let uses_param = |t: &T| any_node(t, &mut |n| matches!(n, Term::Param(..)));
        let nonlinear = [&a.index, &b.index, &a.pred, &b.pred]
            .iter()
            .any(|t| uses_param(t) && any_node(t, &mut |n| by_param(n)));
        if !nonlinear {
            return None;
        }
        let params: Vec<z3::ast::Int> = enc
            .params
            .iter()
            .filter_map(|v| match v {
                Val::I(x) => Some(x.clone()),
                Val::B(_) => None,
            })
            .collect();
        let mut fs = fs.to_vec();
        for values in SMALL_INSTANCES {
            let pins: Vec<Bool> = params
                .iter()
                .zip(values.iter().cycle())
                .map(|(p, v)| p.eq(*v))
                .collect();
            let n = fs.len();
            fs.extend(pins);
            let out = solve(&fs, limit.units / SMALL_INSTANCES.len() as u64 / 4);
            fs.truncate(n);
            if let Ok(Some(w)) = out {
                return Some(w);
            }
        }
        None
    }

    /// Equal indices of one mixed-radix form have equal digits
    /// ([`super::affine::mixed_radix_digits`]): implied facts, for the two accesses of a
    /// pair with the same index term.
    fn same_digits(
        &self,
        enc: &mut Encoder,
        a: &AccessFact,
        cx0: usize,
        b: &AccessFact,
        cx1: usize,
    ) -> Vec<Bool> {
        if a.index != b.index {
            return Vec::new();
        }
        let loops: Vec<LoopId> = a.loops.iter().copied().filter(|l| b.loops.contains(l)).collect();
        let Some(digits) = super::affine::mixed_radix_digits(self.sum, &a.index, &loops) else {
            return Vec::new();
        };
        digits
            .iter()
            .filter_map(|d| match (enc.val(d, cx0), enc.val(d, cx1)) {
                (Val::I(x), Val::I(y)) => Some(x.eq(&y)),
                _ => None,
            })
            .collect()
    }

    /// The digit lemmas of [`super::radix`] for a pair of accesses, as implications
    /// between the two thread copies (premises included, so a lemma whose premise fails
    /// constrains nothing): of the one index term, or of the two (the pair lemma and the
    /// lemmas of the digits both indices share).
    fn digit_lemmas(
        &self,
        enc: &mut Encoder,
        a: &AccessFact,
        cx0: usize,
        b: &AccessFact,
        cx1: usize,
    ) -> Vec<Bool> {
        let bld = self.sum.builder();
        let pred = |acc: &AccessFact| {
            let guards =
                (acc.loops.iter()).filter_map(|l| self.sum.loops.get(*l)?.as_ref().map(|i| i.guard.clone()));
            guards.fold(acc.pred.clone(), |p, g| bld.and(p, g))
        };
        let (pa, pb) = (pred(a), pred(b));
        let cxs = [cx0, cx1];
        let mut out = Vec::new();
        let below = if a.index == b.index && a.loops == b.loops {
            super::radix::lemmas(self.sum, &a.index, &pa)
        } else {
            let (pair, below) = super::radix::pair_lemmas(self.sum, [&a.index, &b.index], [&pa, &pb]);
            if let Some(l) = pair {
                let mut pre = Vec::new();
                let mut post = Vec::new();
                let mut ok = true;
                for (side, own) in l.own.iter().enumerate() {
                    for p in own {
                        ok &= premise_in(enc, p, cxs[side], &mut pre);
                    }
                }
                for t in &l.same {
                    ok &= equal_in(enc, (t, t), cxs, &mut pre);
                }
                for (x, y) in &l.from {
                    ok &= equal_in(enc, (x, y), cxs, &mut pre);
                }
                for (x, y) in &l.to {
                    ok &= equal_in(enc, (x, y), cxs, &mut post);
                }
                if ok {
                    out.push(Bool::and(&pre).implies(Bool::and(&post)));
                }
            }
            below
        };
        for lemma in below {
            let mut pre = Vec::new();
            let mut post = Vec::new();
            let mut ok = true;
            for p in &lemma.premises {
                ok &= match p {
                    Premise::Same(t) => equal_in(enc, (t, t), cxs, &mut pre),
                    _ => cxs.iter().all(|cx| premise_in(enc, p, *cx, &mut pre)),
                };
            }
            for t in &lemma.from {
                ok &= equal_in(enc, (t, t), cxs, &mut pre);
            }
            for t in &lemma.to {
                ok &= equal_in(enc, (t, t), cxs, &mut post);
            }
            if ok {
                out.push(Bool::and(&pre).implies(Bool::and(&post)));
            }
        }
        out
    }

    /// "The values the two writes store differ", each value term instantiated for its
    /// own thread copy, so whatever the encoding knows to be equal (uniform values, one
    /// read's value in both threads) makes the pair benign. `None` unless both write.
    fn values_differ(
        &self,
        enc: &mut Encoder,
        a: &AccessFact,
        cx0: usize,
        b: &AccessFact,
        cx1: usize,
    ) -> Option<Bool> {
        let (va, vb) = (a.value.as_ref()?, b.value.as_ref()?);
        let (va, vb) = (enc.val(va, cx0), enc.val(vb, cx1));
        Some(va.eq(&vb).not())
    }

    /// Under `--warp-size`, when two threads of one warp can still race (seed 000, the
    /// re-sync method): threads of a warp run in lock step and re-synchronize after
    /// every instruction both execute, so their accesses are ordered unless they are
    /// one write instruction (same statement, same iterations: two threads writing one
    /// element at once), or the later thread is disabled at the earlier occurrence (a
    /// divergent path: no re-sync point is known between the two). Other re-sync
    /// points between them are not credited (possible false alarms only).
    ///
    /// Returns "the threads are in different warps" and the condition under which
    /// threads of one warp race.
    #[allow(clippy::too_many_arguments)]
    fn warp_race(
        &self,
        enc: &mut Encoder,
        a: &AccessFact,
        ka: &[It],
        b: &AccessFact,
        kb: &[It],
        order: Order,
        w: u32,
    ) -> (Bool, Bool) {
        let apart = enc.same_warp(w).not();
        if a.stmt == b.stmt && order == Order::Intra {
            let one_write = Bool::from_bool(a.kind == AccessKind::Write);
            return (apart, one_write);
        }
        // The earlier occurrence, and the copy of the thread of the later one.
        let (x, kx, later) = match order {
            Order::Inter { forward: false, .. } => (b, kb, 0),
            _ => (a, ka, 1),
        };
        let cx = at(enc, later, 0, &x.loops, kx);
        let resync = enc.cond(&x.pred, cx);
        (apart, resync.not())
    }

    /// Screening (Faial's grouping of accesses, seed 003): one query over all the
    /// accesses of one array asks whether *some* conflicting pair of them can touch one
    /// element from two distinct threads (of one block, or of two blocks) at any
    /// iterations, barriers ignored. Each model names one such pair, which the next
    /// query excludes; once the query is unsatisfiable, no pair left unnamed can race,
    /// whatever the barriers, and it needs no query of its own. This keeps a check
    /// linear in the number of race-free accesses instead of quadratic.
    ///
    /// Returns the named pairs (indices into `accs`, first ≤ second), or `None` when
    /// the solver gives up, more than `limit` pairs come out or the queries take more
    /// than `budget` resource units together (then every pair needs its own queries). Warp lock
    /// step is ignored here (more pairs: sound). With `indices_only`, the accesses'
    /// predicates and `assume`s are left out (an over-approximation: fewer facts,
    /// never fewer pairs) — much smaller in deep loop nests, and enough when the
    /// indices alone keep the threads apart.
    pub fn may_race(
        &self,
        accs: &[&AccessFact],
        scope: Scope,
        limit: usize,
        budget: u64,
        indices_only: bool,
    ) -> Option<Vec<(usize, usize)>> {
        let start = std::time::Instant::now();
        let spent_before = self.meter.spent();
        let mut enc = Encoder::new(self.sum);
        let mut iters = Iters { next: 0 };
        let block1 = match scope {
            Scope::SameBlock => 0,
            Scope::CrossBlock => 1,
        };
        let mut fs: Vec<Bool> = enc.launch_facts(&[(0, 0), (1, block1)]);
        fs.push(enc.distinct_threads(scope == Scope::SameBlock));
        let base: Vec<usize> = [(0, 0), (1, block1)]
            .into_iter()
            .map(|(copy, block)| {
                enc.ctx(Ctx {
                    copy,
                    block,
                    iters: Map::new(),
                })
            })
            .collect();
        fs.extend(self.requires(&mut enc, &base));
        // One selector per access and copy; a model may select several per copy (then
        // all their constraints hold at once), and names a conflicting pair of them.
        let sel: [Vec<Bool>; 2] = [0, 1].map(|c| {
            (0..accs.len())
                .map(|i| Bool::new_const(format!("screen.sel{c}.{i}")))
                .collect()
        });
        let index = [enc.fresh_val("screen.index0"), enc.fresh_val("screen.index1")];
        fs.push(index[0].eq(&index[1]));
        for (copy, block) in [(0, 0), (1, block1)] {
            fs.push(Bool::or(&sel[copy]));
            for (i, a) in accs.iter().enumerate() {
                let k: Vec<It> = a.loops.iter().map(|_| iters.fresh(&mut enc, "ks")).collect();
                let cx = at(&mut enc, copy, block, &a.loops, &k);
                let ix = enc.val(&a.index, cx);
                let mut here = vec![ix.eq(&index[copy])];
                if !indices_only {
                    here.push(enc.cond(&a.pred, cx));
                    here.extend(self.assumes(&mut enc, &a.loops, a.pos, cx));
                }
                fs.push(sel[copy][i].implies(Bool::and(&here)));
            }
        }
        // A conflict: at least one writes (atomics write), not both atomic.
        let kind_in = |c: usize, f: &dyn Fn(AccessKind) -> bool| {
            let hits: Vec<Bool> = accs
                .iter()
                .enumerate()
                .filter(|(_, a)| f(a.kind))
                .map(|(i, _)| sel[c][i].clone())
                .collect();
            Bool::or(&hits)
        };
        let writes = |k: AccessKind| k != AccessKind::Read;
        let atomic = |k: AccessKind| k == AccessKind::Atomic;
        fs.push(Bool::or(&[kind_in(0, &writes), kind_in(1, &writes)]));
        fs.push(Bool::and(&[kind_in(0, &atomic), kind_in(1, &atomic)]).not());
        enc.finish();
        fs.append(&mut enc.facts);
        let block_size = enc.block_size_limit();
        let mut found = Vec::new();
        loop {
            let pick = |m: &Model| {
                let on = |c: usize| -> Vec<usize> {
                    (0..accs.len())
                        .filter(|&i| m.eval(&sel[c][i], true).and_then(|v| v.as_bool()) == Some(true))
                        .collect()
                };
                let (s0, s1) = (on(0), on(1));
                s0.iter()
                    .flat_map(|&i| s1.iter().map(move |&j| (i, j)))
                    .find(|&(i, j)| accs[i].kind.conflicts_with(accs[j].kind))
            };
            let spent = self.meter.spent() - spent_before;
            let units = budget.checked_sub(spent).filter(|t| *t > 0)?;
            let asked = std::time::Instant::now();
            let answer = self.solve(&fs, units, block_size.as_ref(), pick);
            trace_slow(start, || {
                format!(
                    "screening query over {} accesses of `{}` ({scope:?}, {} named so far): {:?}, \
                     solver {} ms, {} units",
                    accs.len(),
                    accs.first().map_or("", |a| a.array.as_str()),
                    found.len(),
                    answer.as_ref().map(|p| p.is_some()),
                    asked.elapsed().as_millis(),
                    self.meter.last()
                )
            });
            match answer {
                Ok(None) => return Some(found),
                Ok(Some(Some((i, j)))) if found.len() < limit => {
                    found.push((i.min(j), i.max(j)));
                    fs.push(Bool::and(&[sel[0][i].clone(), sel[1][j].clone()]).not());
                    fs.push(Bool::and(&[sel[0][j].clone(), sel[1][i].clone()]).not());
                }
                _ => return None,
            }
        }
    }

    /// The iteration numbers of the two occurrences for a race type, and what is known
    /// about their order (fresh variables, shared where the type says they are equal).
    fn occurrences(
        &self,
        enc: &mut Encoder,
        a: &AccessFact,
        b: &AccessFact,
        order: Order,
    ) -> (Vec<It>, Vec<It>, Rel) {
        let mut iters = Iters { next: 0 };
        let ka: Vec<It> = a.loops.iter().map(|_| iters.fresh(enc, "k0")).collect();
        let common = Summary::common_loops(&a.loops, &b.loops);
        let kb: Vec<It> = (0..b.loops.len())
            .map(|i| match order {
                Order::Intra if i < common => ka[i].clone(),
                Order::Inter { depth, .. } if i + 1 < depth => ka[i].clone(),
                _ => iters.fresh(enc, "k1"),
            })
            .collect();
        let mut rel = Rel::default();
        if let Order::Inter { depth, forward } = order
            && let (Some(x), Some(y)) = (ka.get(depth - 1), kb.get(depth - 1))
            && let (Sym::Var(i, _), Sym::Var(j, _)) = (x.sym, y.sym)
        {
            rel.less.push(if forward { (i, j) } else { (j, i) });
        }
        (ka, kb, rel)
    }

    /// Whether barriers order the occurrences of this race type: never (the query
    /// without barriers answers), always (no query needed), or maybe.
    pub fn separation(&self, a: &AccessFact, b: &AccessFact, order: Order) -> Separation {
        self.separation_in(a, b, order, Scope::SameBlock)
    }

    /// [`Checker::separation`] for the threads of `scope`: across blocks, only grid
    /// barriers count.
    pub fn separation_in(&self, a: &AccessFact, b: &AccessFact, order: Order, scope: Scope) -> Separation {
        let mut enc = Encoder::new(self.sum);
        let (ka, kb, rel) = self.occurrences(&mut enc, a, b, order);
        let (x, y) = in_trace_order(a, &ka, b, &kb, order);
        match self.barrier_between(&mut enc, &rel, &x, &y, scope) {
            Sb::Known(false) => Separation::Never,
            Sb::Known(true) => Separation::Always,
            Sb::Dyn(_) => Separation::Maybe,
        }
    }

    /// Some never-divergent barrier executes strictly between `x` and `y` (`x` first),
    /// under-approximated as described in the module comment. Threads of different
    /// blocks (`scope`) are ordered by grid barriers only; a never-divergent grid
    /// barrier enabled for one thread is enabled for the whole grid.
    fn barrier_between(&self, enc: &mut Encoder, rel: &Rel, x: &Point, y: &Point, scope: Scope) -> Sb {
        let mut any = Sb::Known(false);
        for (bi, bar) in self.sum.barriers.iter().enumerate() {
            if !self.uniform.get(bi).copied().unwrap_or(false) || (scope == Scope::CrossBlock && !bar.grid) {
                continue;
            }
            let mut cands: Vec<Vec<It>> = Vec::new();
            // Candidates in the iterations of an occurrence whose predicate implies the
            // barrier's (an unconditional barrier of the occurrence's own loops) are
            // known to execute.
            let mut implied = Vec::new();
            for p in [x, y] {
                let c = Summary::common_loops(&bar.loops, p.loops);
                let mut kb: Vec<It> = p.k[..c].to_vec();
                kb.resize(bar.loops.len(), zero(enc));
                cands.push(kb);
                implied.push(bar.unconditional && c == bar.loops.len());
            }
            // The barrier in the next iteration of each loop around the earlier
            // occurrence (it exists when that loop goes on).
            for j in 1..=Summary::common_loops(&bar.loops, x.loops) {
                let mut kb: Vec<It> = x.k[..j - 1].to_vec();
                kb.push(succ(enc, &x.k[j - 1]));
                kb.resize(bar.loops.len(), zero(enc));
                cands.push(kb);
            }
            for (ci, kb) in cands.into_iter().enumerate() {
                let pb = Point {
                    loops: &bar.loops,
                    k: &kb,
                    pos: bar.pos,
                };
                let between = rel.before(enc, x, &pb).and(rel.before(enc, &pb, y));
                if matches!(between, Sb::Known(false)) {
                    continue;
                }
                let en = if implied.get(ci).copied().unwrap_or(false) {
                    Sb::Known(true)
                } else {
                    let iters = bar
                        .loops
                        .iter()
                        .copied()
                        .zip(kb.iter().map(|k| k.v.clone()))
                        .collect();
                    let cx = enc.ctx(Ctx {
                        copy: 0,
                        block: 0,
                        iters,
                    });
                    Sb::Dyn(enc.cond(&bar.pred, cx))
                };
                // A warp barrier orders only threads of one warp.
                let en = if bar.warp {
                    en.and(Sb::Dyn(enc.same_warp(self.opts.warp_barrier_size())))
                } else {
                    en
                };
                any = any.or(between.and(en));
                if matches!(any, Sb::Known(true)) {
                    return any;
                }
            }
        }
        any
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
        self.solve_with(&fs, self.limits.query, true, None, |_| ())
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
        let block_size = enc.block_size_limit();
        let out = self.solve(&fs, self.limits.query, block_size.as_ref(), |m| {
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

/// An integer term's value in context `cx` (`None` under `--wrap`, where the digit
/// lemmas do not hold).
fn int_in(enc: &mut Encoder, t: &T, cx: usize) -> Option<z3::ast::Int> {
    match enc.val(t, cx) {
        Val::I(x) => Some(x),
        Val::B(_) => None,
    }
}

/// Pushes "`x` in context `cxs[0]` equals `y` in context `cxs[1]`"; false when a term
/// has no integer value.
fn equal_in(enc: &mut Encoder, (x, y): (&T, &T), cxs: [usize; 2], out: &mut Vec<Bool>) -> bool {
    match (int_in(enc, x, cxs[0]), int_in(enc, y, cxs[1])) {
        (Some(x), Some(y)) => {
            out.push(x.eq(&y));
            true
        }
        _ => false,
    }
}

/// Pushes a one-thread premise of a digit lemma in context `cx` ([`Premise::Same`] is
/// about two threads: see [`equal_in`]); false when a term has no integer value.
fn premise_in(enc: &mut Encoder, p: &Premise, cx: usize, out: &mut Vec<Bool>) -> bool {
    match p {
        Premise::NonZero(t) => int_in(enc, t, cx).map(|x| out.push(x.eq(0).not())).is_some(),
        Premise::NonNeg(t) => int_in(enc, t, cx).map(|x| out.push(x.ge(0))).is_some(),
        Premise::Holds(c) => {
            out.push(enc.cond(c, cx));
            true
        }
        Premise::Below(t, bound) => match (int_in(enc, t, cx), int_in(enc, bound, cx)) {
            (Some(x), Some(n)) => {
                out.extend([x.ge(0), x.lt(&n)]);
                true
            }
            _ => false,
        },
        // A two-thread premise has no meaning in one thread: the lemma is dropped.
        Premise::Same(_) => false,
    }
}
