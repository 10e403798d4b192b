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

use kpl::{Arith, AtomicOp, BinOp, Builtin, UnOp};
use z3::ast::{Ast, BV, Bool, Int};
use z3::{FuncDecl, Sort};

use super::symbolic::{AtomKind, Summary};
use super::term::{AtomId, Class, LoopId, T, Term, any_node};

/// A Z3 value: `Int` (unbounded arithmetic) or `BV` (32-bit values, 64-bit iterations).
#[derive(Clone, Debug)]
pub enum Val {
    I(Int),
    B(BV),
}

/// The limit on a block's size, `bdim.x * bdim.y * bdim.z <= most`, for queries to
/// add lazily ([`Encoder::block_size_limit`]).
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

    /// `None` when the model's block keeps the limit; else a linear fact every
    /// launchable block keeps and the model's does not: with the model's `y` and `z`
    /// sizes, `x` is at most `most / (y * z)`.
    pub fn cut(&self, m: &z3::Model) -> Option<Bool> {
        let sizes: Vec<i64> = self.dims.iter().map(|d| d.as_i64(m)).collect::<Option<_>>()?;
        let product = sizes.iter().try_fold(1i64, |p, s| p.checked_mul(*s));
        if product.is_some_and(|p| p <= self.most) {
            return None;
        }
        let eq = |v: &Val, c: i64| match v {
            Val::I(x) => x.eq(Int::from_i64(c)),
            Val::B(x) => x.eq(BV::from_i64(c, x.get_size())),
        };
        let le = |v: &Val, c: i64| match v {
            Val::I(x) => x.le(Int::from_i64(c)),
            Val::B(x) => x.bvule(BV::from_i64(c, x.get_size())),
        };
        let shape = Bool::and(&[eq(&self.dims[1], sizes[1]), eq(&self.dims[2], sizes[2])]);
        let yz = sizes[1].saturating_mul(sizes[2]).max(1);
        Some(shape.implies(le(&self.dims[0], self.most / yz)))
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
    /// [`Encoder::same_warp`] for one warp size.
    same_warp_memo: Option<(u32, Bool)>,
    /// Loops whose [`Encoder::no_exit_before`] fact is being built (no recursion).
    exits_open: Vec<LoopId>,
    fresh: u32,
}

const U32_MAX: i64 = 0xFFFF_FFFF;

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
fn int_cast(ty: kpl::IntTy, x: &Int, range: Option<(i128, i128)>, facts: &mut Vec<Bool>) -> Int {
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

    /// The block's size, `bdim.x * bdim.y * bdim.z`, at most the launch bounds (else
    /// CUDA's 1024), when two or more of the sizes the kernel uses are symbolic (each
    /// is bounded on its own by [`Encoder::launch_facts`]). Nonlinear, so not one of
    /// the launch facts: a query adds linear cuts of it only when a model breaks it
    /// ([`BlockSizeLimit::cut`], `solver::decide`), so that witnesses are launches
    /// CUDA can make while the queries that do not need it keep their linear facts.
    pub fn block_size_limit(&self) -> Option<BlockSizeLimit> {
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

    /// Whose function of the iterations an atom is in a context: its thread copy's,
    /// its block's, its warp's (5 + copy: see [`Encoder::atom`]) or the grid's.
    fn owner(&self, id: AtomId, cx: usize) -> usize {
        match self.sum.atom_class(id) {
            Class::Thread => self.ctxs[cx].copy,
            Class::Block => 2 + self.ctxs[cx].block,
            Class::Warp => 5 + self.ctxs[cx].copy,
            Class::Grid => 4,
        }
    }

    fn atom(&mut self, id: AtomId, args: &[T], cx: usize) -> Val {
        match (self.sum.atoms.get(id).map(|a| &a.kind), args) {
            (Some(AtomKind::Other), [e]) => {
                return match self.partners.get(&cx).copied() {
                    Some(o) => self.val(e, o),
                    // No other thread in this query: any value (sound for an assumption).
                    None => self.fresh_val("other"),
                };
            }
            (Some(AtomKind::Input(_)), [_]) | (Some(AtomKind::Function(_)), _) => {
                // One function of the values for the launch (the index of a never-written
                // array, the arguments of `@f`): every copy, block and iteration shares it.
                let argv: Vec<Val> = args.iter().map(|a| self.val(a, cx)).collect();
                let sort = if self.wrap {
                    Sort::bitvector(32)
                } else {
                    Sort::int()
                };
                let f = self.ufs.entry((id, usize::MAX)).or_insert_with(|| {
                    let dom: Vec<&Sort> = argv.iter().map(|_| &sort).collect();
                    FuncDecl::new(format!("fn{id}"), &dom, &sort)
                });
                let v = apply_value(f, &argv, self.wrap);
                self.type_range(id, &v);
                return v;
            }
            _ => {}
        }
        let owner = self.owner(id, cx);
        let argv: Vec<Val> = args.iter().map(|a| self.iter(a, cx)).collect();
        let c = &self.ctxs[cx];
        if self.sum.atom_class(id) == Class::Warp && c.copy == 1 && c.block == 0 {
            // The second copy in the first copy's block: the first copy's warp's value
            // when the two are in one warp, its own warp's otherwise.
            let mine = self.owned_atom(id, owner, &argv, cx);
            let first = self.owned_atom(id, owner - 1, &argv, cx);
            let same = self.same_warp(self.sum.warp_size);
            return self.ite(&same, &first, &mine);
        }
        self.owned_atom(id, owner, &argv, cx)
    }

    /// Atom `id` as the function of the iterations `argv` that `owner` has.
    fn owned_atom(&mut self, id: AtomId, owner: usize, argv: &[Val], cx: usize) -> Val {
        let argv = argv.to_vec();
        let is_iter = self.sum.atoms.get(id).is_some_and(|a| a.is_iteration());
        let wrap = self.wrap;
        let f = self.ufs.entry((id, owner)).or_insert_with(|| {
            let (isort, vsort) = if wrap {
                (Sort::bitvector(64), Sort::bitvector(32))
            } else {
                (Sort::int(), Sort::int())
            };
            let range = if is_iter { isort.clone() } else { vsort };
            let dom: Vec<&Sort> = argv.iter().map(|_| &isort).collect();
            FuncDecl::new(format!("a{id}@{owner}"), &dom, &range)
        });
        let v = apply_value(f, &argv, wrap);
        self.atom_facts(id, owner, &argv, &v, cx);
        if let (Some(AtomKind::Read(stmt)), Val::I(x)) = (self.sum.atoms.get(id).map(|a| &a.kind), &v)
            && self.sum.counters.contains(stmt)
        {
            let c = &self.ctxs[cx];
            self.counter_apps.push(CounterApp {
                stmt: *stmt,
                copy: c.copy,
                block: c.block,
                argv: argv.clone(),
                value: x.clone(),
            });
        }
        v
    }

    /// A read through a type (`AtomInfo::ty`) returns a value of the type. The old
    /// value of a repetition-free counter only gets the lower bound: its lemma places
    /// the executions' ranges apart (even executions that do not happen), which an
    /// upper bound could make impossible for huge amounts, and an impossible query
    /// would hide its race.
    fn type_range(&mut self, id: AtomId, v: &Val) {
        let Some(info) = self.sum.atoms.get(id) else {
            return;
        };
        if let (Some(t), Val::I(x)) = (info.ty, v) {
            let lo = x.ge(Int::from_i128(t.min()));
            let counter = matches!(info.kind, AtomKind::Read(s) if self.sum.counters.contains(&s));
            if counter {
                self.facts.push(lo);
            } else {
                self.facts.push(Bool::and(&[lo, x.le(Int::from_i128(t.max()))]));
            }
        }
    }

    fn atom_facts(&mut self, id: AtomId, owner: usize, argv: &[Val], v: &Val, cx: usize) {
        self.type_range(id, v);
        let Some(info) = self.sum.atoms.get(id) else {
            return;
        };
        match &info.kind {
            AtomKind::Trip(_) => {
                let f = self.iter_bounds(v);
                self.facts.push(f);
            }
            AtomKind::Tail { op, c, last } => {
                let (op, c) = (*op, *c);
                let last = self.num(*last);
                let step = self.step(op, &last, c);
                let f = match (v, &last, &step) {
                    (Val::I(g), Val::I(l), Val::I(s)) => {
                        if matches!(op, BinOp::Div | BinOp::Shr) {
                            l.ge(0).implies(Bool::and(&[g.ge(0), g.le(s)]))
                        } else {
                            l.gt(0).implies(g.ge(s))
                        }
                    }
                    (Val::B(g), _, Val::B(s)) if matches!(op, BinOp::Div | BinOp::Shr) => g.bvule(s),
                    _ => Bool::from_bool(true),
                };
                self.facts.push(f);
            }
            AtomKind::Geo { op, c, init, .. } => {
                let (op, c, init) = (*op, *c, init.clone());
                let init = self.val(&init, cx);
                let step = self.step(op, &init, c);
                let f = match (v, &init, &step) {
                    (Val::I(g), Val::I(i0), Val::I(s)) => {
                        if matches!(op, BinOp::Div | BinOp::Shr) {
                            i0.ge(0).implies(Bool::and(&[g.ge(0), g.le(s)]))
                        } else {
                            i0.gt(0).implies(g.ge(s))
                        }
                    }
                    (Val::B(g), _, Val::B(s)) if matches!(op, BinOp::Div | BinOp::Shr) => g.bvule(s),
                    _ => Bool::from_bool(true),
                };
                self.facts.push(f);
                // Halving a 32-bit value 32 times leaves 0 (this bounds the iterations
                // of `for (d = n >> 1; d > 0; d >>= 1)` for a symbolic n).
                if let (Some(Val::I(k)), Val::I(g), Val::I(i0)) = (argv.last(), v, &init)
                    && matches!(op, BinOp::Div | BinOp::Shr)
                {
                    let small = Bool::and(&[i0.ge(0), i0.le(U32_MAX), k.ge(32)]);
                    self.facts.push(small.implies(g.eq(0)));
                }
                if let Some((k, outer)) = argv.split_last() {
                    // The value at iteration k (the atom stands for k ≥ 1).
                    let is_first = k.eq(&self.inum(0));
                    let value = match (&init, v) {
                        (Val::I(a), Val::I(b)) => Val::I(is_first.ite(a, b)),
                        (Val::B(a), Val::B(b)) => Val::B(is_first.ite(a, b)),
                        _ => v.clone(),
                    };
                    self.geo.push(GeoApp {
                        atom: id,
                        owner,
                        outer: outer.to_vec(),
                        k: k.clone(),
                        value,
                    });
                }
            }
            _ => {}
        }
    }

    /// One step of a geometric sequence.
    fn step(&mut self, op: BinOp, x: &Val, c: i64) -> Val {
        let cv = self.num(c);
        self.arith(op, x.clone(), cv, None, Some(c))
    }

    /// Adds the lemmas that need the whole formula: relations between two iterations of
    /// a geometric sequence, and between products with a common factor. Call once,
    /// after the formula is built.
    pub fn finish(&mut self) {
        self.product_lemmas();
        self.geo_lemmas();
        self.counter_lemmas();
    }

    /// Repetition-free counters (docs/semantics.md, Warps and atomics): two distinct
    /// executions of `atomic_add`s with positive operands on the same element of an array
    /// that nothing but `atomic_add`s of never-negative amounts modifies claim disjoint
    /// ranges `[old, old + amount)` (the element only grows), so in particular return
    /// distinct old values; `atomic_sub`s likewise claim `(old - amount, old]` when only
    /// such `atomic_sub`s modify the array. Unbounded arithmetic only (in 32 bits the
    /// counter could wrap around).
    ///
    /// The lemma does not ask the two executions to be enabled: in a real execution
    /// the values of the executions that happen are apart, and an application of the
    /// result's atom at an iteration or on a path the thread did not execute stands
    /// for no value the run computes (values on other paths are `ite`s that drop it,
    /// and a loop's closed forms only use iteration `k - 1` at iterations `k` the
    /// thread reaches), so it can be given a fresh value far from all others. This
    /// matters for the work queue `i = atomic_add(c, 1); while (i < n) { out[i] = ..;
    /// i = atomic_add(c, 1); }` (seed 000, Fig. 3): at iteration `k` the encoding does
    /// not know that the thread was inside iteration `k - 1`, where `i` came from.
    fn counter_lemmas(&mut self) {
        let apps = std::mem::take(&mut self.counter_apps);
        let mut inst = Vec::with_capacity(apps.len());
        for a in &apps {
            let Some(fact) = self.sum.accesses.iter().find(|f| f.stmt == a.stmt).cloned() else {
                inst.push(None);
                continue;
            };
            let cx = self.ctx(Ctx {
                copy: a.copy,
                block: a.block,
                iters: fact.loops.iter().copied().zip(a.argv.iter().cloned()).collect(),
            });
            let index = self.val(&fact.index, cx);
            let Some((op, operand)) = fact.atomic.as_ref() else {
                inst.push(None);
                continue;
            };
            // A counter's `atomic_inc` (never wrapping) adds 1.
            let amount = if *op == AtomicOp::Inc {
                Val::I(Int::from_i64(1))
            } else {
                self.val(operand, cx)
            };
            let Val::I(amount) = amount else {
                inst.push(None);
                continue;
            };
            let positive = amount.gt(0);
            // Counting down, `[old - amount + 1, old]`, is counting up on `-old`.
            let up = *op != AtomicOp::Sub;
            let value = if up { a.value.clone() } else { -&a.value };
            inst.push(Some((fact.array.clone(), positive, index, amount, value)));
        }
        for i in 0..apps.len() {
            for j in i + 1..apps.len() {
                let (a, b) = (&apps[i], &apps[j]);
                let (Some((arr_a, ok_a, idx_a, n_a, v_a)), Some((arr_b, ok_b, idx_b, n_b, v_b))) =
                    (&inst[i], &inst[j])
                else {
                    continue;
                };
                if arr_a != arr_b {
                    continue;
                }
                // Each block has its own copy of a shared counter: executions in two
                // blocks may return the same values.
                if a.block != b.block
                    && self
                        .sum
                        .accesses
                        .iter()
                        .any(|f| f.stmt == a.stmt && f.space == kpl::Space::Shared)
                {
                    continue;
                }
                let same_thread = a.copy == b.copy && a.block == b.block;
                let distinct = if !same_thread || a.stmt != b.stmt {
                    Bool::from_bool(true)
                } else {
                    let differ: Vec<Bool> = a.argv.iter().zip(&b.argv).map(|(x, y)| x.eq(y).not()).collect();
                    if differ.is_empty() {
                        continue;
                    }
                    Bool::or(&differ)
                };
                let pre = Bool::and(&[ok_a.clone(), ok_b.clone(), idx_a.eq(idx_b), distinct]);
                // The ranges `[old, old + amount)` the two executions claim are
                // disjoint: whichever ran second saw at least the first's old value
                // plus its amount.
                let apart = Bool::or(&[(v_a + n_a).le(v_b), (v_b + n_b).le(v_a)]);
                self.facts.push(pre.implies(apart));
            }
        }
    }

    /// Multiplication by a nonzero factor is strictly monotone: for `p1 = g1·f` and
    /// `p2 = g2·f`, `f ≥ 1 ∧ g1 < g2 ⟹ p1 + f ≤ p2` (and mirrored). Z3's incremental
    /// solver does not find these for `tid·m + i = tid'·m + i'` or `tid + bdim·k`, which
    /// are the index shapes of slice and stride loops; with them such queries are linear.
    fn product_lemmas(&mut self) {
        let prods = std::mem::take(&mut self.products);
        self.facts.extend(product_facts(&prods));
    }

    /// Facts relating two iterations of the same geometric sequence (one step apart is
    /// exact; further apart is monotone).
    fn geo_lemmas(&mut self) {
        let apps = std::mem::take(&mut self.geo);
        for (i, a) in apps.iter().enumerate() {
            for b in &apps[i + 1..] {
                if a.atom != b.atom || a.owner != b.owner {
                    continue;
                }
                let Some(AtomKind::Geo { op, c, .. }) = self.sum.atoms.get(a.atom).map(|x| x.kind.clone())
                else {
                    continue;
                };
                let same_outer: Vec<Bool> = a.outer.iter().zip(&b.outer).map(|(x, y)| x.eq(y)).collect();
                let same_outer = Bool::and(&same_outer);
                for (x, y) in [(a, b), (b, a)] {
                    let next = self.iter_add(&x.k, 1);
                    let step = self.step(op, &x.value, c);
                    let f = Bool::and(&[same_outer.clone(), y.k.eq(&next)]).implies(y.value.eq(&step));
                    self.facts.push(f);
                    if let (Val::I(xv), Val::I(yv), Val::I(s)) = (&x.value, &y.value, &step) {
                        let later = Bool::and(&[same_outer.clone(), self.iter_lt(&x.k, &y.k)]);
                        let mono = if matches!(op, BinOp::Div | BinOp::Shr) {
                            Bool::and(&[later, xv.ge(0)]).implies(yv.le(s))
                        } else {
                            Bool::and(&[later, xv.gt(0)]).implies(yv.ge(s))
                        };
                        self.facts.push(mono);
                    }
                }
            }
        }
    }

    fn val_uncached(&mut self, t: &T, cx: usize) -> Val {
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

    fn ite(&self, c: &Bool, a: &Val, b: &Val) -> Val {
        match (a, b) {
            (Val::I(x), Val::I(y)) => Val::I(c.ite(x, y)),
            (Val::B(x), Val::B(y)) => Val::B(c.ite(x, y)),
            (x, y) => Val::I(c.ite(&x.i(), &y.i())),
        }
    }

    fn cond_uncached(&mut self, t: &T, cx: usize) -> Bool {
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

    /// `x op c` for a bitwise `op`, a constant `c` and an `x` with a bit decomposition
    /// (thread and block ids, which lie in `[0, 2^32)`): a sum over the bits, with no
    /// division for the solver to split on (xor partners `tid ^ j` in bitonic sorts need
    /// this to be fast).
    fn bitwise_by_bits(&mut self, op: BinOp, a: &T, b: &T, cx: usize) -> Option<Int> {
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
    fn bitwise_pow2_by_bits(&mut self, op: BinOp, x: &T, m: &T, e: &T, cx: usize) -> Option<Val> {
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

    /// `f(2^e)` by cases on the exponent: `f(2^i)` for `0 ≤ i ≤ MAX_EXP`, `f(0)` for
    /// negative `e`, and `beyond` for larger ones (powers no guard of 32-bit values lets
    /// in, so that case rarely matters).
    ///
    /// `range` ([`Encoder::exp_cases`]) bounds the exponents that matter: below its
    /// low end (when that is 0 or more) and above its high end, `beyond`.
    fn pow2_cases(
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
    fn exp(&mut self, e: &T, cx: usize) -> Option<Exp> {
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
    fn exp_cases(&self, e: &T) -> (i64, i64) {
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

    /// Whether a term is nonnegative in every execution (thread and block ids, sizes,
    /// parameters and iteration numbers are).
    fn nonneg(&mut self, t: &T) -> bool {
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
    fn arith(&mut self, op: BinOp, x: Val, y: Val, cx: Option<i64>, cy: Option<i64>) -> Val {
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

/// Index bits compared by [`Encoder::same_index_bits`]: shared-memory indices are
/// far below `2^24`.
const INDEX_BITS: usize = 24;

/// The low bits of a value ([`Encoder::low_bits`]), valid where all of `valid` hold.
#[derive(Clone)]
struct Blast {
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

/// An exponent `sign·x + c` (`sign` = ±1) for case splits.
struct Exp {
    x: Int,
    sign: i64,
    c: i64,
}

impl Exp {
    /// The exponent equals `v`.
    fn is(&self, v: i64) -> Bool {
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
const MAX_EXP: i64 = 40;

/// The one `Pow2` node of a term that is constant but for it (`Pow2(e) - 1`), with the
/// term folding to a constant once the node is one.
fn single_pow2(t: &T) -> Option<T> {
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
fn substitute_pow2(b: &super::term::Builder, t: &T, v: i64) -> T {
    let mut r = super::term::Rewriter::new(*b, |b, n| match &**n {
        Term::Pow2(_) => Some(b.int(v)),
        _ => None,
    });
    r.run(t)
}

/// C division (truncating) by a nonzero constant.
fn tdiv_const(a: &Int, c: i64) -> Int {
    let m = Int::from_i128((c as i128).abs());
    let pos = a.div(&m);
    let neg = -((-a).div(&m));
    let q = a.ge(0).ite(&pos, &neg);
    if c < 0 { -q } else { q }
}

/// C division (truncating) by a nonzero value.
fn tdiv(a: &Int, b: &Int) -> Int {
    let (na, nb) = (-a, -b);
    a.ge(0).ite(
        &b.gt(0).ite(&a.div(b), &-(a.div(&nb))),
        &b.gt(0).ite(&-(na.div(b)), &na.div(&nb)),
    )
}

/// The lemmas of [`Encoder::product_lemmas`] for products `p = x·y` (as Z3 terms: the
/// factors are compared syntactically, so a common factor is one term). Pure, so that
/// every lemma can be checked on concrete integers (the tests below).
fn product_facts(prods: &[(Int, Int, Int)]) -> Vec<Bool> {
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
fn bitop_facts(op: BinOp, a: &Int, b: &Int, r: &Int) -> Vec<Bool> {
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
fn shift_const(op: BinOp, a: &Int, c: i64) -> Int {
    let p = Int::from_i128(1i128 << c);
    if op == BinOp::Shl { a * p } else { a.div(&p) }
}

/// `a & c` for a constant `c`, exactly, on two's complement integers: every run of
/// ones `[lo, hi]` in `c` contributes `((a div 2^lo) mod 2^(hi-lo+1))·2^lo`.
fn and_const(a: &Int, c: i64) -> Int {
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
fn sum(terms: &[Int]) -> Int {
    if terms.is_empty() {
        Int::from_i64(0)
    } else {
        Int::add(terms)
    }
}

/// `f(args)` as a value: a 32-bit vector under `--wrap`, else an integer (the sort every
/// function the encoder declares for atoms ranges over).
fn apply_value(f: &FuncDecl, args: &[Val], wrap: bool) -> Val {
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

#[cfg(test)]
mod tests {
    //! The encoder's lemmas and exact operations, checked on concrete integers
    //! (negative ones included): a false lemma silently removes witnesses, which is
    //! how the product lemma for a negative factor once hid races.

    use super::*;

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
