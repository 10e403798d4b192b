//! Terms to Z3 values and conditions, node by node: the uncached encodings behind
//! `Encoder::val` and `Encoder::cond`, `InLoop` with its exit facts, comparisons and
//! the binary operations that are not bit-level.

use std::rc::Rc;

use kpl::{BinOp, Builtin, UnOp};
use z3::ast::{Ast, Bool, Int};
use z3::{FuncDecl, Sort};

use super::super::term::{LoopId, T, Term};
use super::arith::int_cast;
use super::pow2::{single_pow2, substitute_pow2};
use super::{Ctx, Encoder, Val};

impl Encoder<'_> {
    pub(super) fn val_uncached(&mut self, t: &T, cx: usize) -> Val {
        match &**t {
            Term::Const(v) => self.num(*v),
            Term::Builtin(b) => {
                let c = &self.ctxs[cx];
                match b {
                    Builtin::Tid(d) => self.tid[c.copy][d.index()].clone(),
                    Builtin::Bid(d) => self.bid[c.block][d.index()].clone(),
                    Builtin::Bdim(d) => self.bdim[d.index()].clone(),
                    Builtin::Gdim(d) => self.gdim[d.index()].clone(),
                }
            }
            Term::Param(i, _) => self.params.get(*i).cloned().unwrap_or_else(|| self.num(0)),
            // A read through its type (`AtomInfo::ty`): in range by the atom's facts.
            Term::Cast(ty, a)
                if matches!(&**a, Term::Atom(id, _)
                    if self.sum.atoms.get(*id).is_some_and(|i| i.ty == Some(*ty))) =>
            {
                self.val(a, cx)
            }
            Term::Cast(ty, a) => {
                let range = self.sum.builder().range(a);
                match self.val(a, cx) {
                    Val::I(x) => Val::I(int_cast(*ty, &x, range, &mut self.facts)),
                    // `Builder::cast` lowers conversions to masks under `--wrap`.
                    v @ Val::B(_) => v,
                }
            }
            Term::Iter(_) | Term::IterAdd(..) => {
                let v = self.iter(t, cx);
                self.iter_to_val(v)
            }
            Term::Atom(id, args) => {
                let v = self.atom(*id, args, cx);
                if self.sum.atoms.get(*id).is_some_and(|a| a.is_iteration()) {
                    self.iter_to_val(v)
                } else {
                    v
                }
            }
            Term::Un(UnOp::Neg, a) => match self.val(a, cx) {
                Val::I(x) => Val::I(-x),
                Val::B(x) => Val::B(-x),
            },
            Term::Un(UnOp::BitNot, a) => match self.val(a, cx) {
                Val::I(x) => Val::I(-x - 1),
                Val::B(x) => Val::B(!x),
            },
            Term::Un(UnOp::Not, _) | Term::InLoop(_) => {
                let c = self.cond(t, cx);
                self.b2v(&c)
            }
            Term::Bin(op, a, b) => {
                use BinOp::*;
                match op {
                    Eq | Ne | Lt | Le | Gt | Ge | And | Or => {
                        let c = self.cond(t, cx);
                        self.b2v(&c)
                    }
                    Add if self.block_size_limit().is_some() && flat_thread_index(t, 0) => {
                        // The thread's index within its block, flattened: below the
                        // block's size, so below its limit (`flat_thread_index`).
                        let v = self.binary(*op, a, b, cx);
                        let most = self.sum.max_threads.min(1024);
                        let below = match &v {
                            Val::I(x) => x.lt(most),
                            Val::B(x) => x.bvult(z3::ast::BV::from_i64(most, x.get_size())),
                        };
                        self.facts.push(below);
                        v
                    }
                    _ => self.binary(*op, a, b, cx),
                }
            }
            Term::Ite(c, a, b) => {
                let c = self.cond(c, cx);
                let (a, b) = (self.val(a, cx), self.val(b, cx));
                self.ite(&c, &a, &b)
            }
            Term::Pow2(e) => {
                let range = self.exp_cases(e);
                let ev = self.val(e, cx);
                // Beyond the cases, a function of the exponent at least the next power.
                let big = FuncDecl::new("pow2_beyond", &[&Sort::int()], &Sort::int());
                let beyond = match &ev {
                    Val::I(x) => big.apply(&[x as &dyn Ast]).as_int(),
                    Val::B(_) => None,
                };
                let Some(beyond) = beyond else {
                    return self.fresh_val("pow2");
                };
                // Only above the cases: below them (`e` under a nonnegative low end,
                // which no thread inside the loops reaches) the value is arbitrary.
                if let Val::I(x) = &ev {
                    let above = x.gt(range.1);
                    self.facts
                        .push(above.implies(beyond.ge(Int::from_i128(1i128 << (range.1 + 1)))));
                }
                let ev = self.exp(e, cx);
                self.pow2_cases(ev, range, Val::I(beyond), |enc, v| enc.num(v))
            }
            Term::Table(k, entries, tail) => {
                let kv = self.iter(k, cx);
                let mut out = self.val(tail, cx);
                for (i, e) in entries.iter().enumerate().rev() {
                    let hit = kv.eq(&self.inum(i as i64));
                    let v = self.val(e, cx);
                    out = self.ite(&hit, &v, &out);
                }
                out
            }
        }
    }

    pub(super) fn ite(&self, c: &Bool, a: &Val, b: &Val) -> Val {
        match (a, b) {
            (Val::I(x), Val::I(y)) => Val::I(c.ite(x, y)),
            (Val::B(x), Val::B(y)) => Val::B(c.ite(x, y)),
            (x, y) => Val::I(c.ite(&x.i(), &y.i())),
        }
    }

    pub(super) fn cond_uncached(&mut self, t: &T, cx: usize) -> Bool {
        use BinOp::*;
        match &**t {
            Term::Const(v) => Bool::from_bool(*v != 0),
            Term::Un(UnOp::Not, a) => self.cond(a, cx).not(),
            Term::Bin(And, a, b) => Bool::and(&[self.cond(a, cx), self.cond(b, cx)]),
            Term::Bin(Or, a, b) => Bool::or(&[self.cond(a, cx), self.cond(b, cx)]),
            Term::Bin(op @ (Eq | Ne | Lt | Le | Gt | Ge), a, b) => {
                let iterish = (self.is_iterish(a) || a.as_const().is_some())
                    && (self.is_iterish(b) || b.as_const().is_some())
                    && (self.is_iterish(a) || self.is_iterish(b));
                let (x, y) = if iterish {
                    (self.iter(a, cx), self.iter(b, cx))
                } else {
                    (self.val(a, cx), self.val(b, cx))
                };
                self.compare(*op, &x, &y)
            }
            Term::Ite(c, a, b) if t.is_bool() => {
                let c = self.cond(c, cx);
                c.ite(&self.cond(a, cx), &self.cond(b, cx))
            }
            Term::InLoop(l) => self.in_loop(*l, cx),
            _ => {
                let v = self.val(t, cx);
                self.nonzero(&v)
            }
        }
    }

    /// `k < trip ∧ guard(k)`, with the fact `k = trip ⟹ ¬guard(k)` when only the guard
    /// can end the loop.
    fn in_loop(&mut self, l: LoopId, cx: usize) -> Bool {
        let Some(info) = self.sum.loops.get(l).and_then(|i| i.clone()) else {
            return Bool::fresh_const("inloop");
        };
        let k = self.iter(&Rc::new(Term::Iter(l)), cx);
        let trip = self.iter(&info.trip_term, cx);
        let guard = self.cond(&info.guard, cx);
        let below = self.iter_lt(&k, &trip);
        let below = if info.once {
            let one = self.inum(1);
            Bool::and(&[below, self.iter_lt(&k, &one)])
        } else {
            below
        };
        if !info.exit_jumps {
            let f = k.eq(&trip).implies(guard.not());
            self.facts.push(f);
        } else if !info.once {
            let f = self.no_exit_before(l, &info.exits, &k, &below, cx);
            self.facts.push(f);
        }
        Bool::and(&[below, guard])
    }

    /// A thread inside iteration `k ≥ 1` of a loop it can leave by `break` or `return`
    /// (`below`: `k` is under its trip count) did not leave it in iteration `k - 1`:
    /// the trip count of a thread that leaves in iteration `j` is `j + 1`. Without
    /// this, a thread could be inside iteration `k` of a persistent-threads loop
    /// (`while (1) { ..; if (done) break; ..; barrier; }`) yet skip the barrier at the
    /// end of iteration `k - 1` as if it had broken out there.
    fn no_exit_before(&mut self, l: LoopId, exits: &T, k: &Val, below: &Bool, cx: usize) -> Bool {
        if exits.as_const() == Some(0) || self.exits_open.contains(&l) {
            return Bool::from_bool(true);
        }
        self.exits_open.push(l);
        let later = self.iter_lt(&self.inum(0), k);
        // `k - 1`, kept at 0 for `k = 0` (where the fact says nothing): facts about
        // values at a negative iteration (a geometric sequence's one-step lemma) would
        // constrain the first one.
        let prev_k = self.ite(&later, &self.iter_add(k, -1), &self.inum(0));
        let c = &self.ctxs[cx];
        let mut iters = c.iters.clone();
        iters.insert(l, prev_k);
        let prev = self.ctx(Ctx {
            copy: c.copy,
            block: c.block,
            iters,
        });
        let left = self.cond(exits, prev);
        self.exits_open.pop();
        Bool::and(&[later, below.clone()]).implies(left.not())
    }

    pub fn compare(&self, op: BinOp, x: &Val, y: &Val) -> Bool {
        use BinOp::*;
        match (x, y) {
            (Val::B(a), Val::B(b)) if a.get_size() == b.get_size() => match op {
                Eq => a.eq(b),
                Ne => a.eq(b).not(),
                Lt => a.bvult(b),
                Le => a.bvule(b),
                Gt => a.bvugt(b),
                _ => a.bvuge(b),
            },
            _ => {
                let (a, b) = (x.i(), y.i());
                match op {
                    Eq => a.eq(&b),
                    Ne => a.eq(&b).not(),
                    Lt => a.lt(&b),
                    Le => a.le(&b),
                    Gt => a.gt(&b),
                    _ => a.ge(&b),
                }
            }
        }
    }

    fn binary(&mut self, op: BinOp, a: &T, b: &T, cx: usize) -> Val {
        use BinOp::*;
        // Split over the entries of a tabulated operand, so masks and shifts by a
        // tabulated power of two stay exact.
        if matches!(op, BitAnd | BitOr | BitXor | Shl | Shr | Div | Rem | Mul) {
            // The same for an operand built from one power of two (`s - 1` for
            // `s = Pow2(e)`), split over the exponent.
            for (p, other, p_left) in [(b, a, false), (a, b, true)] {
                if other.as_const().is_some() {
                    continue;
                }
                let Some(e) = single_pow2(p) else {
                    continue;
                };
                if !self.wrap
                    && let Some(v) = self.bitwise_pow2_by_bits(op, other, p, &e, cx)
                {
                    return v;
                }
                let bld = self.sum.builder();
                // Past the cases (exponents no thread inside the loops reaches, or
                // above MAX_EXP) an arbitrary value: exact encodings there only slow
                // the solver down.
                let beyond = self.fresh_val("past_pow2");
                let range = self.exp_cases(&e);
                let ev = self.exp(&e, cx);
                return self.pow2_cases(ev, range, beyond, |enc, v| {
                    let c = substitute_pow2(&bld, p, v);
                    let t = if p_left {
                        bld.bin(op, c, other.clone())
                    } else {
                        bld.bin(op, other.clone(), c)
                    };
                    enc.val(&t, cx)
                });
            }
            for (table, other, table_left) in [(b, a, false), (a, b, true)] {
                if let Term::Table(k, entries, tail) = &**table
                    && other.as_const().is_none()
                {
                    let bld = self.sum.builder();
                    let mut cases: Vec<T> = entries
                        .iter()
                        .map(|e| {
                            if table_left {
                                bld.bin(op, e.clone(), other.clone())
                            } else {
                                bld.bin(op, other.clone(), e.clone())
                            }
                        })
                        .collect();
                    let last = if table_left {
                        bld.bin(op, tail.clone(), other.clone())
                    } else {
                        bld.bin(op, other.clone(), tail.clone())
                    };
                    let kv = self.iter(k, cx);
                    // Past the table the operand is a bounded unknown; an exact
                    // nonlinear encoding there would only slow the solver down, for
                    // iterations guards rarely reach: any value will do.
                    let mut out = if tail.as_const().is_some() || op == Mul {
                        self.val(&last, cx)
                    } else {
                        self.fresh_val("past_table")
                    };
                    while let Some(case) = cases.pop() {
                        let i = cases.len();
                        let v = self.val(&case, cx);
                        let hit = kv.eq(&self.inum(i as i64));
                        out = self.ite(&hit, &v, &out);
                    }
                    return out;
                }
            }
        }
        if !self.wrap
            && let Some(v) = self.bitwise_by_bits(op, a, b, cx)
        {
            return Val::I(v);
        }
        let (x, y) = (self.val(a, cx), self.val(b, cx));
        if matches!(op, Div | Rem)
            && b.as_const().is_some_and(|c| c > 0)
            && self.nonneg(a)
            && let (Val::I(x), Val::I(y)) = (&x, &y)
        {
            // C and Z3 agree on nonnegative dividends and positive divisors.
            return Val::I(if op == Div { x.div(y) } else { x.modulo(y) });
        }
        self.arith(op, x, y, a.as_const(), b.as_const())
    }
}

/// Whether `t` is a thread's index in its block flattened from dimension `d` on:
/// `tid.d`, or `tid.d + bdim.d * F` (either operand order) with `F` flat from `d + 1`.
/// Such an index is at most `bdim.d * ... * bdim.z - 1`: below the block's size, which
/// the launch bounds (else CUDA's 1024 threads) limit. A linear fact the product
/// `bdim.x * bdim.y * bdim.z` would otherwise give only through nonlinear reasoning
/// (`tests/corpus/launch/boundsFlat.cu`: `stage[t % 256]` with `__launch_bounds__(256)`).
fn flat_thread_index(t: &T, d: usize) -> bool {
    let is =
        |t: &T, b: fn(kpl::Dim) -> Builtin| matches!(&**t, Term::Builtin(x) if *x == b(kpl::Dim::ALL[d]));
    if d >= 3 {
        return false;
    }
    if is(t, Builtin::Tid) {
        return true;
    }
    let Term::Bin(BinOp::Add, a, b) = &**t else {
        return false;
    };
    let (tid, rest) = if is(a, Builtin::Tid) { (a, b) } else { (b, a) };
    if !is(tid, Builtin::Tid) {
        return false;
    }
    let Term::Bin(BinOp::Mul, x, y) = &**rest else {
        return false;
    };
    let (dim, inner) = if is(x, Builtin::Bdim) { (x, y) } else { (y, x) };
    is(dim, Builtin::Bdim) && flat_thread_index(inner, d + 1)
}
