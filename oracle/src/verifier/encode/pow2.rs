//! Powers of two `2^e` and tabulated values: case splits per exponent, within the
//! bounds `Encoder::exp_cases` finds, so operations on them stay exact.

use kpl::{BinOp, UnOp};
use z3::ast::{Bool, Int};

use super::super::term::{T, Term};
use super::{Encoder, Val};

impl Encoder<'_> {
    /// `f(2^e)` by cases on the exponent: `f(2^i)` for `0 ≤ i ≤ MAX_EXP`, `f(0)` for
    /// negative `e`, and `beyond` for larger ones (powers no guard of 32-bit values lets
    /// in, so that case rarely matters).
    ///
    /// `range` ([`Encoder::exp_cases`]) bounds the exponents that matter: below its
    /// low end (when that is 0 or more) and above its high end, `beyond`.
    pub(super) fn pow2_cases(
        &mut self,
        e: Option<Exp>,
        range: (i64, i64),
        beyond: Val,
        mut f: impl FnMut(&mut Self, i64) -> Val,
    ) -> Val {
        let Some(e) = e else {
            return beyond;
        };
        let (lo, hi) = range;
        let mut out = if lo < 0 {
            let negative = f(self, 0);
            self.ite(&e.below(0), &negative, &beyond)
        } else {
            beyond
        };
        for i in (lo.max(0)..=hi).rev() {
            let v = f(self, 1 << i);
            out = self.ite(&e.is(i), &v, &out);
        }
        out
    }

    /// An exponent for [`Encoder::pow2_cases`]: `±k + c` for a single iteration number
    /// `k` when it is one (cases `k = v` are what the solver propagates bounds on
    /// iteration numbers into; `8 - k = v` it handles far worse), else the value.
    pub(super) fn exp(&mut self, e: &T, cx: usize) -> Option<Exp> {
        if let Some((k, sign, c)) = single_iter(e)
            && let Val::I(kv) = self.iter(&k, cx)
        {
            return Some(Exp { x: kv, sign, c });
        }
        match self.val(e, cx) {
            Val::I(x) => Some(Exp { x, sign: 1, c: 0 }),
            Val::B(_) => None,
        }
    }

    /// The exponents of `Pow2(e)` worth a case of their own: `[lo, hi]` with `lo ≥ -1`
    /// (-1 standing for every negative exponent, where the power is 0) and `hi ≤
    /// MAX_EXP`, from bounds on the iteration numbers `e` is linear in (a loop with a
    /// constant trip count `n` has iterations `0..=n`, the last one for values after
    /// it). Outside, encodings use an arbitrary value: iteration numbers beyond a
    /// constant trip count only occur where no thread is inside the loop.
    pub(super) fn exp_cases(&self, e: &T) -> (i64, i64) {
        let (lo, hi) = self.exp_range(e, 6);
        let lo = lo.map_or(-1, |l| l.clamp(-1, MAX_EXP));
        let hi = hi.map_or(MAX_EXP, |h| h.clamp(-1, MAX_EXP));
        (lo, hi.max(lo))
    }

    /// Bounds on an exponent term (`None`: unbounded on that side).
    fn exp_range(&self, e: &T, depth: u32) -> (Option<i64>, Option<i64>) {
        use BinOp::*;
        let add = |a: Option<i64>, b: Option<i64>| a.zip(b).and_then(|(x, y)| x.checked_add(y));
        let none = (None, None);
        if depth == 0 {
            return none;
        }
        match &**e {
            Term::Const(v) => (Some(*v), Some(*v)),
            Term::Iter(l) => {
                let trip = self
                    .sum
                    .loops
                    .get(*l)
                    .and_then(|i| i.as_ref())
                    .and_then(|i| i.trip_term.as_const());
                (Some(0), trip)
            }
            Term::IterAdd(k, off) => {
                let (lo, hi) = self.exp_range(k, depth - 1);
                (add(lo, Some(*off)), add(hi, Some(*off)))
            }
            Term::Atom(id, _) if self.sum.atoms.get(*id).is_some_and(|a| a.is_iteration()) => (Some(0), None),
            Term::Un(UnOp::Neg, x) => {
                let (lo, hi) = self.exp_range(x, depth - 1);
                (hi.and_then(i64::checked_neg), lo.and_then(i64::checked_neg))
            }
            Term::Bin(Add, x, y) => {
                let ((a, b), (c, d)) = (self.exp_range(x, depth - 1), self.exp_range(y, depth - 1));
                (add(a, c), add(b, d))
            }
            Term::Bin(Sub, x, y) => {
                let ((a, b), (c, d)) = (self.exp_range(x, depth - 1), self.exp_range(y, depth - 1));
                (
                    add(a, d.and_then(i64::checked_neg)),
                    add(b, c.and_then(i64::checked_neg)),
                )
            }
            Term::Bin(Mul, x, y) => {
                let (m, other) = match (x.as_const(), y.as_const()) {
                    (Some(m), _) => (m, y),
                    (_, Some(m)) => (m, x),
                    _ => return none,
                };
                let (lo, hi) = self.exp_range(other, depth - 1);
                let scale = |v: Option<i64>| v.and_then(|v| v.checked_mul(m));
                if m >= 0 {
                    (scale(lo), scale(hi))
                } else {
                    (scale(hi), scale(lo))
                }
            }
            _ => none,
        }
    }
}

/// An exponent `sign·x + c` (`sign` = ±1) for case splits.
pub(super) struct Exp {
    x: Int,
    sign: i64,
    c: i64,
}

impl Exp {
    /// The exponent equals `v`.
    pub(super) fn is(&self, v: i64) -> Bool {
        self.x.eq((v - self.c) * self.sign)
    }

    /// The exponent is below `v`.
    fn below(&self, v: i64) -> Bool {
        if self.sign > 0 {
            self.x.lt(v - self.c)
        } else {
            self.x.gt(self.c - v)
        }
    }
}

/// `e` as `sign·k + c` for one iteration-valued term `k` (an iteration number, or one
/// plus an offset) and `sign` = ±1, when it has that form.
fn single_iter(e: &T) -> Option<(T, i64, i64)> {
    fn lin(e: &T, out: &mut Vec<(T, i64)>, c: &mut i64, m: i64) -> Option<()> {
        match &**e {
            Term::Const(v) => *c = c.checked_add(v.checked_mul(m)?)?,
            Term::Iter(_) => out.push((e.clone(), m)),
            Term::IterAdd(k, off) => {
                *c = c.checked_add(off.checked_mul(m)?)?;
                lin(k, out, c, m)?;
            }
            Term::Bin(BinOp::Add, x, y) => {
                lin(x, out, c, m)?;
                lin(y, out, c, m)?;
            }
            Term::Bin(BinOp::Sub, x, y) => {
                lin(x, out, c, m)?;
                lin(y, out, c, m.checked_neg()?)?;
            }
            Term::Un(UnOp::Neg, x) => lin(x, out, c, m.checked_neg()?)?,
            Term::Bin(BinOp::Mul, x, y) => match (x.as_const(), y.as_const()) {
                (Some(f), _) => lin(y, out, c, m.checked_mul(f)?)?,
                (_, Some(f)) => lin(x, out, c, m.checked_mul(f)?)?,
                _ => return None,
            },
            _ => return None,
        }
        Some(())
    }
    let (mut terms, mut c) = (Vec::new(), 0);
    lin(e, &mut terms, &mut c, 1)?;
    match terms.as_slice() {
        [(k, m)] if m.abs() == 1 => Some((k.clone(), *m, c)),
        _ => None,
    }
}

/// Exponents of [`Term::Pow2`] encoded case by case (larger ones only occur in
/// iterations that guards on 32-bit values exclude).
pub(super) const MAX_EXP: i64 = 40;

/// The one `Pow2` node of a term that is constant but for it (`Pow2(e) - 1`), with the
/// term folding to a constant once the node is one.
pub(super) fn single_pow2(t: &T) -> Option<T> {
    let mut found: Option<T> = None;
    let mut ok = true;
    fn walk(t: &T, found: &mut Option<T>, ok: &mut bool) {
        match &**t {
            Term::Pow2(e) => match found {
                Some(f) if *f != *e => *ok = false,
                _ => *found = Some(e.clone()),
            },
            Term::Const(_) => {}
            Term::Bin(_, a, b) => {
                walk(a, found, ok);
                walk(b, found, ok);
            }
            Term::Un(_, a) => walk(a, found, ok),
            _ => *ok = false,
        }
    }
    walk(t, &mut found, &mut ok);
    found.filter(|_| ok)
}

/// `t` with its `Pow2` node replaced by the constant `v`.
pub(super) fn substitute_pow2(b: &super::super::term::Builder, t: &T, v: i64) -> T {
    let mut r = super::super::term::Rewriter::new(*b, |b, n| match &**n {
        Term::Pow2(_) => Some(b.int(v)),
        _ => None,
    });
    r.run(t)
}
