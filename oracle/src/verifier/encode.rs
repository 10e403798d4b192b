//! Terms to Z3, for one thread copy at one choice of iteration numbers (a [`Ctx`]).
//!
//! Values are Z3 `Int`s under [`Arith::Unbounded`] and 32-bit bit-vectors under
//! [`Arith::Wrap32`]; iteration numbers and trip counts are `Int`s, or 64-bit
//! bit-vectors under `Wrap32` (so everything stays in one theory). Atoms become
//! uninterpreted functions of their iteration arguments, one per owner: the thread copy
//! (thread-varying atoms), the block copy (block-uniform ones) or the whole grid.
//!
//! Every encoding is exact for the arithmetic of `kpl::arith` or over-approximates it
//! by a value that is unconstrained except for facts that hold in every execution:
//! - `/` and `%` truncate (Z3's `div`/`mod` are Euclidean, so the sign cases are spelled
//!   out); a zero divisor gives an arbitrary value;
//! - `&`, `|`, `^` with a constant operand are exact: sums over the bits of a thread or
//!   block id of a concrete, narrow launch, else runs of ones in the mask as `div`/`mod`
//!   by powers of two; with two variable operands they are uninterpreted functions with
//!   sound bounds (`0 ≤ a & b ≤ a` for `a ≥ 0`, ...);
//! - shifts by a constant are multiplications or floor divisions; by a variable, a case
//!   split over 0..=32 and an arbitrary value beyond;
//! - operations whose other operand is a table (`i & (s - 1)` with `s` tabulated) or a
//!   power of two `2^e` are split per table entry or per exponent, so they stay exact
//!   for the exponents [`Encoder::exp_cases`] bounds (past them, an arbitrary value);
//!   `&`, `|`, `^` of a thread/block id with bits and such a mask are per-bit formulas
//!   linear in the exponent ([`Encoder::bitwise_pow2_by_bits`]);
//! - comparisons of `2^e` with constants are comparisons of `e` (`Builder::bin`);
//! - two indices compared for a race also get their low bits compared
//!   ([`Encoder::same_index_bits`]) when both have a bit-level form.
//!
//! Side facts (bounds of atoms, the exit fact of `InLoop`) and lemmas (monotonicity of
//! products with a common factor, one-step relations of geometric sequences, distinct
//! values of repetition-free counters) are collected in [`Encoder::facts`]; they hold in
//! every execution, so the queries assert them.

use std::collections::HashMap;

/// The map of every table that holds Z3 terms. Z3 recycles the ids of dropped terms, and
/// ids steer the solver (how many steps a query takes, so whether it is decided within
/// its resource limit): a table must drop its terms in an order that depends on the
/// input only. `IndexMap` drops in insertion order; `HashMap`'s order changes from run
/// to run.
pub type Map<K, V> = indexmap::IndexMap<K, V>;
use std::rc::Rc;

use kpl::{Arith, BinOp};
use z3::FuncDecl;
use z3::ast::{BV, Bool, Int};

use super::symbolic::Summary;
use super::term::{AtomId, LoopId, T, Term};

mod arith;
mod atoms;
mod bits;
mod pow2;
mod terms;

use arith::U32_MAX;
use bits::Blast;

/// A Z3 value: `Int` (unbounded arithmetic) or `BV` (32-bit values, 64-bit iterations).
#[derive(Clone, Debug)]
pub enum Val {
    I(Int),
    B(BV),
}

/// The limit on a block's size, `bdim.x * bdim.y * bdim.z <= most`, for queries to
/// add lazily ([`Encoder::block_size_limit`]).
/// What makes a query nonlinear, for the solver (`solver::decide`): the block-size
/// limit, cut lazily, and the products of two non-constant integers, abstracted first.
#[derive(Default)]
pub struct Nonlinear {
    pub block_size: Option<BlockSizeLimit>,
    /// The terms `x·y` of the query, both factors non-constant.
    pub products: Vec<Int>,
}

pub struct BlockSizeLimit {
    dims: [Val; 3],
    most: i64,
}

impl BlockSizeLimit {
    /// The limit itself (nonlinear).
    pub fn whole(&self) -> Bool {
        match &self.dims {
            [Val::I(x), Val::I(y), Val::I(z)] => (x * y * z).le(self.most),
            _ => {
                let wide = |v: &Val| match v {
                    Val::B(b) => b.zero_ext(64 - b.get_size()),
                    Val::I(i) => BV::from_int(i, 64),
                };
                let p = wide(&self.dims[0])
                    .bvmul(wide(&self.dims[1]))
                    .bvmul(wide(&self.dims[2]));
                p.bvule(BV::from_i64(self.most, 64))
            }
        }
    }

    /// `None` when the model's block keeps the limit; else linear facts every
    /// launchable block keeps and the model's does not: with sizes at least the
    /// model's in two dimensions, the third is at most `most` divided by their product
    /// (one fact per dimension; each covers every larger shape, so a query needs few).
    pub fn cut(&self, m: &z3::Model) -> Option<Bool> {
        let sizes: Vec<i64> = self.dims.iter().map(|d| d.as_i64(m)).collect::<Option<_>>()?;
        let product = sizes.iter().try_fold(1i64, |p, s| p.checked_mul(*s));
        if product.is_some_and(|p| p <= self.most) {
            return None;
        }
        let le = |v: &Val, c: i64| match v {
            Val::I(x) => x.le(Int::from_i64(c)),
            Val::B(x) => x.bvule(BV::from_i64(c, x.get_size())),
        };
        let ge = |v: &Val, c: i64| match v {
            Val::I(x) => x.ge(Int::from_i64(c)),
            Val::B(x) => x.bvuge(BV::from_i64(c, x.get_size())),
        };
        let mut out = Vec::new();
        for d in 0..3 {
            let (a, b) = ((d + 1) % 3, (d + 2) % 3);
            let at_least = Bool::and(&[ge(&self.dims[a], sizes[a]), ge(&self.dims[b], sizes[b])]);
            let others = sizes[a].saturating_mul(sizes[b]).max(1);
            out.push(at_least.implies(le(&self.dims[d], self.most / others)));
        }
        Some(Bool::and(&out))
    }
}

impl Val {
    pub fn as_i64(&self, m: &z3::Model) -> Option<i64> {
        match self {
            Val::I(x) => m.eval(x, true).and_then(|v| v.as_i64()),
            Val::B(x) => m
                .eval(x, true)
                .and_then(|v| v.as_u64())
                .and_then(|v| i64::try_from(v).ok()),
        }
    }

    fn i(&self) -> Int {
        match self {
            Val::I(x) => x.clone(),
            Val::B(x) => x.to_int(false),
        }
    }

    pub fn eq(&self, o: &Val) -> Bool {
        match (self, o) {
            (Val::I(a), Val::I(b)) => a.eq(b),
            (Val::B(a), Val::B(b)) => a.eq(b),
            (a, b) => a.i().eq(b.i()),
        }
    }
}

/// One thread copy at one assignment of iteration numbers.
#[derive(Clone, Debug)]
pub struct Ctx {
    /// 0 or 1: which thread of the query.
    pub copy: usize,
    /// 0 or 1: which block (equal for same-block queries).
    pub block: usize,
    pub iters: Map<LoopId, Val>,
}

/// The value an `atomic_add` on a counter array returned, in one thread copy at one
/// iteration: distinct executions get distinct values.
struct CounterApp {
    stmt: kpl::StmtId,
    copy: usize,
    block: usize,
    argv: Vec<Val>,
    value: Int,
}

/// Applications of geometric atoms, for the facts relating two iterations.
struct GeoApp {
    atom: AtomId,
    owner: usize,
    outer: Vec<Val>,
    k: Val,
    value: Val,
}

pub struct Encoder<'s> {
    pub sum: &'s Summary,
    wrap: bool,
    pub bdim: [Val; 3],
    pub gdim: [Val; 3],
    pub tid: [[Val; 3]; 2],
    pub bid: [[Val; 3]; 2],
    pub params: Vec<Val>,
    concrete_bdim: [Option<i64>; 3],
    concrete_gdim: [Option<i64>; 3],
    ufs: Map<(AtomId, usize), FuncDecl>,
    bitops: Map<&'static str, FuncDecl>,
    ctxs: Vec<Ctx>,
    /// The context of the other thread copy, per context ([`Encoder::pair`]).
    partners: Map<usize, usize>,
    memo_v: Map<(*const Term, usize), Val>,
    memo_b: Map<(*const Term, usize), Bool>,
    nonneg_memo: HashMap<*const Term, bool>,
    /// Bits of thread/block ids: (block id?, copy or block, dimension).
    bits_memo: Map<(bool, usize, usize), Vec<Bool>>,
    low_bits_memo: Map<(*const Term, usize, usize), Option<Blast>>,
    /// Keeps translated terms alive so their addresses stay valid memo keys.
    keep: Vec<T>,
    pub facts: Vec<Bool>,
    geo: Vec<GeoApp>,
    counter_apps: Vec<CounterApp>,
    /// Products of two non-constant integers `(x, y, x·y)`, for monotonicity lemmas.
    products: Vec<(Int, Int, Int)>,
    /// The terms `x·y` of `products`, kept by [`Encoder::finish`] for [`Nonlinear`].
    product_terms: Vec<Int>,
    /// [`Encoder::same_warp`] for one warp size.
    same_warp_memo: Option<(u32, Bool)>,
    /// Loops whose [`Encoder::no_exit_before`] fact is being built (no recursion).
    exits_open: Vec<LoopId>,
    fresh: u32,
}

impl<'s> Encoder<'s> {
    pub fn new(sum: &'s Summary) -> Encoder<'s> {
        let wrap = sum.arith == Arith::Wrap32;
        let var = |name: String| {
            if wrap {
                Val::B(BV::new_const(name, 32))
            } else {
                Val::I(Int::new_const(name))
            }
        };
        let num = |v: i64| {
            if wrap {
                Val::B(BV::from_i64(v, 32))
            } else {
                Val::I(Int::from_i64(v))
            }
        };
        // A symbolic launch has size 1 in the dimensions the kernel never names.
        let used = sum.dims_used;
        let dims = |name: &str, given: [Option<i64>; 3]| -> [Val; 3] {
            std::array::from_fn(|d| match given[d] {
                Some(g) => num(g),
                None if !used[d] => num(1),
                None => var(format!("{name}.{d}")),
            })
        };
        let per = |name: &str, c: usize, given: [Option<i64>; 3]| -> [Val; 3] {
            std::array::from_fn(|d| match given[d] {
                Some(1) => num(0),
                None if !used[d] => num(0),
                _ => var(format!("{name}{c}.{d}")),
            })
        };
        let (block_dim, grid_dim) = (sum.block_dim, sum.grid_dim);
        Encoder {
            sum,
            wrap,
            bdim: dims("bdim", block_dim),
            gdim: dims("gdim", grid_dim),
            tid: [per("tid", 0, block_dim), per("tid", 1, block_dim)],
            bid: [per("bid", 0, grid_dim), per("bid", 1, grid_dim)],
            params: sum.params.iter().map(|p| var(format!("param.{p}"))).collect(),
            concrete_bdim: block_dim,
            concrete_gdim: grid_dim,
            ufs: Map::new(),
            bitops: Map::new(),
            ctxs: Vec::new(),
            partners: Map::new(),
            memo_v: Map::new(),
            memo_b: Map::new(),
            nonneg_memo: HashMap::new(),
            bits_memo: Map::new(),
            low_bits_memo: Map::new(),
            keep: Vec::new(),
            facts: Vec::new(),
            geo: Vec::new(),
            counter_apps: Vec::new(),
            products: Vec::new(),
            product_terms: Vec::new(),
            same_warp_memo: None,
            exits_open: Vec::new(),
            fresh: 0,
        }
    }

    pub fn ctx(&mut self, c: Ctx) -> usize {
        self.ctxs.push(c);
        self.ctxs.len() - 1
    }

    /// Makes two contexts (of the two thread copies) each other's partner: `other(e)`
    /// in one is `e` in the other. Set before evaluating a two-thread `assume`.
    pub fn pair(&mut self, a: usize, b: usize) {
        self.partners.insert(a, b);
        self.partners.insert(b, a);
    }

    pub fn num(&self, v: i64) -> Val {
        if self.wrap {
            Val::B(BV::from_i64(v, 32))
        } else {
            Val::I(Int::from_i64(v))
        }
    }

    /// A constant in the iteration domain.
    pub fn inum(&self, v: i64) -> Val {
        if self.wrap {
            Val::B(BV::from_i64(v, 64))
        } else {
            Val::I(Int::from_i64(v))
        }
    }

    /// A fresh iteration number (`≥ 0`, and `< 2^62` with 64-bit iterations).
    pub fn iter_var(&mut self, name: &str) -> Val {
        self.fresh += 1;
        let v = if self.wrap {
            Val::B(BV::new_const(format!("{name}#{}", self.fresh), 64))
        } else {
            Val::I(Int::new_const(format!("{name}#{}", self.fresh)))
        };
        let f = self.iter_bounds(&v);
        self.facts.push(f);
        v
    }

    fn iter_bounds(&self, v: &Val) -> Bool {
        match v {
            Val::I(x) => x.ge(0),
            Val::B(x) => x.bvult(BV::from_u64(1 << 62, 64)),
        }
    }

    pub fn iter_lt(&self, a: &Val, b: &Val) -> Bool {
        match (a, b) {
            (Val::B(x), Val::B(y)) => x.bvult(y),
            _ => a.i().lt(b.i()),
        }
    }

    pub fn iter_add(&self, a: &Val, off: i64) -> Val {
        match a {
            Val::I(x) => Val::I(x + off),
            Val::B(x) => Val::B(x.bvadd(BV::from_i64(off, 64))),
        }
    }

    fn iter_to_val(&self, v: Val) -> Val {
        match v {
            Val::B(x) if x.get_size() == 64 => Val::B(x.extract(31, 0)),
            other => other,
        }
    }

    fn val_to_iter(&self, v: Val) -> Val {
        match v {
            Val::B(x) if x.get_size() == 32 => Val::B(x.zero_ext(32)),
            other => other,
        }
    }

    /// Facts about the launch and the parameters for the given (copy, block) pairs.
    pub fn launch_facts(&self, copies: &[(usize, usize)]) -> Vec<Bool> {
        let mut out = Vec::new();
        let nonneg_u32 = |v: &Val| match v {
            Val::I(x) => Bool::and(&[x.ge(0), x.le(U32_MAX)]),
            Val::B(_) => Bool::from_bool(true),
        };
        // CUDA's limits: 1024 threads per block in x and y, 64 in z; 2^31 - 1 blocks in
        // x, 65535 in y and z (what `Builder::range` assumes too).
        let at_most = |v: &Val, max: i64| match v {
            Val::I(x) => x.le(max),
            Val::B(x) => x.bvule(BV::from_i64(max, 32)),
        };
        for d in 0..3 {
            let (threads, blocks) = if d == 2 {
                (64, 65535)
            } else if d == 1 {
                (1024, 65535)
            } else {
                (1024, (1 << 31) - 1)
            };
            if self.concrete_bdim[d].is_none() && self.sum.dims_used[d] {
                out.push(self.ge1(&self.bdim[d]));
                out.push(nonneg_u32(&self.bdim[d]));
                // `__launch_bounds__` bounds each size; their product is bounded lazily
                // (`Encoder::block_size_limit`).
                out.push(at_most(&self.bdim[d], threads.min(self.sum.max_threads)));
            }
            if self.concrete_gdim[d].is_none() && self.sum.dims_used[d] {
                out.push(self.ge1(&self.gdim[d]));
                out.push(nonneg_u32(&self.gdim[d]));
                out.push(at_most(&self.gdim[d], blocks));
            }
        }
        let mut blocks = Vec::new();
        for &(c, b) in copies {
            for d in 0..3 {
                out.push(self.in_range(&self.tid[c][d], &self.bdim[d]));
            }
            if !blocks.contains(&b) {
                blocks.push(b);
                for d in 0..3 {
                    out.push(self.in_range(&self.bid[b][d], &self.gdim[d]));
                }
            }
        }
        // A parameter has one value per launch, anywhere in its type.
        for (p, ty) in self.params.iter().zip(&self.sum.param_types) {
            out.push(match p {
                Val::I(x) => Bool::and(&[x.ge(Int::from_i128(ty.min())), x.le(Int::from_i128(ty.max()))]),
                // `--wrap` values are 32-bit unsigned: only narrow unsigned types bound them.
                Val::B(x) if !ty.signed && ty.bits < 32 => x.bvule(BV::from_i64(ty.max() as i64, 32)),
                Val::B(_) => Bool::from_bool(true),
            });
        }
        out
    }

    /// The nonlinear parts of the query built so far (after [`Encoder::finish`]).
    pub fn nonlinear(&self) -> Nonlinear {
        Nonlinear {
            block_size: self.block_size_limit(),
            products: self.product_terms.clone(),
        }
    }

    /// The block's size, `bdim.x * bdim.y * bdim.z`, at most the launch bounds (else
    /// CUDA's 1024), when two or more of the sizes the kernel uses are symbolic (each
    /// is bounded on its own by [`Encoder::launch_facts`]). Nonlinear, so not one of
    /// the launch facts: a query adds linear cuts of it only when a model breaks it
    /// ([`BlockSizeLimit::cut`], `solver::decide`), so that witnesses are launches
    /// CUDA can make while the queries that do not need it keep their linear facts.
    pub(super) fn block_size_limit(&self) -> Option<BlockSizeLimit> {
        let symbolic = (0..3)
            .filter(|&d| self.concrete_bdim[d].is_none() && self.sum.dims_used[d])
            .count();
        (symbolic >= 2).then(|| BlockSizeLimit {
            dims: self.bdim.clone(),
            most: self.sum.max_threads.min(1024),
        })
    }

    fn ge1(&self, v: &Val) -> Bool {
        match v {
            Val::I(x) => x.ge(1),
            Val::B(x) => x.bvuge(BV::from_i64(1, 32)),
        }
    }

    fn in_range(&self, v: &Val, n: &Val) -> Bool {
        match (v, n) {
            (Val::I(x), Val::I(m)) => Bool::and(&[x.ge(0), x.lt(m)]),
            (Val::B(x), Val::B(m)) => x.bvult(m),
            _ => Bool::from_bool(false),
        }
    }

    /// The two copies are distinct threads of one block (`same`) or threads of
    /// distinct blocks.
    pub fn distinct_threads(&self, same_block: bool) -> Bool {
        let differ =
            |a: &[Val; 3], b: &[Val; 3]| Bool::or(&(0..3).map(|d| a[d].eq(&b[d]).not()).collect::<Vec<_>>());
        if same_block {
            differ(&self.tid[0], &self.tid[1])
        } else {
            differ(&self.bid[0], &self.bid[1])
        }
    }

    /// The two thread copies (of one block) are in the same warp of `w` threads: their
    /// linear indices in the block (x fastest, as CUDA numbers warps) agree after
    /// division by `w`.
    pub fn same_warp(&mut self, w: u32) -> Bool {
        use BinOp::{Add, Div, Mul};
        // Built once per query: with a symbolic block size the products would add
        // monotonicity lemmas again each time.
        if let Some((size, same)) = &self.same_warp_memo
            && *size == w
        {
            return same.clone();
        }
        let cb = self.concrete_bdim;
        let mut warp = |c: usize| {
            let [x, y, z] = self.tid[c].clone();
            let [bx, by, _] = self.bdim.clone();
            let zy = self.arith(Mul, z, by, None, cb[1]);
            let row = self.arith(Add, y, zy, None, None);
            let rows = self.arith(Mul, row, bx, None, cb[0]);
            let linear = self.arith(Add, x, rows, None, None);
            let w = i64::from(w);
            self.arith(Div, linear, self.num(w), None, Some(w))
        };
        let (w0, w1) = (warp(0), warp(1));
        let same = w0.eq(&w1);
        self.same_warp_memo = Some((w, same.clone()));
        same
    }

    fn keep(&mut self, t: &T) {
        self.keep.push(t.clone());
    }

    /// The value of a term in a context.
    pub fn val(&mut self, t: &T, cx: usize) -> Val {
        let key = (Rc::as_ptr(t), cx);
        if let Some(v) = self.memo_v.get(&key) {
            return v.clone();
        }
        let v = self.val_uncached(t, cx);
        self.keep(t);
        self.memo_v.insert(key, v.clone());
        v
    }

    /// The truth of a term (`≠ 0`) in a context.
    pub fn cond(&mut self, t: &T, cx: usize) -> Bool {
        let key = (Rc::as_ptr(t), cx);
        if let Some(v) = self.memo_b.get(&key) {
            return v.clone();
        }
        let v = self.cond_uncached(t, cx);
        self.keep(t);
        self.memo_b.insert(key, v.clone());
        v
    }

    fn b2v(&self, b: &Bool) -> Val {
        self.ite(b, &self.num(1), &self.num(0))
    }

    fn nonzero(&self, v: &Val) -> Bool {
        match v {
            Val::I(x) => x.eq(0).not(),
            Val::B(x) => x.eq(BV::from_i64(0, x.get_size())).not(),
        }
    }

    fn is_iterish(&self, t: &T) -> bool {
        match &**t {
            Term::Iter(_) | Term::IterAdd(..) => true,
            Term::Atom(id, _) => self.sum.atoms.get(*id).is_some_and(|a| a.is_iteration()),
            _ => false,
        }
    }

    /// An iteration-valued term in the iteration domain.
    pub fn iter(&mut self, t: &T, cx: usize) -> Val {
        match &**t {
            Term::Iter(l) => match self.ctxs[cx].iters.get(l) {
                Some(v) => v.clone(),
                None => {
                    // Not bound by the context (only for kernels that read loop-local
                    // variables after their loop): any iteration will do.
                    let v = self.iter_var("unbound");
                    self.ctxs[cx].iters.insert(*l, v.clone());
                    v
                }
            },
            Term::IterAdd(k, off) => {
                let k = self.iter(k, cx);
                self.iter_add(&k, *off)
            }
            Term::Const(v) => self.inum(*v),
            Term::Atom(id, args) if self.sum.atoms.get(*id).is_some_and(|a| a.is_iteration()) => {
                self.atom(*id, args, cx)
            }
            _ => {
                let v = self.val(t, cx);
                self.val_to_iter(v)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The encoder's lemmas and exact operations, checked on concrete integers
    //! (negative ones included): a false lemma silently removes witnesses, which is
    //! how the product lemma for a negative factor once hid races.

    use super::arith::{and_const, bitop_facts, product_facts, shift_const, tdiv, tdiv_const};
    use super::*;
    use z3::ast::Ast;

    const SMALL: std::ops::RangeInclusive<i64> = -9..=9;

    fn holds(f: &Bool) -> bool {
        f.simplify().as_bool() == Some(true)
    }

    fn value(t: &Int) -> Option<i64> {
        t.simplify().as_i64()
    }

    /// Every product lemma is true of `p1 = x1·y1` and `p2 = x2·y2` for concrete values,
    /// with the common factor in each of the four positions.
    #[test]
    fn product_lemmas_are_true_of_every_small_integer() {
        for f in SMALL {
            for g1 in SMALL {
                for g2 in SMALL {
                    let (fv, a, b) = (Int::from_i64(f), Int::from_i64(g1), Int::from_i64(g2));
                    let (p1, p2) = (Int::from_i64(f * g1), Int::from_i64(f * g2));
                    for (x1, y1, x2, y2) in [
                        (&fv, &a, &fv, &b),
                        (&fv, &a, &b, &fv),
                        (&a, &fv, &fv, &b),
                        (&a, &fv, &b, &fv),
                    ] {
                        let prods = [
                            (x1.clone(), y1.clone(), p1.clone()),
                            (x2.clone(), y2.clone(), p2.clone()),
                        ];
                        let facts = product_facts(&prods);
                        assert!(facts.len() > 6, "the common factor was not found");
                        for fact in &facts {
                            assert!(holds(fact), "f={f} g1={g1} g2={g2}: {fact}");
                        }
                    }
                }
            }
        }
    }

    /// The bounds on `&`, `|`, `^` hold of two's complement results.
    #[test]
    fn bitop_facts_are_true_of_every_small_integer() {
        for x in -20..=20i64 {
            for y in -20..=20i64 {
                for (op, r) in [
                    (BinOp::BitAnd, x & y),
                    (BinOp::BitOr, x | y),
                    (BinOp::BitXor, x ^ y),
                ] {
                    let facts = bitop_facts(op, &Int::from_i64(x), &Int::from_i64(y), &Int::from_i64(r));
                    for fact in &facts {
                        assert!(holds(fact), "{x} {op:?} {y} = {r}: {fact}");
                    }
                }
            }
        }
    }

    /// `and_const`, `shift_const` and the truncating divisions compute what C does on
    /// signed values.
    #[test]
    fn exact_operations_agree_with_two_s_complement_and_c_division() {
        for x in -70..=70i64 {
            let xv = Int::from_i64(x);
            for c in [0i64, 1, 2, 3, 5, 6, 7, 12, 15, 16, 31, 255, -1, -4, -16] {
                assert_eq!(value(&and_const(&xv, c)), Some(x & c), "{x} & {c}");
            }
            for c in 0..6 {
                assert_eq!(
                    value(&shift_const(BinOp::Shl, &xv, c)),
                    Some(x << c),
                    "{x} << {c}"
                );
                assert_eq!(
                    value(&shift_const(BinOp::Shr, &xv, c)),
                    Some(x >> c),
                    "{x} >> {c}"
                );
            }
            for d in [-7i64, -3, -2, -1, 1, 2, 3, 8] {
                assert_eq!(value(&tdiv_const(&xv, d)), Some(x / d), "{x} / {d}");
                assert_eq!(value(&tdiv(&xv, &Int::from_i64(d))), Some(x / d), "{x} / {d}");
            }
        }
    }
}
