//! Bit-level encodings: bitwise operations by the bits of thread and block ids, the
//! per-bit forms linear in an exponent, and the low bits of two race indices compared
//! (`Encoder::same_index_bits`).

use std::rc::Rc;

use kpl::{BinOp, Builtin, UnOp};
use z3::ast::{Bool, Int};

use super::super::term::{T, Term, any_node};
use super::arith::sum;
use super::pow2::{MAX_EXP, substitute_pow2};
use super::{Encoder, Val};

impl Encoder<'_> {
    /// `x op c` for a bitwise `op`, a constant `c` and an `x` with a bit decomposition
    /// (thread and block ids, which lie in `[0, 2^32)`): a sum over the bits, with no
    /// division for the solver to split on (xor partners `tid ^ j` in bitonic sorts need
    /// this to be fast).
    pub(super) fn bitwise_by_bits(&mut self, op: BinOp, a: &T, b: &T, cx: usize) -> Option<Int> {
        use BinOp::*;
        let (x, c) = match (a.as_const(), b.as_const()) {
            (None, Some(c)) => (a, c),
            (Some(c), None) if matches!(op, BitAnd | BitOr | BitXor) => (b, c),
            _ => return None,
        };
        if c < 0 {
            return None;
        }
        let mut terms = Vec::new();
        let mut constant: i128 = 0;
        // Division and remainder stay `div`/`mod`: the solver's divisibility reasoning
        // works on those, not on sums of bits.
        if !matches!(op, BitAnd | BitOr | BitXor) {
            return None;
        }
        let bits = self.bits(x, cx)?;
        for (i, bit) in bits.iter().enumerate() {
            let w = Int::from_i128(1i128 << i);
            let zero = Int::from_i64(0);
            let set = c >> i & 1 == 1;
            match (op, set) {
                (BitAnd, true) | (BitOr | BitXor, false) => terms.push(bit.ite(&w, &zero)),
                (BitXor, true) => terms.push(bit.ite(&zero, &w)),
                (BitOr, true) => constant += 1i128 << i,
                _ => {}
            }
        }
        // Bits of `c` above `x`'s width.
        if matches!(op, BitOr | BitXor) && bits.len() < 63 {
            constant += i128::from(c >> bits.len() << bits.len());
        }
        terms.push(Int::from_i128(constant));
        Some(sum(&terms))
    }

    /// `x op m` for a bitwise `op`, an `x` with a bit decomposition ([`Encoder::bits`])
    /// and a mask `m = f(2^e)` built from one power of two and constants (`s - 1`,
    /// `~(s - 1)`, `s` for a loop's `s = Pow2(e)`): bit `i` of the result is `b_i op
    /// M_i(e)` where `M_i(e)`, bit `i` of `f(2^e)`, is a union of intervals of `e`. So the
    /// encoding is linear in the exponent and in the bits, with no case split over `e`
    /// (xor partners `tid ^ j`, `tid & (stride - 1)` of sorting networks). Exact for
    /// `e ≤ MAX_EXP` (`e < 0` meaning `2^e = 0`); above, the operation on the power
    /// an arbitrary value.
    pub(super) fn bitwise_pow2_by_bits(&mut self, op: BinOp, x: &T, m: &T, e: &T, cx: usize) -> Option<Val> {
        use BinOp::*;
        if !matches!(op, BitAnd | BitOr | BitXor) {
            return None;
        }
        let bld = self.sum.builder();
        // The mask at every exponent: index 0 for all negative ones, v + 1 for v.
        let masks: Vec<i64> = (-1..=MAX_EXP)
            .map(|v| {
                let p = if v < 0 { 0 } else { 1i64 << v };
                substitute_pow2(&bld, m, p).as_const()
            })
            .collect::<Option<_>>()?;
        let bits = self.bits(x, cx)?;
        let w = bits.len();
        let Val::I(ev) = self.val(e, cx) else {
            return None;
        };
        // `lo ≤ e ≤ hi` over mask indices (index 0: every negative exponent).
        let span = |lo: usize, hi: usize| -> Bool {
            let upper = ev.le(hi as i64 - 1);
            if lo == 0 {
                upper
            } else {
                Bool::and(&[ev.ge(lo as i64 - 1), upper])
            }
        };
        // Where `pred` holds for the mask, as a union of intervals of `e`.
        let region = |pred: &dyn Fn(i64) -> bool| -> Bool {
            let mut parts = Vec::new();
            let mut i = 0;
            while i < masks.len() {
                if !pred(masks[i]) {
                    i += 1;
                    continue;
                }
                let lo = i;
                while i < masks.len() && pred(masks[i]) {
                    i += 1;
                }
                parts.push(span(lo, i - 1));
            }
            Bool::or(&parts)
        };
        let zero = Int::from_i64(0);
        let mut terms = Vec::with_capacity(w + 2);
        for (i, bit) in bits.iter().enumerate() {
            let set = region(&|mv| mv >> i & 1 == 1);
            let on = match op {
                BitAnd => Bool::and(&[bit.clone(), set]),
                BitOr => Bool::or(&[bit.clone(), set]),
                _ => bit.xor(&set),
            };
            terms.push(on.ite(&Int::from_i128(1i128 << i), &zero));
        }
        // Bits of the mask above `x`'s width: `x` has none (it lies in `[0, 2^w)`), so
        // `&` clears them and `|`, `^` keep the mask's (sign included).
        if op != BitAnd {
            let mut distinct: Vec<i64> = masks.iter().map(|mv| mv >> w << w).collect();
            distinct.sort_unstable();
            distinct.dedup();
            let mut high = Int::from_i64(0);
            for h in distinct {
                if h != 0 {
                    let at = region(&|mv| mv >> w << w == h);
                    high = at.ite(&Int::from_i64(h), &high);
                }
            }
            terms.push(high);
        }
        let exact = sum(&terms);
        // Past the cases an arbitrary value: an exact encoding there would only slow
        // the solver down, for powers no guard of 32-bit values lets in.
        let beyond = Int::fresh_const("past_pow2");
        Some(Val::I(ev.gt(MAX_EXP).ite(&beyond, &exact)))
    }

    /// The bits of a value known to lie in `[0, 2^w)` for a small `w` (a concrete launch
    /// dimension), with the fact tying them to it. Wide sums of bits (symbolic launches)
    /// are slower for the solver than `div`/`mod`, so those get `None`.
    fn bits(&mut self, t: &T, cx: usize) -> Option<Vec<Bool>> {
        let width = match &**t {
            Term::Builtin(Builtin::Tid(d)) => self.width_below(&self.bdim[d.index()].clone()),
            Term::Builtin(Builtin::Bid(d)) => self.width_below(&self.gdim[d.index()].clone()),
            _ => return None,
        };
        if width > 16 {
            return None;
        }
        // Per id and thread (or block) copy: ids do not depend on iterations.
        let key = match &**t {
            Term::Builtin(Builtin::Tid(d)) => (false, self.ctxs[cx].copy, d.index()),
            Term::Builtin(Builtin::Bid(d)) => (true, self.ctxs[cx].block, d.index()),
            _ => return None,
        };
        if let Some(b) = self.bits_memo.get(&key) {
            return Some(b.clone());
        }
        let Val::I(x) = self.val(t, cx) else {
            return None;
        };
        self.fresh += 1;
        let bits: Vec<Bool> = (0..width)
            .map(|i| Bool::new_const(format!("bit{}#{i}", self.fresh)))
            .collect();
        let weighted: Vec<Int> = bits
            .iter()
            .enumerate()
            .map(|(i, b)| b.ite(&Int::from_i128(1i128 << i), &Int::from_i64(0)))
            .collect();
        let total = sum(&weighted);
        self.facts.push(x.eq(total));
        // Distinct ids of the two copies differ in a bit (what makes index equalities
        // over bits, [`Encoder::same_index_bits`], refutable by propagation alone).
        let (blockish, copy, d) = key;
        if let Some(other) = self.bits_memo.get(&(blockish, 1 - copy, d)).cloned()
            && let Some(Val::I(y)) = self.bits_ids(blockish, 1 - copy, d)
        {
            let differ: Vec<Bool> = bits.iter().zip(&other).map(|(p, q)| p.xor(q)).collect();
            let mut alts = vec![x.eq(&y)];
            alts.extend(differ);
            self.facts.push(Bool::or(&alts));
        }
        self.bits_memo.insert(key, bits.clone());
        Some(bits)
    }

    /// The value of a thread or block id of a copy (for [`Encoder::bits`]).
    fn bits_ids(&self, blockish: bool, copy: usize, d: usize) -> Option<Val> {
        let ids = if blockish { &self.bid } else { &self.tid };
        ids.get(copy).map(|v| v[d].clone())
    }

    /// Facts that index equality `ia = ib` implies on the low [`INDEX_BITS`] bits of the
    /// two indices, when both are built from thread/block ids with a bit decomposition
    /// ([`Encoder::bits`]), constants, powers of two and tables of them with `+ - * & |
    /// ^ ~`, shifts and power-of-two divisions ([`Encoder::low_bits`]). Equal integers
    /// have equal two's complement bits, so the facts are implied; they let the solver
    /// refute butterflies and sorting networks (`2·tid - (tid & (s - 1))` against `… +
    /// s`) by propagation over bits, which linear arithmetic over sums of bits cannot.
    pub fn same_index_bits(&mut self, a: &T, cxa: usize, b: &T, cxb: usize) -> Vec<Bool> {
        // Only where bit-level operations make the integer encoding hard, and only
        // when both sides have a bit-level form (building one adds the ids' bits).
        let bitwise = |t: &T| {
            any_node(t, &mut |n| {
                matches!(
                    n,
                    Term::Un(UnOp::BitNot, _)
                        | Term::Bin(BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shr, _, _)
                )
            })
        };
        if self.wrap
            || !(bitwise(a) || bitwise(b))
            || !self.blastable(a, INDEX_BITS, 12)
            || !self.blastable(b, INDEX_BITS, 12)
        {
            return Vec::new();
        }
        let (Some(x), Some(y)) = (
            self.low_bits(a, cxa, INDEX_BITS),
            self.low_bits(b, cxb, INDEX_BITS),
        ) else {
            return Vec::new();
        };
        let same: Vec<Bool> = x.bits.iter().zip(&y.bits).map(|(p, q)| p.eq(q)).collect();
        let mut valid = x.valid.clone();
        valid.extend(y.valid.iter().cloned());
        vec![Bool::and(&valid).implies(Bool::and(&same))]
    }

    /// Whether [`Encoder::low_bits`] gives bits for `t` (checked first, as building them
    /// adds facts).
    fn blastable(&mut self, t: &T, w: usize, depth: u32) -> bool {
        use BinOp::*;
        if depth == 0 || w > 64 {
            return false;
        }
        let mut ok = |x: &T, w: usize| self.blastable(x, w, depth - 1);
        match &**t {
            Term::Const(_) | Term::Pow2(_) => true,
            Term::Builtin(Builtin::Tid(d)) => self.width_below(&self.bdim[d.index()]) <= 16,
            Term::Builtin(Builtin::Bid(d)) => self.width_below(&self.gdim[d.index()]) <= 16,
            Term::Builtin(Builtin::Bdim(d)) => {
                matches!(&self.bdim[d.index()], Val::I(x) if x.as_i64().is_some())
            }
            Term::Builtin(Builtin::Gdim(d)) => {
                matches!(&self.gdim[d.index()], Val::I(x) if x.as_i64().is_some())
            }
            Term::Cast(ty, x) => ty.bits as usize >= w && ok(x, w),
            Term::Un(UnOp::BitNot | UnOp::Neg, x) => ok(x, w),
            Term::Bin(Add | Sub | BitAnd | BitOr | BitXor, x, y) => ok(x, w) && ok(y, w),
            Term::Bin(Mul, x, y) => match (x.as_const(), y.as_const()) {
                (Some(c), _) => c.unsigned_abs().count_ones() <= 4 && ok(y, w),
                (_, Some(c)) => c.unsigned_abs().count_ones() <= 4 && ok(x, w),
                _ => false,
            },
            Term::Bin(Shl, x, y) => y.as_const().is_some_and(|c| (0..63).contains(&c)) && ok(x, w),
            Term::Bin(Shr, x, y) => match y.as_const() {
                Some(c) if (0..63).contains(&c) => ok(x, w + c as usize),
                _ => false,
            },
            Term::Bin(Div, x, y) => match y.as_const() {
                Some(c) if c > 0 && c & (c - 1) == 0 => {
                    self.nonneg(x) && self.blastable(x, w + c.trailing_zeros() as usize, depth - 1)
                }
                _ => false,
            },
            Term::Bin(Rem, x, y) => {
                y.as_const().is_some_and(|c| c > 0 && c & (c - 1) == 0)
                    && self.nonneg(x)
                    && self.blastable(x, w, depth - 1)
            }
            Term::Ite(_, x, y) => ok(x, w) && ok(y, w),
            Term::Table(_, entries, _) => entries.iter().all(|e| self.blastable(e, w, depth - 1)),
            _ => false,
        }
    }

    /// The low `w` bits (two's complement, least significant first) of a term's value,
    /// as formulas over id bits and exponent/iteration conditions, valid where
    /// [`Blast::valid`] holds; `None` when some part has no such form (memory reads,
    /// parameters, ...). Every operation used is a congruence modulo `2^w` (or reads
    /// wider bits of its operand, for right shifts), so the bits are exact.
    fn low_bits(&mut self, t: &T, cx: usize, w: usize) -> Option<Blast> {
        let key = (Rc::as_ptr(t), cx, w);
        if let Some(b) = self.low_bits_memo.get(&key) {
            return b.clone();
        }
        let out = if w > 64 {
            None
        } else {
            self.low_bits_uncached(t, cx, w)
        };
        self.keep(t);
        self.low_bits_memo.insert(key, out.clone());
        out
    }

    fn low_bits_uncached(&mut self, t: &T, cx: usize, w: usize) -> Option<Blast> {
        use BinOp::*;
        let konst = |v: i64| Blast::of((0..w).map(|j| Bool::from_bool(v >> j.min(63) & 1 == 1)).collect());
        Some(match &**t {
            Term::Const(v) => konst(*v),
            Term::Builtin(Builtin::Tid(_) | Builtin::Bid(_)) => {
                let bits = self.bits(t, cx)?;
                let f = Bool::from_bool(false);
                Blast::of(
                    (0..w)
                        .map(|j| bits.get(j).cloned().unwrap_or_else(|| f.clone()))
                        .collect(),
                )
            }
            Term::Builtin(Builtin::Bdim(_) | Builtin::Gdim(_)) => match self.val(t, cx) {
                Val::I(x) => konst(x.as_i64()?),
                Val::B(_) => return None,
            },
            Term::Pow2(e) => {
                let ev = self.exp(e, cx)?;
                Blast::of((0..w).map(|j| ev.is(j as i64)).collect())
            }
            Term::Cast(ty, x) if ty.bits as usize >= w => self.low_bits(x, cx, w)?,
            Term::Un(UnOp::BitNot, x) => self.low_bits(x, cx, w)?.map(|b| b.not()),
            Term::Un(UnOp::Neg, x) => {
                let x = self.low_bits(x, cx, w)?.map(|b| b.not());
                Blast::add(&konst(0), &x, true)
            }
            Term::Bin(Add, x, y) => {
                let (x, y) = (self.low_bits(x, cx, w)?, self.low_bits(y, cx, w)?);
                Blast::add(&x, &y, false)
            }
            Term::Bin(Sub, x, y) => {
                let (x, y) = (self.low_bits(x, cx, w)?, self.low_bits(y, cx, w)?);
                Blast::add(&x, &y.map(|b| b.not()), true)
            }
            Term::Bin(op @ (BitAnd | BitOr | BitXor), x, y) => {
                let (x, y) = (self.low_bits(x, cx, w)?, self.low_bits(y, cx, w)?);
                x.zip(&y, |p, q| match op {
                    BitAnd => Bool::and(&[p.clone(), q.clone()]),
                    BitOr => Bool::or(&[p.clone(), q.clone()]),
                    _ => p.xor(q),
                })
            }
            Term::Bin(Mul, x, y) => {
                let (c, other) = match (x.as_const(), y.as_const()) {
                    (Some(c), _) => (c, y),
                    (_, Some(c)) => (c, x),
                    _ => return None,
                };
                // Shift-and-add for constants with few set bits.
                if c.unsigned_abs().count_ones() > 4 {
                    return None;
                }
                let x = self.low_bits(other, cx, w)?;
                let mut acc = konst(0);
                for j in 0..w.min(63) {
                    if c.unsigned_abs() >> j & 1 == 1 {
                        acc = Blast::add(&acc, &x.shl(j), false);
                    }
                }
                if c < 0 {
                    Blast::add(&konst(0), &acc.map(|b| b.not()), true)
                } else {
                    acc
                }
            }
            Term::Bin(Shl, x, y) => {
                let c = y.as_const().filter(|c| (0..63).contains(c))?;
                self.low_bits(x, cx, w)?.shl(c as usize)
            }
            // Floor division by a power of two: the operand's bits from `c` on.
            Term::Bin(op @ (Shr | Div), x, y) => {
                let c = match (op, y.as_const()?) {
                    (Shr, c) if (0..63).contains(&c) => c,
                    (Div, c) if c > 0 && c & (c - 1) == 0 && self.nonneg(x) => i64::from(c.trailing_zeros()),
                    _ => return None,
                };
                self.low_bits(x, cx, w + c as usize)?.drop_low(c as usize)?
            }
            Term::Bin(Rem, x, y) => {
                let c = y.as_const().filter(|c| *c > 0 && c & (c - 1) == 0)?;
                if !self.nonneg(x) {
                    return None;
                }
                let m = konst(c - 1);
                self.low_bits(x, cx, w)?
                    .zip(&m, |p, q| Bool::and(&[p.clone(), q.clone()]))
            }
            Term::Ite(c, x, y) => {
                let c = self.cond(c, cx);
                let (x, y) = (self.low_bits(x, cx, w)?, self.low_bits(y, cx, w)?);
                let mut out = x.zip(&y, |p, q| c.ite(p, q));
                out.valid = vec![c.ite(&Bool::and(&x.valid), &Bool::and(&y.valid))];
                out
            }
            Term::Table(k, entries, tail) => {
                let kv = self.iter(k, cx);
                // Past the table (a tail without bits), no facts.
                let mut out = match self.low_bits(tail, cx, w) {
                    Some(b) => b,
                    None => {
                        let mut b = konst(0);
                        b.valid = vec![self.iter_lt(&kv, &self.inum(entries.len() as i64))];
                        b
                    }
                };
                for (i, e) in entries.iter().enumerate().rev() {
                    let e = self.low_bits(e, cx, w)?;
                    let hit = kv.eq(&self.inum(i as i64));
                    let mut next = e.zip(&out, |p, q| hit.ite(p, q));
                    next.valid = vec![hit.ite(&Bool::and(&e.valid), &Bool::and(&out.valid))];
                    out = next;
                }
                out
            }
            _ => return None,
        })
    }

    /// Bits needed for values below `n`: fewer when `n` is a known constant.
    fn width_below(&self, n: &Val) -> usize {
        match n {
            Val::I(x) => x
                .as_i64()
                .map_or(32, |v| (64 - (v.clamp(1, 1 << 32) - 1).leading_zeros()) as usize),
            Val::B(_) => 32,
        }
    }
}

/// Index bits compared by [`Encoder::same_index_bits`]: shared-memory indices are
/// far below `2^24`.
const INDEX_BITS: usize = 24;

/// The low bits of a value ([`Encoder::low_bits`]), valid where all of `valid` hold.
#[derive(Clone)]
pub(super) struct Blast {
    bits: Vec<Bool>,
    valid: Vec<Bool>,
}

impl Blast {
    fn of(bits: Vec<Bool>) -> Blast {
        Blast {
            bits,
            valid: Vec::new(),
        }
    }

    fn map(&self, f: impl Fn(&Bool) -> Bool) -> Blast {
        Blast {
            bits: self.bits.iter().map(f).collect(),
            valid: self.valid.clone(),
        }
    }

    fn zip(&self, o: &Blast, f: impl Fn(&Bool, &Bool) -> Bool) -> Blast {
        let mut valid = self.valid.clone();
        valid.extend(o.valid.iter().cloned());
        Blast {
            bits: self.bits.iter().zip(&o.bits).map(|(p, q)| f(p, q)).collect(),
            valid,
        }
    }

    /// Times `2^c`, same width.
    fn shl(&self, c: usize) -> Blast {
        let w = self.bits.len();
        let f = Bool::from_bool(false);
        let bits = (0..w)
            .map(|j| {
                if j < c {
                    f.clone()
                } else {
                    self.bits[j - c].clone()
                }
            })
            .collect();
        Blast {
            bits,
            valid: self.valid.clone(),
        }
    }

    /// Without the `c` lowest bits (a floor division by `2^c`, `c` bits narrower).
    fn drop_low(&self, c: usize) -> Option<Blast> {
        Some(Blast {
            bits: self.bits.get(c..)?.to_vec(),
            valid: self.valid.clone(),
        })
    }

    /// `x + y (+ 1)`, ripple carry, modulo `2^w`.
    fn add(x: &Blast, y: &Blast, carry_in: bool) -> Blast {
        let mut carry = Bool::from_bool(carry_in);
        let mut bits = Vec::with_capacity(x.bits.len());
        for (p, q) in x.bits.iter().zip(&y.bits) {
            bits.push(p.xor(q).xor(&carry));
            carry = Bool::or(&[
                Bool::and(&[p.clone(), q.clone()]),
                Bool::and(&[carry.clone(), p.xor(q)]),
            ]);
        }
        let mut valid = x.valid.clone();
        valid.extend(y.valid.iter().cloned());
        Blast { bits, valid }
    }
}
