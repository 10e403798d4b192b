//! A dependence test without the solver: when two accesses' indices are affine in the
//! thread and block ids, the launch sizes and the parameters (`A[tid + 3 * bdim]`,
//! `s[ty * 16 + tx]`), simple arithmetic often shows that no two distinct threads can
//! ever touch the same element, whatever the iterations, predicates and barriers. Such
//! pairs need no race query at all (every race type of theirs would be unsatisfiable).
//!
//! Three tests, all sound for every value the launch and the parameter types allow (the
//! facts of [`super::encode::Encoder::launch_facts`]; `requires` clauses are ignored,
//! which only makes the tests prove less):
//! - **gcd**: the difference of the indices is a constant plus a multiple of the gcd of
//!   its coefficients, which that constant is not (`W[t * 64 + 3]` vs `W[t * 64 + 5]`);
//! - **bounds** (Banerjee's test with symbolic launch sizes): the difference of the two
//!   indices is bounded above and below by affine forms in the launch sizes and the
//!   parameters (`0 ≤ tid < bdim`, `0 ≤ bid < gdim`); if the upper bound is negative
//!   (or the lower bound positive) at every corner of their box, the indices never meet;
//! - **injectivity**: the two indices are the same affine form, and that form is a
//!   mixed-radix number in the ids that vary (`|α_i| > Σ_{j<i} |α_j|·(extent_j - 1)`,
//!   coefficients sorted by size), so distinct threads get distinct elements.
//!
//! This is what keeps Faial's synthetic patterns linear (`benches/README.md`): the
//! accesses of those kernels are disjoint stripes, and with this test they need no
//! solver time at all.
//!
//! A subterm that is not affine but has a narrow known range (`(f + 64·q) >> 4`,
//! `f & 15`, `tid % 4`: `Var::Opaque`) is a variable of its own range, separate for
//! each thread copy: more solutions than the real ones (its tie to the ids is
//! forgotten), so "no solution" still proves the pair apart, and a form with one is
//! never injective. A cooperative load into padded rows
//! (`W[((f + 64·q) >> 4)·81 + ((f + 64·q) & 15)]`) is then apart from every column a
//! load cannot reach, without a query (`tests/corpus/slow/sha1CooperativeLoad.cu`).
//! Indices with iteration numbers, memory reads, `--wrap` arithmetic or wide
//! non-affine parts are left to the queries.

use kpl::{Arith, BinOp, Builtin, UnOp};

use super::symbolic::Summary;
use super::term::{T, Term};

/// A variable of an affine index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Var {
    Tid(usize),
    Bid(usize),
    Bdim(usize),
    Gdim(usize),
    Param(usize),
    /// A subterm that is not affine but has a known range (`(f + 64) >> 4`,
    /// `f & 15`, `tid % 4`), numbered within its index: a value of its thread (of
    /// each thread copy its own, even when both threads would agree on it), so a test
    /// that proves two indices apart over every such value proves them apart.
    Opaque {
        id: usize,
        lo: i128,
        hi: i128,
    },
}

/// Widest range of an opaque subterm (the exact search steps through its values).
const OPAQUE_WIDTH: i128 = 1 << 20;

/// `c + Σ coef·var` with exact (128-bit) coefficients, none of them zero, sorted by
/// variable (indices have a handful of terms: a vector is faster than a map).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Affine {
    terms: Vec<(Var, i128)>,
    c: i128,
}

/// Adds `k·v` to a small sorted coefficient list.
fn add_term<V: Ord + Copy>(terms: &mut Vec<(V, i128)>, v: V, k: i128) -> Option<()> {
    match terms.binary_search_by(|(x, _)| x.cmp(&v)) {
        Ok(i) => {
            let e = terms[i].1.checked_add(k)?;
            if e == 0 {
                terms.remove(i);
            } else {
                terms[i].1 = e;
            }
        }
        Err(i) if k != 0 => terms.insert(i, (v, k)),
        Err(_) => {}
    }
    Some(())
}

impl Affine {
    fn constant(c: i128) -> Affine {
        Affine { terms: Vec::new(), c }
    }

    fn var(v: Var) -> Affine {
        Affine {
            terms: vec![(v, 1)],
            c: 0,
        }
    }

    fn add(mut self, o: &Affine, sign: i128) -> Option<Affine> {
        for (v, k) in &o.terms {
            add_term(&mut self.terms, *v, k.checked_mul(sign)?)?;
        }
        self.c = self.c.checked_add(o.c.checked_mul(sign)?)?;
        Some(self)
    }

    fn scale(mut self, k: i128) -> Option<Affine> {
        if k == 0 {
            return Some(Affine::constant(0));
        }
        for (_, e) in &mut self.terms {
            *e = e.checked_mul(k)?;
        }
        self.c = self.c.checked_mul(k)?;
        Some(self)
    }

    fn as_const(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.c)
    }

    fn coef(&self, v: Var) -> Option<i128> {
        self.terms.iter().find(|(x, _)| *x == v).map(|(_, k)| *k)
    }
}

/// An inclusive range of a launch size or a parameter.
type Range = (i128, i128);

/// What the launch and the parameter types allow (as the encoder's launch facts).
pub struct Launch {
    /// Per dimension: threads per block, blocks per grid.
    bdim: [Range; 3],
    gdim: [Range; 3],
    params: Vec<Range>,
}

impl Launch {
    pub fn of(sum: &Summary) -> Launch {
        // CUDA's limits, as in `Encoder::launch_facts`.
        const THREADS: [i128; 3] = [1024, 1024, 64];
        const BLOCKS: [i128; 3] = [(1 << 31) - 1, 65535, 65535];
        let size = |given: Option<i64>, d: usize, max: i128| match given {
            Some(g) => (i128::from(g), i128::from(g)),
            None if !sum.dims_used[d] => (1, 1),
            None => (1, max),
        };
        Launch {
            bdim: std::array::from_fn(|d| {
                size(sum.block_dim[d], d, THREADS[d].min(i128::from(sum.max_threads)))
            }),
            gdim: std::array::from_fn(|d| size(sum.grid_dim[d], d, BLOCKS[d])),
            params: sum.param_types.iter().map(|t| (t.min(), t.max())).collect(),
        }
    }

    /// The values `f` can take over the whole box (ids up to their largest extent).
    fn span(&self, f: &Affine) -> Option<Range> {
        let (mut lo, mut hi) = (f.c, f.c);
        for (v, k) in &f.terms {
            let (l, h) = self.range(*v);
            let (x, y) = (k.checked_mul(l)?, k.checked_mul(h)?);
            lo = lo.checked_add(x.min(y))?;
            hi = hi.checked_add(x.max(y))?;
        }
        Some((lo, hi))
    }

    fn range(&self, v: Var) -> Range {
        match v {
            Var::Bdim(d) => self.bdim[d],
            Var::Gdim(d) => self.gdim[d],
            Var::Param(i) => self.params.get(i).copied().unwrap_or((0, 0)),
            Var::Opaque { lo, hi, .. } => (lo, hi),
            // Ids are bounded through their dimension's size (see `bounds`).
            Var::Tid(d) => (0, self.bdim[d].1 - 1),
            Var::Bid(d) => (0, self.gdim[d].1 - 1),
        }
    }
}

/// Nodes visited before [`affine`] gives up (index terms are DAGs).
const VISIT_LIMIT: usize = 4096;

/// The index `t` as an affine form, when it is one (unbounded arithmetic only). Launch
/// sizes the options fix are constants, and the ids of a dimension the kernel never
/// names are 0 (as in the encoder).
/// Subterms that are not affine become `Var::Opaque` variables when their range is
/// known and narrow (at most `OPAQUE_WIDTH` values).
pub fn affine(sum: &Summary, launch: &Launch, t: &T) -> Option<Affine> {
    if sum.arith != Arith::Unbounded {
        return None;
    }
    let mut cx = Forms {
        sum,
        launch,
        builder: sum.builder(),
        visits: 0,
        opaque: Vec::new(),
    };
    cx.go(t)
}

/// The state of [`affine`] on one index.
struct Forms<'a> {
    sum: &'a Summary,
    launch: &'a Launch,
    builder: super::term::Builder,
    visits: usize,
    /// The opaque subterms met so far (a subterm met twice is one variable).
    opaque: Vec<T>,
}

impl Forms<'_> {
    /// `t` as an opaque variable, when its range is known and narrow.
    fn opaque(&mut self, t: &T) -> Option<Affine> {
        let (lo, hi) = self.builder.range(t)?;
        if hi < lo || hi - lo > OPAQUE_WIDTH {
            return None;
        }
        let id = match self.opaque.iter().position(|o| o == t) {
            Some(i) => i,
            None => {
                self.opaque.push(t.clone());
                self.opaque.len() - 1
            }
        };
        Some(Affine::var(Var::Opaque { id, lo, hi }))
    }

    fn go(&mut self, t: &T) -> Option<Affine> {
        self.visits += 1;
        if self.visits > VISIT_LIMIT {
            return None;
        }
        let (sum, launch) = (self.sum, self.launch);
        let fixed = |r: Range| (r.0 == r.1).then_some(r.0);
        Some(match &**t {
            Term::Const(v) => Affine::constant(i128::from(*v)),
            Term::Builtin(b) => {
                let d = b.dim().index();
                match b {
                    Builtin::Bdim(_) => {
                        fixed(launch.bdim[d]).map_or(Affine::var(Var::Bdim(d)), Affine::constant)
                    }
                    Builtin::Gdim(_) => {
                        fixed(launch.gdim[d]).map_or(Affine::var(Var::Gdim(d)), Affine::constant)
                    }
                    Builtin::Tid(_) if launch.bdim[d] == (1, 1) => Affine::constant(0),
                    Builtin::Bid(_) if launch.gdim[d] == (1, 1) => Affine::constant(0),
                    Builtin::Tid(_) => Affine::var(Var::Tid(d)),
                    Builtin::Bid(_) => Affine::var(Var::Bid(d)),
                }
            }
            Term::Param(i, _) if *i < sum.params.len() => Affine::var(Var::Param(*i)),
            // A C conversion is the identity on values in its type's range.
            Term::Cast(ty, a) => {
                let x = self.go(a)?;
                let (lo, hi) = launch.span(&x)?;
                if lo < ty.min() || hi > ty.max() {
                    return self.opaque(t);
                }
                x
            }
            Term::Un(UnOp::Neg, a) => self.go(a)?.scale(-1)?,
            Term::Bin(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => {
                let x = self.go(a)?;
                let y = self.go(b)?;
                match op {
                    BinOp::Add => x.add(&y, 1)?,
                    BinOp::Sub => x.add(&y, -1)?,
                    _ => match (x.as_const(), y.as_const()) {
                        (Some(k), _) => y.scale(k)?,
                        (_, Some(k)) => x.scale(k)?,
                        _ => return self.opaque(t),
                    },
                }
            }
            _ => return self.opaque(t),
        })
    }
}

/// The digits of `t` when it is a mixed-radix number, `c + Σ coef·digit` (unbounded
/// arithmetic only): each digit a subterm with a known range (an id, an iteration of
/// one of `loops` with a constant trip count, or any term the decomposition does not
/// look into, such as `(bid.x + bid.y) % gdim.x`), each coefficient larger than all the
/// smaller ones can add up to over their ranges. Equal values of the same form then
/// have equal digits, which the race query is told (`Checker::same_digits`): a fact
/// the solver would otherwise have to find by case splits over the sums (the diagonal
/// transpose's output writes). Digits of one value are left out.
pub fn mixed_radix_digits(sum: &Summary, t: &T, loops: &[super::term::LoopId]) -> Option<Vec<T>> {
    if sum.arith != Arith::Unbounded {
        return None;
    }
    let b = sum.builder();
    let mut terms: Vec<(T, i128)> = Vec::new();
    let mut visits = 0;
    // Constants are left out: equal on both sides of a self-pair.
    linear(&b, t, 1, &mut terms, &mut 0, &mut visits)?;
    let mut ranged: Vec<(i128, i128, T)> = Vec::new();
    for (d, k) in terms.into_iter().filter(|(_, k)| *k != 0) {
        let (lo, hi) = match &*d {
            Term::Iter(l) if loops.contains(l) => {
                let trip = sum.loops.get(*l)?.as_ref()?.trip_term.as_const()?;
                (0, i128::from(trip) - 1)
            }
            Term::Iter(_) | Term::IterAdd(..) => return None,
            _ => b.range(&d)?,
        };
        if hi < lo {
            return None;
        }
        ranged.push((k.checked_abs()?, hi - lo, d));
    }
    ranged.sort_by_key(|(k, _, _)| *k);
    let mut reach: i128 = 0;
    for (k, width, _) in &ranged {
        if *k <= reach {
            return None;
        }
        reach = reach.checked_add(k.checked_mul(*width)?)?;
    }
    Some(
        ranged
            .into_iter()
            .filter(|(_, w, _)| *w > 0)
            .map(|(_, _, d)| d)
            .collect(),
    )
}

/// Adds `k·t` to `terms` as a sum of subterms with coefficients (some may cancel to 0)
/// plus a constant (added to `c`), looking through sums, products and shifts by
/// constants, and C conversions that are the identity on the operand's range.
pub(super) fn linear(
    b: &super::term::Builder,
    t: &T,
    k: i128,
    terms: &mut Vec<(T, i128)>,
    c: &mut i128,
    visits: &mut usize,
) -> Option<()> {
    *visits += 1;
    if *visits > VISIT_LIMIT {
        return None;
    }
    match &**t {
        Term::Const(v) => *c = c.checked_add(k.checked_mul(i128::from(*v))?)?,
        Term::Cast(ty, a)
            if b.range(a)
                .is_some_and(|(lo, hi)| lo >= ty.min() && hi <= ty.max()) =>
        {
            linear(b, a, k, terms, c, visits)?;
        }
        Term::Un(UnOp::Neg, a) => linear(b, a, k.checked_neg()?, terms, c, visits)?,
        Term::Bin(BinOp::Add, x, y) => {
            linear(b, x, k, terms, c, visits)?;
            linear(b, y, k, terms, c, visits)?;
        }
        Term::Bin(BinOp::Sub, x, y) => {
            linear(b, x, k, terms, c, visits)?;
            linear(b, y, k.checked_neg()?, terms, c, visits)?;
        }
        Term::Bin(BinOp::Mul, x, y) if x.as_const().is_some() || y.as_const().is_some() => {
            let (m, e) = match x.as_const() {
                Some(m) => (m, y),
                None => (y.as_const()?, x),
            };
            linear(b, e, k.checked_mul(i128::from(m))?, terms, c, visits)?;
        }
        Term::Bin(BinOp::Shl, x, y) if y.as_const().is_some_and(|s| (0..62).contains(&s)) => {
            let s = y.as_const()?;
            linear(b, x, k.checked_mul(1i128 << s)?, terms, c, visits)?;
        }
        _ => match terms.iter_mut().find(|(d, _)| d == t) {
            Some((_, c)) => *c = c.checked_add(k)?,
            None => terms.push((t.clone(), k)),
        },
    }
    Some(())
}

/// Which threads a pair test is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// Two distinct threads of one block.
    SameBlock,
    /// Two threads of distinct blocks.
    CrossBlock,
}

/// A variable of the difference of two indices: ids belong to a thread copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PVar {
    Tid(usize, usize),
    Bid(usize, usize),
    Shared(Var),
    /// An opaque subterm of a copy's index (`Var::Opaque`).
    Opaque(usize, Var),
}

/// No two threads of `threads` can ever give `a` (first copy) and `b` (second copy) the
/// same value: the accesses never touch one element from two such threads.
pub fn never_meet(launch: &Launch, a: &Affine, b: &Affine, threads: Threads) -> bool {
    (a == b && injective(launch, a, threads)) || apart(launch, a, b, threads)
}

/// The bounds test on `a(copy 0) - b(copy 1)`.
fn apart(launch: &Launch, a: &Affine, b: &Affine, threads: Threads) -> bool {
    bounds_exclude_zero(launch, a, b, threads).unwrap_or(false)
}

/// `Some(true)` when the difference's bounds exclude 0; `None` on overflow.
fn bounds_exclude_zero(launch: &Launch, a: &Affine, b: &Affine, threads: Threads) -> Option<bool> {
    let block1 = usize::from(threads == Threads::CrossBlock);
    let mut diff: Vec<(PVar, i128)> = Vec::with_capacity(a.terms.len() + b.terms.len());
    let place = |v: Var, copy: usize| match v {
        Var::Tid(d) => PVar::Tid(copy, d),
        Var::Bid(d) => PVar::Bid(if copy == 0 { 0 } else { block1 }, d),
        o @ Var::Opaque { .. } => PVar::Opaque(copy, o),
        other => PVar::Shared(other),
    };
    for (copy, form, sign) in [(0, a, 1i128), (1, b, -1)] {
        for (v, k) in &form.terms {
            add_term(&mut diff, place(*v, copy), k.checked_mul(sign)?)?;
        }
    }
    let c = a.c.checked_sub(b.c)?;
    // The GCD test: every variable is an integer, so the difference is `c` plus a
    // multiple of the coefficients' gcd.
    let g = diff.iter().fold(0i128, |g, (_, k)| gcd(g, *k));
    if g > 1 && c % g != 0 {
        return Some(true);
    }
    if let Some(none) = no_solution(launch, &diff, c, threads) {
        return Some(none);
    }
    // Upper and lower bounds as affine forms in the shared variables: an id contributes
    // `max(0, k)·(size - 1)` above and `min(0, k)·(size - 1)` below.
    let mut hi: Vec<(Var, i128)> = Vec::new();
    let mut lo: Vec<(Var, i128)> = Vec::new();
    let (mut hi_c, mut lo_c) = (c, c);
    for (v, k) in diff {
        let (size_var, size) = match v {
            PVar::Shared(s) => {
                add_term(&mut hi, s, k)?;
                add_term(&mut lo, s, k)?;
                continue;
            }
            PVar::Opaque(_, o) => {
                let (l, h) = launch.range(o);
                let (x, y) = (k.checked_mul(l)?, k.checked_mul(h)?);
                hi_c = hi_c.checked_add(x.max(y))?;
                lo_c = lo_c.checked_add(x.min(y))?;
                continue;
            }
            PVar::Tid(_, d) => (Var::Bdim(d), launch.bdim[d]),
            PVar::Bid(_, d) => (Var::Gdim(d), launch.gdim[d]),
        };
        let (up, down) = (k.max(0), k.min(0));
        if size.0 == size.1 {
            hi_c = hi_c.checked_add(up.checked_mul(size.0 - 1)?)?;
            lo_c = lo_c.checked_add(down.checked_mul(size.0 - 1)?)?;
        } else {
            add_term(&mut hi, size_var, up)?;
            add_term(&mut lo, size_var, down)?;
            hi_c = hi_c.checked_sub(up)?;
            lo_c = lo_c.checked_sub(down)?;
        }
    }
    let extreme = |terms: &[(Var, i128)], c: i128, max: bool| -> Option<i128> {
        let mut total = c;
        for (v, k) in terms {
            let (l, h) = launch.range(*v);
            let (x, y) = (k.checked_mul(l)?, k.checked_mul(h)?);
            total = total.checked_add(if max { x.max(y) } else { x.min(y) })?;
        }
        Some(total)
    };
    Some(extreme(&hi, hi_c, true)? < 0 || extreme(&lo, lo_c, false)? > 0)
}

/// Search steps before [`no_solution`] gives up.
const SEARCH_LIMIT: usize = 4096;

/// The exact test when the difference depends only on ids of fixed extents (launch
/// sizes given): `Some(true)` when `c + Σ k·id = 0` has no solution with the ids in
/// range and the two threads distinct, `Some(false)` when it has one, `None` when the
/// test does not apply or the search is too long. Mixed-radix indices
/// (`((by·8 + ty)·8 + r)·128 + bx·8 + tx` for several constants `r`) take a few steps:
/// the ids are tried from the largest coefficient down, each within the range the
/// smaller ones can still make up for.
fn no_solution(launch: &Launch, diff: &[(PVar, i128)], c: i128, threads: Threads) -> Option<bool> {
    let mut vars: Vec<(PVar, i128, i128)> = Vec::with_capacity(diff.len());
    let mut c = c;
    for &(v, k) in diff {
        let size = match v {
            PVar::Shared(_) => return None,
            PVar::Tid(_, d) => launch.bdim[d],
            PVar::Bid(_, d) => launch.gdim[d],
            // `lo + x` for `x` in `[0, hi - lo]`.
            PVar::Opaque(_, o) => {
                let (lo, hi) = launch.range(o);
                c = c.checked_add(k.checked_mul(lo)?)?;
                (hi - lo + 1, hi - lo + 1)
            }
        };
        if size.0 != size.1 {
            return None;
        }
        vars.push((v, k, size.0 - 1));
    }
    // The threads are distinct unless every id that tells them apart is equal; an id
    // of that kind the difference does not mention can always be chosen apart. Ids
    // inside opaque subterms count as not mentioned: the opaque values are taken as
    // free of the ids, more solutions than there are, so a proof of none holds.
    let free_apart = (0..3).any(|d| {
        let (v0, v1, size) = match threads {
            Threads::SameBlock => (PVar::Tid(0, d), PVar::Tid(1, d), launch.bdim[d]),
            Threads::CrossBlock => (PVar::Bid(0, d), PVar::Bid(1, d), launch.gdim[d]),
        };
        size.1 > 1 && !vars.iter().any(|x| x.0 == v0 || x.0 == v1)
    });
    vars.sort_by_key(|x| std::cmp::Reverse(x.1.abs()));
    // reach[i]: the most the ids from i on can add up to in absolute value.
    let mut reach = vec![0i128; vars.len() + 1];
    for i in (0..vars.len()).rev() {
        reach[i] = reach[i + 1].checked_add(vars[i].1.abs().checked_mul(vars[i].2)?)?;
    }
    let mut values = vec![0i128; vars.len()];
    let mut steps = 0usize;
    let distinct = |values: &[i128]| {
        free_apart
            || (0..3).any(|d| {
                let val = |copy: usize| {
                    vars.iter()
                        .zip(values)
                        .find(|(x, _)| match (threads, x.0) {
                            (Threads::SameBlock, PVar::Tid(cp, dd))
                            | (Threads::CrossBlock, PVar::Bid(cp, dd)) => cp == copy && dd == d,
                            _ => false,
                        })
                        .map(|(_, v)| *v)
                };
                // An id of one copy only: the other copy's is free (it has extent > 0).
                match (val(0), val(1)) {
                    (Some(a), Some(b)) => a != b,
                    (Some(_), None) | (None, Some(_)) => true,
                    (None, None) => false,
                }
            })
    };
    #[allow(clippy::too_many_arguments)]
    fn search(
        i: usize,
        rest: i128,
        vars: &[(PVar, i128, i128)],
        reach: &[i128],
        values: &mut Vec<i128>,
        steps: &mut usize,
        distinct: &dyn Fn(&[i128]) -> bool,
    ) -> Option<bool> {
        *steps += 1;
        if *steps > SEARCH_LIMIT {
            return None;
        }
        if i == vars.len() {
            return Some(rest == 0 && distinct(values));
        }
        let (_, k, m) = vars[i];
        // k·x + rest' = -rest... find x in [0, m] with |rest + k·x| <= reach[i + 1].
        let (lo, hi) = {
            let r = reach[i + 1];
            // rest + k·x ∈ [-r, r]  ⟺  k·x ∈ [-r - rest, r - rest]
            let (a, b) = (-r - rest, r - rest);
            let (a, b) = if k > 0 { (a, b) } else { (-b, -a) };
            let k = k.abs();
            (
                a.div_euclid(k) + i128::from(a.rem_euclid(k) != 0),
                b.div_euclid(k),
            )
        };
        for x in lo.max(0)..=hi.min(m) {
            values[i] = x;
            if search(i + 1, rest + k * x, vars, reach, values, steps, distinct)? {
                return Some(true);
            }
        }
        Some(false)
    }
    let found = search(0, c, &vars, &reach, &mut values, &mut steps, &distinct)?;
    Some(!found)
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The injectivity test for one form `f` at both copies.
fn injective(launch: &Launch, f: &Affine, threads: Threads) -> bool {
    // Two threads may agree on an opaque subterm whatever their ids.
    if f.terms.iter().any(|(v, _)| matches!(v, Var::Opaque { .. })) {
        return false;
    }
    // The ids that may differ between the two threads, with their largest extent - 1.
    let mut vary: Vec<(Var, i128)> = (0..3).map(|d| (Var::Tid(d), launch.bdim[d].1 - 1)).collect();
    if threads == Threads::CrossBlock {
        vary.extend((0..3).map(|d| (Var::Bid(d), launch.gdim[d].1 - 1)));
    }
    vary.retain(|(_, m)| *m > 0);
    // The ids whose difference makes the threads distinct must all count.
    let must = |v: Var| match threads {
        Threads::SameBlock => matches!(v, Var::Tid(_)),
        Threads::CrossBlock => matches!(v, Var::Bid(_)),
    };
    let mut coefs: Vec<(i128, i128)> = Vec::new();
    for (v, m) in vary {
        match f.coef(v) {
            Some(k) => coefs.push((k.abs(), m)),
            None if must(v) => return false,
            None => {}
        }
    }
    if coefs.is_empty() {
        return false;
    }
    coefs.sort();
    let mut reach: i128 = 0;
    for (k, m) in coefs {
        if k <= reach {
            return false;
        }
        let Some(r) = k.checked_mul(m).and_then(|x| x.checked_add(reach)) else {
            return false;
        };
        reach = r;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Σ k·var + c` from a list.
    fn form(terms: &[(Var, i128)], c: i128) -> Affine {
        let mut f = Affine::constant(c);
        for &(v, k) in terms {
            f = f.add(&Affine::var(v).scale(k).unwrap(), 1).unwrap();
        }
        f
    }

    #[test]
    fn exact_search_on_fixed_launches() {
        // 8x8 threads, 16x16 blocks: row ((by·8 + ty)·8 + r), column bx·8 + tx of a
        // 128-wide image.
        let l = Launch {
            bdim: [(8, 8), (8, 8), (1, 1)],
            gdim: [(16, 16), (16, 16), (1, 1)],
            params: vec![],
        };
        let px = |r: i128| {
            form(
                &[
                    (Var::Bid(1), 8192),
                    (Var::Tid(1), 1024),
                    (Var::Bid(0), 8),
                    (Var::Tid(0), 1),
                ],
                r * 128,
            )
        };
        for threads in [Threads::SameBlock, Threads::CrossBlock] {
            assert!(never_meet(&l, &px(0), &px(3), threads));
            assert!(never_meet(&l, &px(2), &px(2), threads));
        }
        // Row 8 of tile ty is row 0 of tile ty + 1.
        assert!(!never_meet(&l, &px(0), &px(8), Threads::SameBlock));
        // Without the block x in the column, blocks side by side meet.
        let narrow = form(&[(Var::Tid(0), 1), (Var::Tid(1), 8)], 0);
        assert!(never_meet(&l, &narrow, &narrow, Threads::SameBlock));
        assert!(!never_meet(&l, &narrow, &narrow, Threads::CrossBlock));
        // A thread meets only itself: `tx` against `tx` in one block of 8x8 threads
        // (ty tells them apart).
        let tx = form(&[(Var::Tid(0), 1)], 0);
        assert!(!never_meet(&l, &tx, &tx, Threads::SameBlock));
    }

    fn launch(bdim: Option<i64>) -> Launch {
        Launch {
            bdim: [
                bdim.map_or((1, 1024), |b| (i128::from(b), i128::from(b))),
                (1, 1),
                (1, 1),
            ],
            gdim: [(1, (1 << 31) - 1), (1, 1), (1, 1)],
            params: vec![(0, u32::MAX as i128)],
        }
    }

    fn tid_plus(k: i128) -> Affine {
        Affine::var(Var::Tid(0))
            .add(&Affine::var(Var::Bdim(0)).scale(k).unwrap(), 1)
            .unwrap()
    }

    #[test]
    fn stripes_are_apart_and_a_stripe_is_injective() {
        let l = launch(None);
        assert!(never_meet(&l, &tid_plus(1), &tid_plus(2), Threads::SameBlock));
        assert!(never_meet(&l, &tid_plus(3), &tid_plus(1), Threads::SameBlock));
        assert!(never_meet(&l, &tid_plus(3), &tid_plus(3), Threads::SameBlock));
        // Different blocks: the same tid meets itself.
        assert!(!never_meet(&l, &tid_plus(3), &tid_plus(3), Threads::CrossBlock));
        // `tid + 1` overlaps `tid` (thread 1's `tid` is thread 0's `tid + 1`).
        let t = Affine::var(Var::Tid(0));
        let t1 = t.clone().add(&Affine::constant(1), 1).unwrap();
        assert!(!never_meet(&l, &t, &t1, Threads::SameBlock));
        // `tid + bdim` overlaps `tid + 1` for bdim = 1 (and more).
        assert!(!never_meet(&l, &tid_plus(1), &t1, Threads::SameBlock));
        // `2 * tid` against `2 * tid + 1`: parity (the gcd test).
        let even = t.clone().scale(2).unwrap();
        let odd = even.clone().add(&Affine::constant(1), 1).unwrap();
        assert!(never_meet(&l, &even, &odd, Threads::SameBlock));
        // `2 * tid` against `tid + 1` meet (thread 1 and thread 0... 2·1 = 0 + 2).
        let t2 = t.clone().add(&Affine::constant(2), 1).unwrap();
        assert!(!never_meet(&l, &even, &t2, Threads::SameBlock));
        assert!(never_meet(&l, &even, &even, Threads::SameBlock));
        // Rows of 64: other columns of any row are never the same element.
        let row = |c: i128| t.clone().scale(64).unwrap().add(&Affine::constant(c), 1).unwrap();
        assert!(never_meet(&l, &row(3), &row(5), Threads::SameBlock));
        assert!(!never_meet(&l, &row(3), &row(67), Threads::SameBlock));
        // A parameter offset may bring two stripes together.
        let p = Affine::var(Var::Param(0));
        assert!(!never_meet(
            &l,
            &tid_plus(1),
            &t.add(&p, 1).unwrap(),
            Threads::SameBlock
        ));
    }

    #[test]
    fn mixed_radix_two_dimensional_index() {
        let mut l = launch(Some(16));
        l.bdim[1] = (16, 16);
        let f = |ky: i128| {
            Affine::var(Var::Tid(1))
                .scale(ky)
                .unwrap()
                .add(&Affine::var(Var::Tid(0)), 1)
                .unwrap()
        };
        assert!(never_meet(&l, &f(16), &f(16), Threads::SameBlock));
        assert!(!never_meet(&l, &f(15), &f(15), Threads::SameBlock));
        // Threads differing in y only meet when y does not count.
        assert!(!never_meet(
            &l,
            &Affine::var(Var::Tid(0)),
            &Affine::var(Var::Tid(0)),
            Threads::SameBlock
        ));
    }

    #[test]
    fn global_index_across_blocks() {
        let mut l = launch(Some(256));
        l.gdim[0] = (1, 65535);
        let gid = Affine::var(Var::Bid(0))
            .scale(256)
            .unwrap()
            .add(&Affine::var(Var::Tid(0)), 1)
            .unwrap();
        assert!(never_meet(&l, &gid, &gid, Threads::CrossBlock));
        assert!(never_meet(&l, &gid, &gid, Threads::SameBlock));
    }
}
