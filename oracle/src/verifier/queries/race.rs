//! Race queries on one pair of accesses and race type: the query itself, its retries on
//! small parameter instances, the digit lemmas of mixed-radix indices, the benign-race
//! retry with the written values apart, and warp lock step.

use kpl::BinOp;
use z3::ast::Bool;

use super::super::encode::{Encoder, Val};
use super::super::radix::Premise;
use super::super::symbolic::AccessFact;
use super::super::term::{LoopId, T, Term, any_node};
use super::trace_order::{It, Sb, at, in_trace_order};
use super::{Attempt, Checker, Order, Outcome, Scope, outcome, trace_slow};
use crate::AccessKind;

/// The parameter values of [`Checker::small_instances`], in the order of the kernel's
/// parameters (repeated when it has more): distinct small extents in both orders, and
/// equal ones.
const SMALL_INSTANCES: [&[i64]; 3] = [&[2, 3, 4, 5], &[5, 4, 3, 2], &[2]];

impl Checker<'_> {
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
        let nonlinear = enc.nonlinear();
        let solve_in = |fs: &[Bool], units: u64| {
            self.solve_with(fs, units, limit.fresh, &nonlinear, |m| {
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
    /// ([`super::super::affine::mixed_radix_digits`]): implied facts, for the two accesses of a
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
        let Some(digits) = super::super::affine::mixed_radix_digits(self.sum, &a.index, &loops) else {
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

    /// The digit lemmas of [`super::super::radix`] for a pair of accesses, as implications
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
            super::super::radix::lemmas(self.sum, &a.index, &pa)
        } else {
            let (pair, below) = super::super::radix::pair_lemmas(self.sum, [&a.index, &b.index], [&pa, &pb]);
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
