//! Digit lemmas: why two threads that compute one index with `/` and `%` and symbolic
//! extents never meet, stated as implications the race queries add as facts.
//!
//! Today's kernels index with a flat thread number `i` taken apart and put together again:
//! `b = i / (T*V); t = (i / V) % T; v = i % V;` then `out[b*T*V + t*V + v]`, or in another
//! order (`out[v*T*B + t*B + b]`: a permutation), or a grid-stride loop
//! (`out[i + k*bdim*gdim]`). With parameters for the extents these are nonlinear integer
//! queries the solver does not decide within any budget. They are decided here by two
//! lemmas over the *shape* of the index, each an implication between the two thread copies
//! of a query whose premises the solver still checks:
//!
//! 1. **Mixed radix.** An index `U + Σ w_k·D_k` whose weights form a chain
//!    (`w_{k+1}` a multiple of `w_k·R_k`, as monomials) where every digit but the last
//!    differs by less than its extent `R_k` between the two threads (`threadIdx` below
//!    `blockDim`, an iteration below its loop bound, `(x / P) % R` for `x ≥ 0`, a term the
//!    predicate bounds, `col < V`, or the quotient `y / d` of one, `y < Q`) is equal in
//!    the two threads only if every digit is: if `k0` is the lowest digit that differs,
//!    `w_{k0}·(D_{k0} - D'_{k0})` is a multiple of `w_{k0}·R_{k0}`, which a nonzero difference
//!    smaller than `|R_{k0}|` is not. Premises: the weights and extents are nonzero, `U`
//!    (the part without digits) is equal in both threads, the digit ranges.
//! 2. **Recomposition.** Digits `(x / P_j) % R_j` of one base `x ≥ 0` with
//!    `P_0 = 1`, `P_{j+1} = P_j·R_j` and a last digit `x / P_n` (or `(x / P_n) % R_n` with
//!    `x < P_n·R_n`) determine `x` (`x = Σ P_j·D_j`, C's `(y / R)·R + y % R = y`); equal
//!    digits give equal bases. Premises: the divisors are nonzero, `x ≥ 0` in both threads.
//!
//! Digits of one base are recognised through the identities C's truncating division
//! satisfies when the dividend's sign is the same in both threads (it is: `x ≥ 0` and the
//! divisors are uniform): `(y / A) / B = y / (A·B)`, `(y % (A·B)) / B = (y / B) % A`,
//! `(y % (A·B)) % B = y % B`, and of a base `x ≥ 0` also `x >> s = x / 2^s` and
//! `x & (2^s - 1) = x % 2^s`. A base is then itself an index (`blockIdx.x * blockDim.x +
//! threadIdx.x`), and lemma 1 applies to it again, as it does to a bounded digit made
//! of other digits (`col` of a 2-d launch). A query that would race shows it: the
//! premises are checked, never assumed, so a lemma whose premise fails adds nothing.
//!
//! Two refinements of lemma 1. A digit's extent may come from another digit's: a loop
//! over the keys up to the query (`for (k = 0; k <= q; k++)`, `q = (i / H) % T`) has `k`
//! below `T`, the premise being `0 <= k < T` itself. A digit below the highest with no
//! extent at all moves into `U`, which both threads must agree on (the same iteration of
//! its loop, the same warp). And two accesses whose indices are different terms (a write in one loop
//! and a read in the next, each with its own counter) get the *pair lemma* when their
//! digits have the same weights and extents, digit by digit: equal indices and equal
//! `U`s give equal digits pairwise, each digit's range checked in its own thread.
//!
//! Only for unbounded arithmetic (under `--wrap` the polynomial identities hold modulo
//! 2^32 only).

use std::rc::Rc;

use kpl::{Arith, BinOp, Builtin, UnOp};

use super::symbolic::Summary;
use super::term::{Builder, Class, T, Term, any_node};

/// A product of factors with an integer coefficient: `coeff · Π factors`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Monomial {
    pub coeff: i128,
    pub factors: Vec<T>,
}

impl Monomial {
    fn one() -> Monomial {
        Monomial {
            coeff: 1,
            factors: Vec::new(),
        }
    }

    fn constant(c: i128) -> Monomial {
        Monomial {
            coeff: c,
            factors: Vec::new(),
        }
    }

    fn times(&self, o: &Monomial) -> Option<Monomial> {
        let mut factors = self.factors.clone();
        factors.extend(o.factors.iter().cloned());
        Some(Monomial {
            coeff: self.coeff.checked_mul(o.coeff)?,
            factors,
        })
    }

    /// Whether the factors are the same multiset.
    fn same_factors(&self, o: &Monomial) -> bool {
        self.factors.len() == o.factors.len()
            && minus(&o.factors, &self.factors).is_some_and(|r| r.is_empty())
    }

    /// `self = d · q` for a monomial `q`: `d`'s factors are among `self`'s and its
    /// coefficient divides `self`'s.
    fn divisible_by(&self, d: &Monomial) -> bool {
        d.coeff != 0 && self.coeff % d.coeff == 0 && minus(&self.factors, &d.factors).is_some()
    }

    /// The monomial as a term; `None` when its coefficient does not fit a constant.
    fn term(&self, b: &Builder) -> Option<T> {
        let mut t = b.int(i64::try_from(self.coeff).ok()?);
        for f in &self.factors {
            t = b.bin(BinOp::Mul, t, f.clone());
        }
        Some(t)
    }
}

/// `a` without the factors of `b` (as multisets); `None` when some factor of `b` is
/// missing.
fn minus(a: &[T], b: &[T]) -> Option<Vec<T>> {
    let mut rest: Vec<T> = a.to_vec();
    for f in b {
        let i = rest.iter().position(|g| Rc::ptr_eq(f, g) || f == g)?;
        rest.swap_remove(i);
    }
    Some(rest)
}

/// Terms of a polynomial: `Σ monomials`.
type Poly = Vec<Monomial>;

/// Most monomials an expansion may have (products of sums multiply).
const MAX_MONOMIALS: usize = 48;

/// `t` as a polynomial over its non-arithmetic subterms (exact in unbounded arithmetic).
fn expand(b: &Builder, t: &T, depth: u32) -> Option<Poly> {
    expand_to(b, t, depth, &[])
}

/// [`expand`], keeping the subterms in `atoms` (but not `t` itself) whole.
fn expand_to(b: &Builder, t: &T, depth: u32, atoms: &[T]) -> Option<Poly> {
    if depth == 0 {
        return None;
    }
    let e = |x: &T| {
        if atoms.iter().any(|a| Rc::ptr_eq(a, x) || a == x) {
            Some(vec![atom(x)])
        } else {
            expand_to(b, x, depth - 1, atoms)
        }
    };
    let out = match &**t {
        Term::Const(c) => vec![Monomial::constant(i128::from(*c))],
        Term::Bin(BinOp::Add, x, y) => [e(x)?, e(y)?].concat(),
        Term::Bin(BinOp::Sub, x, y) => [e(x)?, negate(e(y)?)].concat(),
        Term::Un(UnOp::Neg, x) => negate(e(x)?),
        Term::Bin(BinOp::Mul, x, y) => {
            let (p, q) = (e(x)?, e(y)?);
            if p.len() * q.len() > MAX_MONOMIALS {
                return None;
            }
            let mut out = Vec::new();
            for m in &p {
                for n in &q {
                    out.push(m.times(n)?);
                }
            }
            out
        }
        Term::Bin(BinOp::Shl, x, s) => match s.as_const() {
            Some(s @ 0..=62) => {
                let k = Monomial::constant(1i128 << s);
                e(x)?.iter().map(|m| m.times(&k)).collect::<Option<Poly>>()?
            }
            _ => vec![atom(t)],
        },
        Term::Cast(ty, x)
            if b.range(x)
                .is_some_and(|(lo, hi)| lo >= ty.min() && hi <= ty.max()) =>
        {
            e(x)?
        }
        _ => vec![atom(t)],
    };
    (out.len() <= MAX_MONOMIALS).then(|| collect(out))
}

fn atom(t: &T) -> Monomial {
    Monomial {
        coeff: 1,
        factors: vec![t.clone()],
    }
}

fn negate(p: Poly) -> Poly {
    p.into_iter().map(|m| Monomial { coeff: -m.coeff, ..m }).collect()
}

/// Merges monomials with the same factors and drops zero ones.
fn collect(p: Poly) -> Poly {
    let mut out: Poly = Vec::new();
    for m in p {
        match out.iter_mut().find(|n| n.same_factors(&m)) {
            Some(n) => n.coeff += m.coeff,
            None => out.push(m),
        }
    }
    out.retain(|m| m.coeff != 0);
    out
}

/// Whether a term may differ between the two threads of a query: it involves the
/// thread's ids, its iterations or a value not every thread of the grid shares.
fn varies(sum: &Summary, t: &T) -> bool {
    any_node(t, &mut |n| match n {
        Term::Builtin(Builtin::Bdim(_) | Builtin::Gdim(_)) => false,
        Term::Builtin(_) | Term::Iter(_) | Term::IterAdd(..) | Term::InLoop(_) => true,
        Term::Atom(id, args) => sum.atom_class(*id) != Class::Grid || !args.is_empty(),
        _ => false,
    })
}

/// A condition the lemma needs, checked by the solver in the query (never assumed).
#[derive(Clone, Debug, PartialEq)]
pub enum Premise {
    /// The (uniform) term is not zero.
    NonZero(T),
    /// The term has one value in both threads.
    Same(T),
    /// The term is `≥ 0` in each thread.
    NonNeg(T),
    /// `0 ≤ x < bound` in each thread.
    Below(T, T),
    /// The condition holds in each thread.
    Holds(T),
}

/// "If the premises hold and every `from` term is equal in both threads, so is every
/// `to` term."
#[derive(Clone, Debug, PartialEq)]
pub struct Lemma {
    pub premises: Vec<Premise>,
    pub from: Vec<T>,
    pub to: Vec<T>,
}

/// A term as the digit `(base / div) % modulus` of a base (`modulus` `None`: no `%`).
#[derive(Clone, Debug)]
struct Digit {
    base: T,
    div: Monomial,
    modulus: Option<Monomial>,
    /// The factors of every divisor on the way (`(y % (A·B)) % B` drops `A`): the
    /// identities hold when none is zero.
    used: Vec<T>,
}

/// The divisor of a `/` or `%` as a monomial of grid-uniform factors.
fn divisor(sum: &Summary, b: &Builder, t: &T) -> Option<Monomial> {
    let p = expand(b, t, 8)?;
    match p.as_slice() {
        [m] if m.coeff != 0 && !m.factors.iter().any(|f| varies(sum, f)) => Some(m.clone()),
        _ => None,
    }
}

/// `t` as a digit of some base, by the identities in the module comment.
fn digit(sum: &Summary, b: &Builder, t: &T) -> Option<Digit> {
    match &**t {
        Term::Bin(op @ (BinOp::Div | BinOp::Rem), y, d) => {
            let d = divisor(sum, b, d)?;
            let inner = digit(sum, b, y).unwrap_or_else(|| plain(y));
            over(inner, *op, d)
        }
        // `y >> s` is `y / 2^s` and `y & (2^s - 1)` is `y % 2^s` for `y ≥ 0` (a premise
        // of every digit lemma about the base), but not for a quotient that may be
        // negative: only of a base.
        Term::Bin(BinOp::Shr, y, s) if digit(sum, b, y).is_none() => {
            let s = s.as_const().filter(|s| (0..62).contains(s))?;
            over(plain(y), BinOp::Div, Monomial::constant(1i128 << s))
        }
        Term::Bin(BinOp::BitAnd, x, y) => {
            let (y, mask) = match (x.as_const(), y.as_const()) {
                (None, Some(m)) => (x, m),
                (Some(m), None) => (y, m),
                _ => return None,
            };
            let low = mask.checked_add(1).filter(|p| *p > 1 && p & (p - 1) == 0)?;
            if digit(sum, b, y).is_some() {
                return None;
            }
            over(plain(y), BinOp::Rem, Monomial::constant(i128::from(low)))
        }
        _ => None,
    }
}

fn plain(y: &T) -> Digit {
    Digit {
        base: y.clone(),
        div: Monomial::one(),
        modulus: None,
        used: Vec::new(),
    }
}

/// `inner / d` or `inner % d` as a digit of `inner`'s base.
fn over(inner: Digit, op: BinOp, d: Monomial) -> Option<Digit> {
    let Digit {
        base,
        div,
        modulus,
        mut used,
    } = inner;
    used.extend(d.factors.iter().cloned());
    match (op, modulus) {
        (BinOp::Div, None) => Some(Digit {
            base,
            div: div.times(&d)?,
            modulus: None,
            used,
        }),
        (BinOp::Rem, None) => Some(Digit {
            base,
            div,
            modulus: Some(d),
            used,
        }),
        // (y % (A·d)) / d = (y / d) % A
        (BinOp::Div, Some(m)) if m.divisible_by(&d) => {
            let a = Monomial {
                coeff: m.coeff / d.coeff,
                factors: minus(&m.factors, &d.factors)?,
            };
            Some(Digit {
                base,
                div: div.times(&d)?,
                modulus: Some(a),
                used,
            })
        }
        // (y % (A·d)) % d = y % d
        (BinOp::Rem, Some(m)) if m.divisible_by(&d) => Some(Digit {
            base,
            div,
            modulus: Some(d),
            used,
        }),
        _ => None,
    }
}

fn nonzero_all(fs: &[T]) -> Vec<Premise> {
    fs.iter().map(|f| Premise::NonZero(f.clone())).collect()
}

/// A digit of an index with what keeps it apart between two threads: its extent (two
/// threads' values differ by less than it) and the premises of that.
struct Ranged {
    term: T,
    weight: Monomial,
    extent: Option<Monomial>,
    premises: Vec<Premise>,
}

/// The extent of a digit term and its premises; `None` when the digit has no known
/// extent (it can then only be the highest digit).
fn extent(sum: &Summary, b: &Builder, t: &T, pred: &T) -> Option<(Monomial, Vec<Premise>)> {
    extent_at(sum, b, t, pred, 2)
}

/// [`extent`], looking through at most `depth` bounds that are terms with an extent of
/// their own (a predicate can state a cycle of bounds).
fn extent_at(sum: &Summary, b: &Builder, t: &T, pred: &T, depth: u32) -> Option<(Monomial, Vec<Premise>)> {
    match &**t {
        Term::Builtin(Builtin::Tid(d)) => Some((launch_size(b, true, d.index()), Vec::new())),
        Term::Builtin(Builtin::Bid(d)) => Some((launch_size(b, false, d.index()), Vec::new())),
        Term::Iter(_) => bounded_extent(sum, b, t, pred, depth),
        _ => {
            if let Some(d) = digit(sum, b, t)
                && let Some(m) = d.modulus.clone()
            {
                let mut premises = vec![Premise::NonNeg(d.base.clone())];
                premises.extend(nonzero_all(&d.used));
                return Some((m, premises));
            }
            // A term the predicate bounds (`col` of `if (col >= V) return;`).
            if upper_bound(b, t, pred).is_some() {
                return bounded_extent(sum, b, t, pred, depth);
            }
            // `y / d` for a bounded `y ≥ 0` (`b = warp / H` below `warp < B*H`): in
            // `[0, Q/d)` or `(Q/d, 0]`, by the sign of `d`.
            let Term::Bin(BinOp::Div, y, d) = &**t else {
                return None;
            };
            let bound = upper_bound(b, y, pred)?;
            let (q, d) = (divisor(sum, b, &bound)?, divisor(sum, b, d)?);
            if !q.divisible_by(&d) {
                return None;
            }
            let r = Monomial {
                coeff: q.coeff / d.coeff,
                factors: minus(&q.factors, &d.factors)?,
            };
            let mut premises = vec![Premise::Below(y.clone(), bound)];
            premises.extend(nonzero(&d));
            Some((r, premises))
        }
    }
}

fn launch_size(b: &Builder, block: bool, d: usize) -> Monomial {
    let known = if block { b.block_dim[d] } else { b.grid_dim[d] };
    match known {
        Some(c) => Monomial::constant(i128::from(c)),
        None => {
            let dim = kpl::Dim::ALL[d];
            let t = Rc::new(Term::Builtin(if block {
                Builtin::Bdim(dim)
            } else {
                Builtin::Gdim(dim)
            }));
            Monomial {
                coeff: 1,
                factors: vec![t],
            }
        }
    }
}

/// `bound` when the predicate implies `x < bound` by one of its literals (`x < bound`,
/// `!(x >= bound)`, `!(x >= bound || ...)`, ...).
fn upper_bound(b: &Builder, x: &T, pred: &T) -> Option<T> {
    let same = |t: &T| Rc::ptr_eq(t, x) || t == x;
    let strict = |facts: &[(T, bool)]| {
        facts.iter().find_map(|(c, truth)| match (&**c, truth) {
            (Term::Bin(BinOp::Lt, l, r), true) | (Term::Bin(BinOp::Ge, l, r), false) if same(l) => {
                Some(r.clone())
            }
            (Term::Bin(BinOp::Gt, l, r), true) | (Term::Bin(BinOp::Le, l, r), false) if same(r) => {
                Some(l.clone())
            }
            _ => None,
        })
    };
    // `x <= y` (a causal loop `for (t2 = 0; t2 <= t; ...)`) bounds `x` by `y + 1`.
    let weak = |facts: &[(T, bool)]| {
        facts.iter().find_map(|(c, truth)| match (&**c, truth) {
            (Term::Bin(BinOp::Le, l, r), true) | (Term::Bin(BinOp::Gt, l, r), false) if same(l) => {
                Some(r.clone())
            }
            (Term::Bin(BinOp::Ge, l, r), true) | (Term::Bin(BinOp::Lt, l, r), false) if same(r) => {
                Some(l.clone())
            }
            _ => None,
        })
    };
    let facts = literals(pred);
    strict(&facts).or_else(|| weak(&facts).map(|y| b.bin(BinOp::Add, y, b.int(1))))
}

/// The extent of a term `t` the predicate bounds (`t < B`, or `t <= y`): `B` when it is
/// a uniform monomial, else the extent of the bound's variable part when that has one
/// (`t2 <= t` with `t = (i / V) % T` below `T`), `depth` levels down. The premise is
/// then `0 <= t < extent` itself, which the solver checks (it follows from the bound's).
fn bounded_extent(
    sum: &Summary,
    b: &Builder,
    t: &T,
    pred: &T,
    depth: u32,
) -> Option<(Monomial, Vec<Premise>)> {
    let bound = upper_bound(b, t, pred)?;
    if let Some(m) = divisor(sum, b, &bound) {
        return Some((m, vec![Premise::Below(t.clone(), bound)]));
    }
    if depth == 0 {
        return None;
    }
    let y = match &*bound {
        Term::Bin(BinOp::Add, y, one) if one.as_const() == Some(1) => y.clone(),
        _ => bound.clone(),
    };
    let (m, _) = extent_at(sum, b, &y, pred, depth - 1)?;
    let below = Premise::Below(t.clone(), m.term(b)?);
    Some((m, vec![below]))
}

/// The conditions a predicate implies, with their truth: itself, the operands of a
/// conjunction (true) and of a negated disjunction (false), through negations.
fn literals(pred: &T) -> Vec<(T, bool)> {
    fn go(t: &T, truth: bool, out: &mut Vec<(T, bool)>) {
        out.push((t.clone(), truth));
        match (&**t, truth) {
            (Term::Bin(BinOp::And, a, b), true) | (Term::Bin(BinOp::Or, a, b), false) => {
                go(a, truth, out);
                go(b, truth, out);
            }
            (Term::Un(UnOp::Not, x), _) => go(x, !truth, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    go(pred, true, &mut out);
    out
}

/// `t` with every `c ? a : b` whose condition the predicate decides
/// ([`literals`]) replaced by its branch: the value `t` has wherever `pred` holds.
/// Predicated execution merges a variable assigned after an early `return` as
/// `guard ? new : old`.
fn under(b: &Builder, pred: &T, t: &T) -> T {
    let facts = literals(pred);
    super::term::Rewriter::new(*b, |_, n| match &**n {
        Term::Ite(c, x, y) => facts
            .iter()
            .find(|(f, _)| Rc::ptr_eq(f, c) || f == c)
            .map(|(_, holds)| if *holds { x.clone() } else { y.clone() }),
        _ => None,
    })
    .run(t)
}

fn nonzero(m: &Monomial) -> Vec<Premise> {
    m.factors.iter().map(|f| Premise::NonZero(f.clone())).collect()
}

/// Lemma 1 for an index: `None` unless the index is a mixed-radix number with at least
/// one digit.
fn mixed_radix(sum: &Summary, b: &Builder, index: &T, pred: &T) -> Option<(Lemma, Vec<T>)> {
    let r = radix(sum, b, index, pred)?;
    let terms: Vec<T> = r.digits.iter().map(|d| d.term.clone()).collect();
    let mut premises = r.chain;
    premises.extend(r.weights.into_iter().map(Premise::Same));
    let lemma = Lemma {
        premises,
        from: vec![index.clone(), r.rest],
        to: terms.clone(),
    };
    Some((lemma, terms))
}

/// An index as a mixed-radix number `U + Σ w_k·D_k` (lemma 1's shape).
struct Radix {
    /// `U`, the part without digits.
    rest: T,
    /// `U`'s monomials.
    uniform: Vec<Monomial>,
    /// The digits, lowest weight first.
    digits: Vec<Ranged>,
    /// The premises of the chain in one thread: nonzero weights and extents, the
    /// digits' ranges (all but the highest digit's).
    chain: Vec<Premise>,
    /// The weights' factors, which must be equal in both threads.
    weights: Vec<T>,
}

fn radix(sum: &Summary, b: &Builder, index: &T, pred: &T) -> Option<Radix> {
    // Subterms the predicate bounds are digits of their own (`col` below `V`).
    let bounded: Vec<T> = literals(pred)
        .into_iter()
        .filter_map(|(c, truth)| match (&*c, truth) {
            (Term::Bin(BinOp::Lt, x, _), true) | (Term::Bin(BinOp::Ge, x, _), false) => Some(x.clone()),
            (Term::Bin(BinOp::Gt, _, x), true) | (Term::Bin(BinOp::Le, _, x), false) => Some(x.clone()),
            _ => None,
        })
        .filter(|x| x != index && varies(sum, x))
        .collect();
    let poly = expand_to(b, index, 12, &bounded)?;
    let mut uniform = Vec::new();
    let mut digits: Vec<Ranged> = Vec::new();
    for m in poly {
        let (vary, fixed): (Vec<T>, Vec<T>) = m.factors.iter().cloned().partition(|f| varies(sum, f));
        match vary.as_slice() {
            [] => uniform.push(m),
            [d] => {
                let weight = Monomial {
                    coeff: m.coeff,
                    factors: fixed,
                };
                let (extent, premises) = match extent(sum, b, d, pred) {
                    Some((e, p)) => (Some(e), p),
                    None => (None, Vec::new()),
                };
                if digits.iter().any(|r| r.term == *d) {
                    return None;
                }
                digits.push(Ranged {
                    term: d.clone(),
                    weight,
                    extent,
                    premises,
                });
            }
            _ => return None,
        }
    }
    digits.sort_by_key(|r| (r.weight.factors.len(), r.weight.coeff.unsigned_abs()));
    // A digit below the highest with no extent (an iteration of a loop bounded by a
    // product, a warp's number `tid / 32` in its block) joins `U`, which must be equal
    // in both threads: it is when both threads are in the same iteration of that loop,
    // or in the same warp.
    let top = digits.len().saturating_sub(1);
    let mut kept = Vec::new();
    for (k, r) in digits.into_iter().enumerate() {
        if k < top && r.extent.is_none() {
            uniform.push(r.weight.times(&Monomial {
                coeff: 1,
                factors: vec![r.term],
            })?);
        } else {
            kept.push(r);
        }
    }
    let digits = kept;
    if digits.is_empty() {
        return None;
    }
    let mut chain = Vec::new();
    let mut weights = Vec::new();
    for (k, r) in digits.iter().enumerate() {
        chain.extend(nonzero(&r.weight));
        weights.extend(r.weight.factors.iter().cloned());
        if let Some(next) = digits.get(k + 1) {
            let step = r.weight.times(r.extent.as_ref()?)?;
            if !next.weight.divisible_by(&step) {
                return None;
            }
            chain.extend(nonzero(r.extent.as_ref()?));
            chain.extend(r.premises.iter().cloned());
        }
    }
    Some(Radix {
        rest: sum_of(b, &uniform)?,
        uniform,
        digits,
        chain,
        weights,
    })
}

/// `U` as a term: the sum of its monomials.
fn sum_of(b: &Builder, uniform: &[Monomial]) -> Option<T> {
    let mut rest = b.int(0);
    for m in uniform {
        rest = b.bin(BinOp::Add, rest, m.term(b)?);
    }
    Some(rest)
}

/// Offsets into a gap of the chain as constant digits of both indices: the
/// `q`/`k`/`v` slices of one buffer (`inp[i]`, `inp[i + NH*d]`, `inp[i + 2*(NH*d)]` with
/// `i = n*3*NH*d + h*d + k`). Where the weight above digit `k` is `Q` times
/// `w_k·R_k` (`Q` a constant ≥ 2), a monomial `c·w_k·R_k` of `U` with `0 <= c < Q`
/// leaves `U` and becomes a digit of value `c`, weight `w_k·R_k` and extent `Q` (one
/// of value 0 in the other index when only one has it): `U`s that differed by such
/// offsets are then equal, and the offsets' digits are compared as the others are.
/// The chain still holds (the new weight is `w_k·R_k`, the next one `Q` times it), and
/// a constant digit's range is its own (both threads' premises still ask for it).
fn gap_digits(b: &Builder, ra: &mut Radix, rb: &mut Radix) -> Option<()> {
    if ra.digits.len() != rb.digits.len() {
        return None;
    }
    for k in (0..ra.digits.len().saturating_sub(1)).rev() {
        let (lo, hi) = (&ra.digits[k], &ra.digits[k + 1]);
        let like = |x: &Monomial, y: &Monomial| x.coeff == y.coeff && x.same_factors(y);
        let (Some(extent), Some(other)) = (lo.extent.as_ref(), rb.digits[k].extent.as_ref()) else {
            continue;
        };
        if !(like(&rb.digits[k].weight, &lo.weight)
            && like(&rb.digits[k + 1].weight, &hi.weight)
            && like(other, extent))
        {
            continue;
        }
        let step = lo.weight.times(extent)?;
        let q = match (step.coeff, hi.weight.same_factors(&step)) {
            (c, true) if c != 0 && hi.weight.coeff % c == 0 => hi.weight.coeff / c,
            _ => continue,
        };
        if q < 2 {
            continue;
        }
        // The offset's coefficient in each index (0 without one); none outside [0, Q).
        let offset = |r: &Radix| -> Option<(Option<usize>, i128)> {
            match r.uniform.iter().position(|m| m.same_factors(&step)) {
                None => Some((None, 0)),
                Some(i) => {
                    let m = &r.uniform[i];
                    (m.coeff % step.coeff == 0 && (0..q).contains(&(m.coeff / step.coeff)))
                        .then(|| (Some(i), m.coeff / step.coeff))
                }
            }
        };
        let (Some(oa), Some(ob)) = (offset(ra), offset(rb)) else {
            continue;
        };
        if oa.0.is_none() && ob.0.is_none() {
            continue;
        }
        for (r, (at, c)) in [(&mut *ra, oa), (&mut *rb, ob)] {
            if let Some(i) = at {
                r.uniform.remove(i);
            }
            r.weights.extend(step.factors.iter().cloned());
            r.digits.insert(
                k + 1,
                Ranged {
                    term: b.int(i64::try_from(c).ok()?),
                    weight: step.clone(),
                    extent: Some(Monomial::constant(q)),
                    premises: Vec::new(),
                },
            );
            r.rest = sum_of(b, &r.uniform)?;
        }
    }
    Some(())
}

/// Lemma 1 across two accesses with different index terms (a write in one loop, a read
/// in the next: `row[k1]` and `row[k2]` of two loops over the keys): when both indices are
/// mixed-radix numbers with the same weights and extents, digit by digit, equal indices
/// (and equal parts without digits) mean equal digits, pairwise. The proof is lemma 1's:
/// it never uses that the two threads compute the same terms, only the weights, the
/// extents and each digit's range in its own thread.
#[derive(Clone, Debug)]
pub struct PairLemma {
    /// Premises of the first thread (evaluated in its context only), and of the second.
    pub own: [Vec<Premise>; 2],
    /// Terms equal in both threads (the weights' factors).
    pub same: Vec<T>,
    /// `(first thread's term, second thread's term)`: equal in pairs ...
    pub from: Vec<(T, T)>,
    /// ... implies equal in pairs.
    pub to: Vec<(T, T)>,
}

/// The pair lemma of two accesses' indices (each with its access's predicate), and the
/// digit lemmas below it: of the digits the two indices share (the same term), as
/// [`lemmas`] finds them below one index.
pub fn pair_lemmas(sum: &Summary, index: [&T; 2], pred: [&T; 2]) -> (Option<PairLemma>, Vec<Lemma>) {
    if sum.arith != Arith::Unbounded {
        return (None, Vec::new());
    }
    let b = sum.builder();
    let simple = [under(&b, pred[0], index[0]), under(&b, pred[1], index[1])];
    let (Some(mut ra), Some(mut rb)) = (
        radix(sum, &b, &simple[0], pred[0]),
        radix(sum, &b, &simple[1], pred[1]),
    ) else {
        return (None, Vec::new());
    };
    if gap_digits(&b, &mut ra, &mut rb).is_none() {
        return (None, Vec::new());
    }
    let top = ra.digits.len().saturating_sub(1);
    let alike = ra.digits.len() == rb.digits.len()
        && ra.digits.iter().zip(&rb.digits).enumerate().all(|(k, (x, y))| {
            let same_extent = match (&x.extent, &y.extent) {
                (Some(e), Some(f)) => e.coeff == f.coeff && e.same_factors(f),
                _ => k == top,
            };
            x.weight.coeff == y.weight.coeff && x.weight.same_factors(&y.weight) && same_extent
        });
    if !alike {
        return (None, Vec::new());
    }
    // The chain's own premises give each digit *a* range of its extent's width, but not
    // which one: `(y / d) % A` with `d < 0` lies in `(-|A|, 0]`, a thread index in
    // `[0, A)`. Digits of one term share their range; digits of two different terms
    // must be shown to, so every digit but the highest is asked to be in `[0, R)` in its
    // own thread.
    let mut own = [ra.chain, rb.chain];
    for (o, (p, r)) in own.iter_mut().zip(pred.into_iter().zip([&ra.digits, &rb.digits])) {
        o.push(Premise::Holds(p.clone()));
        for d in &r[..top] {
            let Some(extent) = d.extent.as_ref().and_then(|e| e.term(&b)) else {
                return (None, Vec::new());
            };
            o.push(Premise::Below(d.term.clone(), extent));
        }
    }
    let mut same = ra.weights;
    same.extend(rb.weights);
    let to: Vec<(T, T)> = ra
        .digits
        .iter()
        .zip(&rb.digits)
        .map(|(x, y)| (x.term.clone(), y.term.clone()))
        .collect();
    let lemma = PairLemma {
        own,
        same,
        from: vec![(index[0].clone(), index[1].clone()), (ra.rest, rb.rest)],
        to: to.clone(),
    };
    let shared: Vec<T> = to.into_iter().filter(|(x, y)| x == y).map(|(x, _)| x).collect();
    (Some(lemma), lemmas_below(sum, &b, shared, pred[0]))
}

/// Lemma 2 for every base whose digits are all among `terms`.
fn recompositions(sum: &Summary, b: &Builder, terms: &[T], pred: &T) -> Vec<(Lemma, T)> {
    let mut groups: Vec<(T, Vec<(T, Digit)>)> = Vec::new();
    for t in terms {
        let Some(d) = digit(sum, b, t) else { continue };
        match groups.iter_mut().find(|(base, _)| *base == d.base) {
            Some((_, g)) => g.push((t.clone(), d)),
            None => groups.push((d.base.clone(), vec![(t.clone(), d)])),
        }
    }
    groups
        .into_iter()
        .filter_map(|(base, mut g)| {
            g.sort_by_key(|(_, d)| (d.div.factors.len(), d.div.coeff.unsigned_abs()));
            let mut premises = vec![Premise::NonNeg(base.clone())];
            let mut at = Monomial::one();
            for (k, (_, d)) in g.iter().enumerate() {
                if d.div.coeff != at.coeff || !d.div.same_factors(&at) {
                    return None;
                }
                premises.extend(nonzero_all(&d.used));
                match (&d.modulus, k + 1 == g.len()) {
                    (Some(m), false) => {
                        premises.extend(nonzero(m));
                        at = at.times(m)?;
                    }
                    (None, true) => {}
                    (Some(m), true) => {
                        premises.extend(nonzero(m));
                        let bound = upper_bound(b, &base, pred)?;
                        let whole = at.times(m)?;
                        let q = divisor(sum, b, &bound)?;
                        if q.coeff != whole.coeff || !q.same_factors(&whole) {
                            return None;
                        }
                        premises.push(Premise::Below(base.clone(), bound));
                    }
                    (None, false) => return None,
                }
            }
            let from = g.iter().map(|(t, _)| t.clone()).collect();
            Some((
                Lemma {
                    premises,
                    from,
                    to: vec![base.clone()],
                },
                base,
            ))
        })
        .collect()
}

/// Whether a digit is made of other digits: neither an id, an iteration nor a digit of
/// a base.
fn composite(sum: &Summary, b: &Builder, d: &T) -> bool {
    !matches!(
        &**d,
        Term::Builtin(_) | Term::Iter(_) | Term::IterAdd(..) | Term::Atom(..)
    ) && digit(sum, b, d).is_none()
}

/// The digit lemmas of an index (see the module comment), outermost first: lemma 1 for
/// the index, lemma 2 for each base all of whose digits it has, lemma 1 for each such
/// base, and so on (a few levels).
pub fn lemmas(sum: &Summary, index: &T, pred: &T) -> Vec<Lemma> {
    if sum.arith != Arith::Unbounded {
        return Vec::new();
    }
    let b = sum.builder();
    let Some((mut lemma, terms)) = mixed_radix(sum, &b, &under(&b, pred, index), pred) else {
        return Vec::new();
    };
    // The index as the access computes it, equal to its simplified form where the
    // access's predicate holds.
    lemma.from[0] = index.clone();
    lemma.premises.push(Premise::Holds(pred.clone()));
    let mut out = vec![lemma];
    out.extend(lemmas_below(sum, &b, terms, pred));
    out
}

/// The lemmas below a mixed-radix index whose digits are `terms`: lemma 2 for each base
/// all of whose digits are among them, lemma 1 for each such base and for each digit
/// that is an index of its own, and so on (a few levels).
fn lemmas_below(sum: &Summary, b: &Builder, terms: Vec<T>, pred: &T) -> Vec<Lemma> {
    let mut out = Vec::new();
    let mut digits = vec![terms];
    for level in 1..=4 {
        let mut next = Vec::new();
        for terms in digits {
            for (lemma, base) in recompositions(sum, b, &terms, pred) {
                out.push(lemma);
                next.push(base);
            }
            // A digit that is a whole index of its own (`col = bid.x * bdim.x + tid.x`).
            next.extend(terms.iter().filter(|d| composite(sum, b, d)).cloned());
        }
        digits = Vec::new();
        if level == 4 {
            break;
        }
        for t in next {
            if let Some((lemma, terms)) = mixed_radix(sum, b, &t, pred) {
                out.push(lemma);
                digits.push(terms);
            }
        }
        if digits.is_empty() {
            break;
        }
    }
    out
}
