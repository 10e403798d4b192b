//! Arithmetic in Z3: C's truncating division, shifts and constant masks, bitwise
//! operations with their sound bounds, conversions, and the lemmas about products,
//! under both unbounded and 32-bit wrapping arithmetic.

use std::rc::Rc;

use kpl::{BinOp, UnOp};
use z3::ast::{Ast, BV, Bool, Int};
use z3::{FuncDecl, Sort};

use super::super::term::{T, Term};
use super::{Encoder, Val};

pub(super) const U32_MAX: i64 = 0xFFFF_FFFF;

/// `a / 0` or `a % 0`: an unknown function of the dividend, the same for every thread
/// (the meaning both oracles give it; see the deviations in `verifier/mod.rs`).
fn div_by_zero(op: BinOp, sort: &Sort, a: &dyn Ast) -> z3::ast::Dynamic {
    let name = if op == BinOp::Div {
        "div_by_zero"
    } else {
        "rem_by_zero"
    };
    FuncDecl::new(name, &[sort], sort).apply(&[a])
}

/// `x` converted to `ty` ([`kpl::IntTy::convert`]) on integers: one `ite` when the
/// operand's `range` shows at most one wrap-around; otherwise `x - 2^w·k` for a fresh
/// integer `k` with the result in the type's range (linear, unlike Z3's `mod`), the
/// constraint on `k` pushed to `facts`.
pub(super) fn int_cast(ty: kpl::IntTy, x: &Int, range: Option<(i128, i128)>, facts: &mut Vec<Bool>) -> Int {
    let (min, max, m) = (ty.min(), ty.max(), ty.modulus());
    let (minv, maxv, mv) = (Int::from_i128(min), Int::from_i128(max), Int::from_i128(m));
    match range {
        Some((lo, hi)) if lo >= min && hi <= max => x.clone(),
        Some((lo, hi)) if lo >= min && hi <= max + m => x.gt(&maxv).ite(&(x - &mv), x),
        Some((lo, hi)) if lo >= min - m && hi <= max => x.lt(&minv).ite(&(x + &mv), x),
        _ => {
            let k = Int::fresh_const("wraps");
            let r = x - &mv * &k;
            facts.push(Bool::and(&[r.ge(&minv), r.le(&maxv)]));
            r
        }
    }
}

impl Encoder<'_> {
    /// Whether a term is nonnegative in every execution (thread and block ids, sizes,
    /// parameters and iteration numbers are).
    pub(super) fn nonneg(&mut self, t: &T) -> bool {
        use BinOp::*;
        if let Some(v) = self.nonneg_memo.get(&Rc::as_ptr(t)) {
            return *v;
        }
        let v = match &**t {
            Term::Const(v) => *v >= 0,
            Term::Builtin(_) | Term::Iter(_) | Term::InLoop(_) => true,
            Term::Param(_, ty) | Term::Cast(ty, _) => !ty.signed,
            Term::IterAdd(k, off) => *off >= 0 && self.nonneg(k),
            Term::Atom(id, _) => self.sum.atoms.get(*id).is_some_and(|a| a.is_iteration()),
            Term::Un(UnOp::Not, _) => true,
            Term::Un(..) => false,
            Term::Bin(Eq | Ne | Lt | Le | Gt | Ge | And | Or, _, _) => true,
            Term::Bin(Add | Mul | BitOr | BitXor, x, y) => self.nonneg(x) && self.nonneg(y),
            // A zero divisor or an undefined shift gives an arbitrary value.
            Term::Bin(Div | Rem, x, y) => y.as_const().is_some_and(|c| c > 0) && self.nonneg(x),
            Term::Bin(Shl | Shr, x, y) => {
                y.as_const().is_some_and(|c| (0..63).contains(&c)) && self.nonneg(x)
            }
            Term::Bin(BitAnd, x, y) => self.nonneg(x) || self.nonneg(y),
            Term::Bin(Sub, ..) => false,
            Term::Ite(_, x, y) => self.nonneg(x) && self.nonneg(y),
            Term::Table(_, entries, tail) => entries.iter().all(|e| self.nonneg(e)) && self.nonneg(tail),
            Term::Pow2(_) => true,
        };
        self.keep(t);
        self.nonneg_memo.insert(Rc::as_ptr(t), v);
        v
    }

    /// A fresh unknown value (of the sort of the arithmetic).
    pub fn fresh_val(&mut self, name: &str) -> Val {
        if self.wrap {
            Val::B(BV::fresh_const(name, 32))
        } else {
            Val::I(Int::fresh_const(name))
        }
    }

    /// `x op y` where `cx`/`cy` are the operands' values when they are constants.
    pub(super) fn arith(&mut self, op: BinOp, x: Val, y: Val, cx: Option<i64>, cy: Option<i64>) -> Val {
        use BinOp::*;
        match (x, y) {
            (Val::B(a), Val::B(b)) => {
                let zero = BV::from_i64(0, 32);
                match op {
                    Add => Val::B(a + b),
                    Sub => Val::B(a.bvsub(&b)),
                    Mul => Val::B(a * b),
                    Div | Rem => {
                        let q = if op == Div { a.bvudiv(&b) } else { a.bvurem(&b) };
                        if cy.is_some_and(|c| c != 0) {
                            Val::B(q)
                        } else {
                            let any = div_by_zero(op, &Sort::bitvector(32), &a).as_bv();
                            match any {
                                Some(any) => Val::B(b.eq(&zero).ite(&any, &q)),
                                None => self.fresh_val("divzero"),
                            }
                        }
                    }
                    BitAnd => Val::B(a & b),
                    BitOr => Val::B(a | b),
                    BitXor => Val::B(a ^ b),
                    Shl => Val::B(a.bvshl(&b)),
                    Shr => Val::B(a.bvlshr(&b)),
                    _ => Val::B(zero),
                }
            }
            (x, y) => {
                let (a, b) = (x.i(), y.i());
                Val::I(self.int_arith(op, a, b, cx, cy))
            }
        }
    }

    fn int_arith(&mut self, op: BinOp, a: Int, b: Int, ca: Option<i64>, cb: Option<i64>) -> Int {
        use BinOp::*;
        match op {
            Add => a + b,
            Sub => a - b,
            Mul => {
                let p = &a * &b;
                if ca.is_none() && cb.is_none() {
                    self.products.push((a, b, p.clone()));
                }
                p
            }
            Div | Rem => {
                let q = match cb {
                    Some(c) if c != 0 => tdiv_const(&a, c),
                    _ => tdiv(&a, &b),
                };
                let r = if op == Div { q } else { &a - &b * q };
                if cb.is_some_and(|c| c != 0) {
                    r
                } else {
                    match div_by_zero(op, &Sort::int(), &a).as_int() {
                        Some(any) => b.eq(0).ite(&any, &r),
                        None => Int::fresh_const("divzero"),
                    }
                }
            }
            BitAnd | BitOr | BitXor => {
                let (var, c) = match (ca, cb) {
                    (_, Some(c)) => (a.clone(), Some(c)),
                    (Some(c), _) => (b.clone(), Some(c)),
                    _ => (a.clone(), None),
                };
                match c {
                    Some(c) => {
                        let and = and_const(&var, c);
                        match op {
                            BitAnd => and,
                            BitOr => &var + c - and,
                            _ => &var + c - and * 2,
                        }
                    }
                    None => self.bitop(op, &a, &b),
                }
            }
            Shl | Shr => match cb {
                Some(c) if (0..63).contains(&c) => shift_const(op, &a, c),
                Some(_) => Int::fresh_const("shift"),
                None => {
                    let mut out = Int::fresh_const("shift");
                    for c in (0..=32).rev() {
                        out = b.eq(c).ite(&shift_const(op, &a, c), &out);
                    }
                    out
                }
            },
            _ => Int::from_i64(0),
        }
    }

    /// A bitwise operation of two variable operands: an uninterpreted function (so equal
    /// operands give equal results) with bounds that hold on two's complement integers.
    fn bitop(&mut self, op: BinOp, a: &Int, b: &Int) -> Int {
        let name = match op {
            BinOp::BitAnd => "bvand",
            BinOp::BitOr => "bvor",
            _ => "bvxor",
        };
        let f = self
            .bitops
            .entry(name)
            .or_insert_with(|| FuncDecl::new(name, &[&Sort::int(), &Sort::int()], &Sort::int()));
        let r = f
            .apply(&[a as &dyn Ast, b as &dyn Ast])
            .as_int()
            .unwrap_or_else(|| Int::fresh_const("bitop"));
        self.facts.extend(bitop_facts(op, a, b, &r));
        r
    }
}

/// C division (truncating) by a nonzero constant.
pub(super) fn tdiv_const(a: &Int, c: i64) -> Int {
    let m = Int::from_i128((c as i128).abs());
    let pos = a.div(&m);
    let neg = -((-a).div(&m));
    let q = a.ge(0).ite(&pos, &neg);
    if c < 0 { -q } else { q }
}

/// C division (truncating) by a nonzero value.
pub(super) fn tdiv(a: &Int, b: &Int) -> Int {
    let (na, nb) = (-a, -b);
    a.ge(0).ite(
        &b.gt(0).ite(&a.div(b), &-(a.div(&nb))),
        &b.gt(0).ite(&-(na.div(b)), &na.div(&nb)),
    )
}

/// The lemmas of [`Encoder::product_lemmas`] for products `p = x·y` (as Z3 terms: the
/// factors are compared syntactically, so a common factor is one term). Pure, so that
/// every lemma can be checked on concrete integers (the tests below).
pub(super) fn product_facts(prods: &[(Int, Int, Int)]) -> Vec<Bool> {
    let mut out = Vec::new();
    for (i, (x1, y1, p1)) in prods.iter().enumerate() {
        let mut facts = vec![
            Bool::and(&[x1.ge(0), y1.ge(0)]).implies(p1.ge(0)),
            Bool::and(&[x1.ge(1), y1.ge(0)]).implies(p1.ge(y1)),
            Bool::and(&[y1.ge(1), x1.ge(0)]).implies(p1.ge(x1)),
        ];
        for (x2, y2, p2) in &prods[i + 1..] {
            for (f1, g1, f2, g2) in [
                (x1, y1, x2, y2),
                (x1, y1, y2, x2),
                (y1, x1, x2, y2),
                (y1, x1, y2, x2),
            ] {
                if !f1.ast_eq(f2) {
                    continue;
                }
                let f = f1;
                let pos = f.ge(1);
                let neg = f.le(-1);
                facts.push(g1.eq(g2).implies(p1.eq(p2)));
                facts.push(Bool::and(&[pos.clone(), g1.lt(g2)]).implies((p1 + f).le(p2)));
                facts.push(Bool::and(&[pos, g2.lt(g1)]).implies((p2 + f).le(p1)));
                // A negative factor reverses the order: `g1 < g2` gives
                // `p1 - p2 = (g1 - g2)·f ≥ -f`.
                facts.push(Bool::and(&[neg.clone(), g1.lt(g2)]).implies((p2 - f).le(p1)));
                facts.push(Bool::and(&[neg, g2.lt(g1)]).implies((p1 - f).le(p2)));
                break;
            }
        }
        out.extend(facts);
    }
    out
}

/// What is true of `r = a op b` for a bitwise `op` on two's complement integers of any
/// width ([`Encoder::bitop`]). Pure, so that the tests check it on concrete values.
pub(super) fn bitop_facts(op: BinOp, a: &Int, b: &Int, r: &Int) -> Vec<Bool> {
    let (an, bn) = (a.ge(0), b.ge(0));
    match op {
        BinOp::BitAnd => vec![
            an.implies(Bool::and(&[r.ge(0), r.le(a)])),
            bn.implies(Bool::and(&[r.ge(0), r.le(b)])),
            Bool::and(&[an.not(), bn.not()]).implies(Bool::and(&[r.lt(0), r.le(a), r.le(b)])),
            a.eq(b).implies(r.eq(a)),
        ],
        BinOp::BitOr => vec![
            Bool::and(&[an.clone(), bn.clone()]).implies(Bool::and(&[r.ge(a), r.ge(b), r.le(a + b)])),
            Bool::or(&[an.not(), bn.not()]).implies(r.lt(0)),
            a.eq(b).implies(r.eq(a)),
        ],
        _ => vec![
            Bool::and(&[an.clone(), bn.clone()]).implies(Bool::and(&[r.ge(0), r.le(a + b)])),
            an.iff(&bn).implies(r.ge(0)),
            an.iff(&bn).not().implies(r.lt(0)),
            a.eq(b).implies(r.eq(0)),
        ],
    }
}

/// `a << c` is `a·2^c`; `a >> c` is `⌊a / 2^c⌋` (Z3's `div` by a positive number floors).
pub(super) fn shift_const(op: BinOp, a: &Int, c: i64) -> Int {
    let p = Int::from_i128(1i128 << c);
    if op == BinOp::Shl { a * p } else { a.div(&p) }
}

/// `a & c` for a constant `c`, exactly, on two's complement integers: every run of
/// ones `[lo, hi]` in `c` contributes `((a div 2^lo) mod 2^(hi-lo+1))·2^lo`.
pub(super) fn and_const(a: &Int, c: i64) -> Int {
    if c == 0 {
        return Int::from_i64(0);
    }
    if c == -1 {
        return a.clone();
    }
    if c < 0 {
        return a - and_const(a, !c);
    }
    let mut terms = Vec::new();
    let mut bit = 0;
    while bit < 63 {
        if c >> bit & 1 == 0 {
            bit += 1;
            continue;
        }
        let lo = bit;
        while bit < 63 && c >> bit & 1 == 1 {
            bit += 1;
        }
        let width = bit - lo;
        let low = Int::from_i128(1i128 << lo);
        let run = Int::from_i128(1i128 << width);
        let part = if lo == 0 {
            a.modulo(&run)
        } else {
            a.div(&low).modulo(&run) * low
        };
        terms.push(part);
    }
    if terms.len() == 1 {
        terms.pop().unwrap_or_else(|| Int::from_i64(0))
    } else {
        sum(&terms)
    }
}

/// `Σ terms`, 0 for none (Z3 has no empty sum: `Int::add(&[])` fails). An id of a
/// launch dimension of size 1 has no bits, and `x & 0` no runs of ones.
pub(super) fn sum(terms: &[Int]) -> Int {
    if terms.is_empty() {
        Int::from_i64(0)
    } else {
        Int::add(terms)
    }
}

/// `f(args)` as a value: a 32-bit vector under `--wrap`, else an integer (the sort every
/// function the encoder declares for atoms ranges over).
pub(super) fn apply_value(f: &FuncDecl, args: &[Val], wrap: bool) -> Val {
    let refs: Vec<&dyn Ast> = args
        .iter()
        .map(|v| match v {
            Val::I(x) => x as &dyn Ast,
            Val::B(x) => x as &dyn Ast,
        })
        .collect();
    let app = f.apply(&refs);
    if wrap {
        Val::B(app.as_bv().unwrap_or_else(|| BV::fresh_const("bad", 32)))
    } else {
        Val::I(app.as_int().unwrap_or_else(|| Int::fresh_const("bad")))
    }
}
