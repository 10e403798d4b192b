//! Symbolic terms: what one thread computes, as a function of its identity, the launch,
//! the parameters, the iteration numbers of its enclosing loops and *atoms* (values the
//! analysis does not know: memory reads, havocs, loop-carried values without a closed
//! form, loop trip counts).
//!
//! An atom is an uninterpreted function of the iteration numbers of the loops around the
//! place it is created (`Atom(id, [k1, .., kn])`), so substituting `k - 1` for `k` names
//! the same quantity one iteration earlier, and two instances with equal iteration
//! numbers get equal values. Every atom has a uniformity [`Class`]: whether all threads of
//! a block (or of the grid) that are inside its loops hold the same value, which decides
//! whether the two thread copies of a query share it.
//!
//! Terms are integer-valued like KPL expressions; comparisons and logical operators yield
//! 0 or 1. The smart constructors of [`Builder`] fold constants with the kernel's
//! [`Arith`] and drop neutral elements, which keeps the terms small and makes closed-form
//! patterns (`x + c`, `x >> 1`) visible to the loop analysis.

use std::collections::HashMap;
use std::rc::Rc;

use kpl::{Arith, BinOp, Builtin, IntTy, UnOp};

pub type T = Rc<Term>;
pub type AtomId = usize;
pub type LoopId = usize;

/// Which threads agree on a value (seed 002's uniformity, per block and per grid).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// The same for every thread of the grid (depends on parameters and launch sizes).
    Grid,
    /// The same for every thread of a block (may depend on the block id).
    Block,
    /// The same for every thread of a warp of the block (`warp_havoc`: a warp-wide
    /// collective's result); never a barrier's uniformity.
    Warp,
    /// May differ between threads.
    Thread,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Const(i64),
    Builtin(Builtin),
    /// A scalar parameter the options do not fix (index into the symbolic parameters),
    /// with its type (its range).
    Param(usize, IntTy),
    /// The iteration number (0-based) of a loop around the term's place.
    Iter(LoopId),
    /// `k + off` for an iteration-valued term `k` (iteration arithmetic).
    IterAdd(T, i64),
    /// An unknown, as a function of iteration numbers (see the module comment).
    Atom(AtomId, Vec<T>),
    Un(UnOp, T),
    Bin(BinOp, T, T),
    Ite(T, T, T),
    /// `entries[k]` for `k < entries.len()`, else `tail`: a geometric sequence with a
    /// known start (`s = 128; s >>= 1`), tabulated exactly. Entries are constants, or
    /// tables themselves when the start is tabulated by an outer loop (bitonic sort's
    /// `for (j = k / 2; j > 0; j >>= 1)` inside `for (k = 2; ...; k *= 2)`).
    Table(T, Rc<[T]>, T),
    /// `2^e` for `e ≥ 0`, 0 for `e < 0` (unbounded arithmetic only): the power-of-two
    /// geometric sequences (`s *= 2`, `s >>= 1`, and `j = k / 2` from an outer one)
    /// without tabulating them, so nested ones stay linear in the exponent.
    Pow2(T),
    /// The thread is inside its current iteration of the loop: `k < trip ∧ guard(k)`.
    /// Kept as a node so the encoder can add the exit fact `k = trip ⟹ ¬guard(k)`.
    InLoop(LoopId),
    /// A C conversion to an integer type ([`IntTy::convert`]); only built when the
    /// operand's range may leave the type's (see [`Builder::cast`]).
    Cast(IntTy, T),
}

impl Term {
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Term::Const(v) => Some(*v),
            _ => None,
        }
    }

    /// Whether the term is 0/1-valued (a condition).
    pub fn is_bool(&self) -> bool {
        use BinOp::*;
        match self {
            Term::Const(v) => *v == 0 || *v == 1,
            Term::Un(UnOp::Not, _) | Term::InLoop(_) => true,
            Term::Bin(op, _, _) => matches!(op, Eq | Ne | Lt | Le | Gt | Ge | And | Or),
            Term::Ite(_, a, b) => a.is_bool() && b.is_bool(),
            _ => false,
        }
    }

    /// Calls `f` on every direct subterm.
    pub fn for_each_child(&self, f: &mut impl FnMut(&T)) {
        match self {
            Term::Const(_) | Term::Builtin(_) | Term::Param(..) | Term::Iter(_) | Term::InLoop(_) => {}
            Term::IterAdd(a, _) | Term::Un(_, a) | Term::Pow2(a) | Term::Cast(_, a) => f(a),
            Term::Atom(_, args) => args.iter().for_each(f),
            Term::Bin(_, a, b) => {
                f(a);
                f(b);
            }
            Term::Ite(c, a, b) => {
                f(c);
                f(a);
                f(b);
            }
            Term::Table(k, entries, tail) => {
                f(k);
                entries.iter().for_each(&mut *f);
                f(tail);
            }
        }
    }

    /// Number of leaves of a (nested) table; 1 for anything else.
    pub fn table_size(&self) -> usize {
        match self {
            Term::Table(_, entries, tail) => {
                entries.iter().map(|e| e.table_size()).sum::<usize>() + tail.table_size()
            }
            _ => 1,
        }
    }
}

/// Builds terms with constant folding in one arithmetic.
#[derive(Clone, Copy, Debug)]
pub struct Builder {
    pub arith: Arith,
    /// The launch sizes the options give, per dimension (for [`Builder::range`]).
    pub block_dim: [Option<i64>; 3],
    pub grid_dim: [Option<i64>; 3],
    /// Threads per block at most (`__launch_bounds__`, else CUDA's 1024): a bound of
    /// each symbolic block size.
    pub max_threads: i64,
}

/// Threads along one dimension of a launch (`gridDim × blockDim`) are assumed to be at
/// most this many, so that `blockIdx.x * blockDim.x + threadIdx.x` fits an `int`, and
/// fewer, so that the width `blockDim.x * gridDim.x` (a grid-stride loop's stride) does
/// too (see the deviations in `verifier/mod.rs`).
pub const MAX_GRID_THREADS: i128 = 1 << 31;

impl Builder {
    /// A builder for a symbolic launch.
    pub fn new(arith: Arith) -> Builder {
        Builder {
            arith,
            block_dim: [None; 3],
            grid_dim: [None; 3],
            max_threads: 1024,
        }
    }

    pub fn int(&self, v: i64) -> T {
        Rc::new(Term::Const(self.arith.norm(v)))
    }

    pub fn tt(&self) -> T {
        self.int(1)
    }

    pub fn ff(&self) -> T {
        self.int(0)
    }

    pub fn leaf(&self, t: Term) -> T {
        Rc::new(t)
    }

    /// `t != 0` as a condition (the identity on conditions).
    pub fn truthy(&self, t: T) -> T {
        if t.is_bool() {
            t
        } else {
            self.bin(BinOp::Ne, t, self.int(0))
        }
    }

    pub fn not(&self, t: T) -> T {
        let t = self.truthy(t);
        match &*t {
            Term::Const(v) => self.int((*v == 0) as i64),
            Term::Un(UnOp::Not, inner) if inner.is_bool() => inner.clone(),
            _ => Rc::new(Term::Un(UnOp::Not, t)),
        }
    }

    pub fn and(&self, a: T, b: T) -> T {
        self.bin(BinOp::And, a, b)
    }

    pub fn or(&self, a: T, b: T) -> T {
        self.bin(BinOp::Or, a, b)
    }

    pub fn un(&self, op: UnOp, a: T) -> T {
        if op == UnOp::Not {
            return self.not(a);
        }
        if let Some(v) = a.as_const()
            && let Ok(r) = self.arith.unary(op, v)
        {
            return self.int(r);
        }
        Rc::new(Term::Un(op, a))
    }

    pub fn ite(&self, c: T, a: T, b: T) -> T {
        let c = self.truthy(c);
        match c.as_const() {
            Some(0) => return b,
            Some(_) => return a,
            None => {}
        }
        if Rc::ptr_eq(&a, &b) || a == b {
            return a;
        }
        // ite(c, 1, 0) is c itself.
        if a.as_const() == Some(1) && b.as_const() == Some(0) {
            return c;
        }
        Rc::new(Term::Ite(c, a, b))
    }

    pub fn bin(&self, op: BinOp, a: T, b: T) -> T {
        use BinOp::*;
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const())
            && let Ok(r) = self.arith.binary(op, x, y)
        {
            return self.int(r);
        }
        match op {
            And | Or => {
                let (a, b) = (self.truthy(a), self.truthy(b));
                let unit = if op == And { 1 } else { 0 };
                match (a.as_const(), b.as_const()) {
                    (Some(x), _) if x == unit => return b,
                    (_, Some(y)) if y == unit => return a,
                    (Some(_), _) => return a,
                    (_, Some(_)) => return b,
                    _ => {}
                }
                if Rc::ptr_eq(&a, &b) || a == b {
                    return a;
                }
                return Rc::new(Term::Bin(op, a, b));
            }
            Add | BitOr | BitXor if a.as_const() == Some(0) => return b,
            Add | Sub | BitOr | BitXor | Shl | Shr if b.as_const() == Some(0) => return a,
            Mul if a.as_const() == Some(1) => return b,
            Mul | Div if b.as_const() == Some(1) => return a,
            Mul if a.as_const() == Some(0) || b.as_const() == Some(0) => return self.int(0),
            _ => {}
        }
        if self.arith == Arith::Unbounded
            && let Some(t) = self.fold_pow2(op, &a, &b)
        {
            return t;
        }
        if self.arith == Arith::Unbounded
            && let Some(t) = self.compare_pow2(op, &a, &b)
        {
            return t;
        }
        // A table combined with a constant stays a table (`s - 1` for a known `s`),
        // when every entry folds.
        let folds = |t: &T| matches!(**t, Term::Const(_) | Term::Table(..));
        if let (Term::Table(k, entries, tail), Some(_)) = (&*a, b.as_const()) {
            let es: Vec<T> = entries
                .iter()
                .map(|e| self.bin(op, e.clone(), b.clone()))
                .collect();
            if es.iter().all(folds) {
                let tail = self.bin(op, tail.clone(), b.clone());
                return Rc::new(Term::Table(k.clone(), es.into(), tail));
            }
        }
        if let (Some(_), Term::Table(k, entries, tail)) = (a.as_const(), &*b) {
            let es: Vec<T> = entries
                .iter()
                .map(|e| self.bin(op, a.clone(), e.clone()))
                .collect();
            if es.iter().all(folds) {
                let tail = self.bin(op, a.clone(), tail.clone());
                return Rc::new(Term::Table(k.clone(), es.into(), tail));
            }
        }
        Rc::new(Term::Bin(op, a, b))
    }

    /// `x` converted to `ty`. The conversion is dropped when the operand's
    /// [`range`](Self::range) lies in the type's, folded for constants and, under `--wrap`
    /// (32-bit unsigned values), built from masks and sign extension.
    pub fn cast(&self, ty: IntTy, x: T) -> T {
        match self.arith {
            Arith::Wrap32 => {
                if ty.bits >= 32 {
                    return x;
                }
                let mask = (1i64 << ty.bits) - 1;
                let low = self.bin(BinOp::BitAnd, x, self.int(mask));
                if !ty.signed {
                    return low;
                }
                let sign = self.int(1i64 << (ty.bits - 1));
                self.bin(BinOp::Sub, self.bin(BinOp::BitXor, low, sign.clone()), sign)
            }
            Arith::Unbounded => {
                if let Some(v) = x.as_const()
                    && let Ok(c) = i64::try_from(ty.convert(i128::from(v)))
                {
                    return self.int(c);
                }
                match self.range(&x) {
                    Some((lo, hi)) if ty.contains(lo) && ty.contains(hi) => x,
                    _ => Rc::new(Term::Cast(ty, x)),
                }
            }
        }
    }

    /// Bounds `[lo, hi]` on a term's value in every execution (unbounded arithmetic),
    /// from constants, CUDA's launch limits (at most 1024 threads per block in x and y,
    /// 64 in z; at most 2^31 - 1 blocks in x and 65535 in y and z), parameter and
    /// conversion types, conditions, and interval arithmetic over them; `None` when
    /// unknown. Shallow on purpose: it only decides whether a conversion can be dropped.
    pub fn range(&self, t: &T) -> Option<(i128, i128)> {
        self.range_at(t, 8)
    }

    fn range_at(&self, t: &T, depth: u32) -> Option<(i128, i128)> {
        use BinOp::*;
        if t.is_bool() {
            return Some((0, 1));
        }
        if depth == 0 {
            return None;
        }
        let r = |x: &T| self.range_at(x, depth - 1);
        let most = i128::from(self.max_threads);
        let limit = |d: &kpl::Dim, xy: i128, z: i128| {
            if *d == kpl::Dim::Z {
                z.min(most)
            } else {
                xy.min(most)
            }
        };
        if let Some(d) = self.global_index_dim(t) {
            let concrete = self.block_dim[d.index()].zip(self.grid_dim[d.index()]);
            if concrete.is_none_or(|(b, g)| i128::from(b) * i128::from(g) <= MAX_GRID_THREADS) {
                return Some((0, MAX_GRID_THREADS - 1));
            }
        }
        // The grid's width along a dimension (a grid-stride loop's stride), by the same
        // assumption.
        if let Some(d) = self.grid_width_dim(t) {
            let concrete = self.block_dim[d.index()].zip(self.grid_dim[d.index()]);
            if concrete.is_none_or(|(b, g)| i128::from(b) * i128::from(g) < MAX_GRID_THREADS) {
                return Some((1, MAX_GRID_THREADS - 1));
            }
        }
        // `gridDim.d * y` or `blockIdx.d * y` with `0 <= y <= blockDim.d` (a block's
        // number of warps: `gridDim.x * meta_group_size()`, a warp's index in the grid
        // `blockIdx.x * meta_group_size() + meta_group_rank()`): within the grid's
        // width, by the same assumption.
        if let Term::Bin(Mul, x, y) = &**t {
            for (g, y) in [(x, y), (y, x)] {
                if let Term::Builtin(b @ (Builtin::Gdim(d) | Builtin::Bid(d))) = &**g
                    && let Some(hi) = self.share_of_width(y, *d, depth, matches!(b, Builtin::Bid(_)))
                {
                    return Some((0, hi));
                }
            }
        }
        match &**t {
            Term::Const(v) => Some((i128::from(*v), i128::from(*v))),
            Term::Builtin(Builtin::Tid(d)) => match self.block_dim[d.index()] {
                Some(b) => Some((0, i128::from(b) - 1)),
                None => Some((0, limit(d, 1024, 64) - 1)),
            },
            Term::Builtin(Builtin::Bdim(d)) => Some((1, limit(d, 1024, 64))),
            Term::Builtin(Builtin::Bid(d)) => match self.grid_dim[d.index()] {
                Some(g) => Some((0, i128::from(g) - 1)),
                None => Some((0, if *d == kpl::Dim::X { (1 << 31) - 2 } else { 65534 })),
            },
            Term::Builtin(Builtin::Gdim(d)) => {
                Some((1, if *d == kpl::Dim::X { (1 << 31) - 1 } else { 65535 }))
            }
            Term::Param(_, ty) | Term::Cast(ty, _) => Some((ty.min(), ty.max())),
            Term::Ite(_, x, y) => {
                let ((a, b), (c, d)) = (r(x)?, r(y)?);
                Some((a.min(c), b.max(d)))
            }
            Term::Un(UnOp::Neg, x) => r(x).map(|(a, b)| (-b, -a)),
            Term::Bin(Add, x, y) => {
                let ((a, b), (c, d)) = (r(x)?, r(y)?);
                Some((a.checked_add(c)?, b.checked_add(d)?))
            }
            Term::Bin(Sub, x, y) => {
                let ((a, b), (c, d)) = (r(x)?, r(y)?);
                Some((a.checked_sub(d)?, b.checked_sub(c)?))
            }
            Term::Bin(Mul, x, y) => {
                let ((a, b), (c, d)) = (r(x)?, r(y)?);
                let ps = [
                    a.checked_mul(c)?,
                    a.checked_mul(d)?,
                    b.checked_mul(c)?,
                    b.checked_mul(d)?,
                ];
                Some((*ps.iter().min()?, *ps.iter().max()?))
            }
            // A divisor known positive but not constant (`% gridDim.x`).
            Term::Bin(Rem, x, y) if y.as_const().is_none() => {
                let ((a, _), (c, d)) = (r(x)?, r(y)?);
                (c >= 1).then(|| (if a >= 0 { 0 } else { 1 - d }, d - 1))
            }
            Term::Bin(Div, x, y) if y.as_const().is_none() => {
                let ((a, b), (c, _)) = (r(x)?, r(y)?);
                (c >= 1).then(|| (a.min(0), b.max(0)))
            }
            Term::Bin(Div | Shr, x, y) => {
                let c = match (&**t, y.as_const()?) {
                    (Term::Bin(Shr, ..), s) if (0..63).contains(&s) => 1i128 << s,
                    (Term::Bin(Div, ..), c) if c > 0 => i128::from(c),
                    _ => return None,
                };
                let (a, b) = r(x)?;
                // Truncation toward zero (C's `/`) and toward -inf (`>>`) both stay
                // between the quotients of the bounds, rounded outward.
                Some((a.div_euclid(c).min(a / c), b / c))
            }
            Term::Bin(Shl, x, y) => {
                let s = y.as_const().filter(|s| (0..63).contains(s))?;
                let (a, b) = r(x)?;
                Some((a.checked_mul(1i128 << s)?, b.checked_mul(1i128 << s)?))
            }
            Term::Bin(Rem, x, y) => {
                let c = i128::from(y.as_const()?).abs();
                if c == 0 {
                    return None;
                }
                let (a, _) = r(x)?;
                Some((if a >= 0 { 0 } else { 1 - c }, c - 1))
            }
            Term::Bin(BitAnd, x, y) => {
                let nonneg = |z: &T| r(z).filter(|(lo, _)| *lo >= 0).map(|(_, hi)| hi);
                match (nonneg(x), nonneg(y)) {
                    (Some(p), Some(q)) => Some((0, p.min(q))),
                    (Some(p), None) | (None, Some(p)) => Some((0, p)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The largest value of `gridDim.d * y` (or, `block`, of `blockIdx.d * y`) when
    /// `0 <= y <= blockDim.d` in every execution, under the assumption that the grid's
    /// width `gridDim.d * blockDim.d` is below 2^31: `y` is `blockDim.d` divided (or
    /// shifted right) by a constant `c`, at most `(2^31 - 1) / c`; or the block size is
    /// concrete, `B`, and `y`'s range lies in `[0, yhi]` with `yhi <= B`, at most
    /// `⌊(2^31 - 1) / B⌋ · yhi` (a block less for `blockIdx.d`). `None` when it does not
    /// apply (a concrete launch wider than the assumption).
    fn share_of_width(&self, y: &T, d: kpl::Dim, depth: u32, block: bool) -> Option<i128> {
        let width = MAX_GRID_THREADS - 1;
        if let Some((b, g)) = self.block_dim[d.index()].zip(self.grid_dim[d.index()])
            && i128::from(b) * i128::from(g) > width
        {
            return None;
        }
        let is_bdim = |x: &T| matches!(&**x, Term::Builtin(Builtin::Bdim(e)) if *e == d);
        let divisor = match &**y {
            _ if is_bdim(y) => Some(1),
            Term::Bin(BinOp::Div, x, c) if is_bdim(x) => c.as_const().filter(|c| *c >= 1).map(i128::from),
            Term::Bin(BinOp::Shr, x, c) if is_bdim(x) => {
                c.as_const().filter(|c| (0..31).contains(c)).map(|c| 1i128 << c)
            }
            _ => None,
        };
        if let Some(c) = divisor {
            return Some(if block && c == 1 { width - 1 } else { width / c });
        }
        let b = i128::from(self.block_dim[d.index()]?);
        let (lo, hi) = if depth > 1 {
            self.range_at(y, depth - 1)?
        } else {
            return None;
        };
        if lo < 0 || hi > b {
            return None;
        }
        let most_blocks = width / b;
        Some(if block {
            (most_blocks - 1) * hi
        } else {
            most_blocks * hi
        })
    }

    /// The dimension `d` when `t` is `blockIdx.d * blockDim.d` or that plus
    /// `threadIdx.d` (in any order): a thread's index in the grid along `d`, below
    /// `gridDim.d * blockDim.d`.
    fn global_index_dim(&self, t: &T) -> Option<kpl::Dim> {
        let is_bdim = |x: &T, d: kpl::Dim| match &**x {
            Term::Builtin(Builtin::Bdim(e)) => *e == d,
            Term::Const(c) => self.block_dim[d.index()] == Some(*c),
            _ => false,
        };
        let product = |x: &T| match &**x {
            Term::Bin(BinOp::Mul, p, q) => match (&**p, &**q) {
                (Term::Builtin(Builtin::Bid(d)), _) if is_bdim(q, *d) => Some(*d),
                (_, Term::Builtin(Builtin::Bid(d))) if is_bdim(p, *d) => Some(*d),
                _ => None,
            },
            _ => None,
        };
        if let Some(d) = product(t) {
            return Some(d);
        }
        let Term::Bin(BinOp::Add, p, q) = &**t else {
            return None;
        };
        match (product(p), &**q, product(q), &**p) {
            (Some(d), Term::Builtin(Builtin::Tid(e)), ..)
            | (_, _, Some(d), Term::Builtin(Builtin::Tid(e)))
                if d == *e =>
            {
                Some(d)
            }
            _ => None,
        }
    }

    /// The dimension `d` when `t` is `blockDim.d * gridDim.d` (in either order, either
    /// one the launch's constant for it): the number of threads along `d`.
    fn grid_width_dim(&self, t: &T) -> Option<kpl::Dim> {
        let Term::Bin(BinOp::Mul, p, q) = &**t else {
            return None;
        };
        let size = |x: &T, d: kpl::Dim| match &**x {
            Term::Builtin(Builtin::Bdim(e)) if *e == d => Some(true),
            Term::Builtin(Builtin::Gdim(e)) if *e == d => Some(false),
            Term::Const(c) if self.block_dim[d.index()] == Some(*c) => Some(true),
            Term::Const(c) if self.grid_dim[d.index()] == Some(*c) => Some(false),
            _ => None,
        };
        // The dimension comes from the operand that is not a constant.
        let d = match (&**p, &**q) {
            (Term::Builtin(Builtin::Bdim(d) | Builtin::Gdim(d)), _)
            | (_, Term::Builtin(Builtin::Bdim(d) | Builtin::Gdim(d))) => *d,
            _ => return None,
        };
        match (size(p, d), size(q, d)) {
            (Some(a), Some(b)) if a != b => Some(d),
            _ => None,
        }
    }

    /// `2^e` (0 for negative `e`); a constant when `e` is one and small.
    pub fn pow2(&self, e: T) -> T {
        match e.as_const() {
            Some(v) if v < 0 => self.int(0),
            Some(v) if v <= 62 => self.int(1 << v),
            _ => Rc::new(Term::Pow2(e)),
        }
    }

    /// `Pow2(e) op c` as a power of two, when it is one.
    fn fold_pow2(&self, op: BinOp, a: &T, b: &T) -> Option<T> {
        let log2 = |c: i64| (c > 0 && c & (c - 1) == 0).then(|| i64::from(c.trailing_zeros()));
        let (e, shift) = match (&**a, &**b, op) {
            (Term::Pow2(e), _, BinOp::Div) => (e, -log2(b.as_const()?)?),
            (Term::Pow2(e), _, BinOp::Shr) => (e, -b.as_const().filter(|m| (0..63).contains(m))?),
            (Term::Pow2(e), _, BinOp::Mul) => (e, log2(b.as_const()?)?),
            (_, Term::Pow2(e), BinOp::Mul) => (e, log2(a.as_const()?)?),
            (Term::Pow2(e), _, BinOp::Shl) => (e, b.as_const().filter(|m| (0..63).contains(m))?),
            _ => return None,
        };
        // Shrinking is exact for any exponent (0 stays 0); growing 0 would not be.
        if shift > 0 && !exp_nonneg(e) {
            return None;
        }
        Some(self.pow2(self.bin(BinOp::Add, e.clone(), self.int(shift))))
    }

    /// `Pow2(e) cmp c` (either side) as a comparison of the exponent: the loop guards
    /// `s > 0`, `s < n` of power-of-two counters become linear in the iteration numbers
    /// instead of a case split over the power's values. Exact: `2^e` is 0 for `e < 0`.
    fn compare_pow2(&self, op: BinOp, a: &T, b: &T) -> Option<T> {
        use BinOp::*;
        let (e, c, op) = match (&**a, &**b) {
            (Term::Pow2(e), Term::Const(c)) => (e, *c, op),
            (Term::Const(c), Term::Pow2(e)) => {
                let flipped = match op {
                    Lt => Gt,
                    Le => Ge,
                    Gt => Lt,
                    Ge => Le,
                    Eq | Ne => op,
                    _ => return None,
                };
                (e, *c, flipped)
            }
            _ => return None,
        };
        // `2^e < c`, for every `e`: false for `c ≤ 0`, else `e < ⌈log2 c⌉`.
        let below = |c: i128| -> T {
            if c <= 0 {
                return self.ff();
            }
            let l = 128 - (c - 1).leading_zeros() as i64;
            self.bin(Lt, e.clone(), self.int(l))
        };
        let c = i128::from(c);
        Some(match op {
            Lt => below(c),
            Le => below(c + 1),
            Gt => self.not(below(c + 1)),
            Ge => self.not(below(c)),
            Eq | Ne => {
                let eq = if c == 0 {
                    self.bin(Lt, e.clone(), self.int(0))
                } else if c > 0 && c & (c - 1) == 0 {
                    self.bin(Eq, e.clone(), self.int(c.trailing_zeros() as i64))
                } else {
                    self.ff()
                };
                if op == Eq { eq } else { self.not(eq) }
            }
            _ => return None,
        })
    }

    /// `k + off` on iteration numbers.
    pub fn iter_add(&self, k: T, off: i64) -> T {
        if off == 0 {
            return k;
        }
        match &*k {
            Term::IterAdd(inner, o) => self.iter_add(inner.clone(), o + off),
            Term::Const(v) => self.int(v + off),
            _ => Rc::new(Term::IterAdd(k, off)),
        }
    }

    pub fn table(&self, k: T, entries: Vec<T>, tail: T) -> T {
        if let Some(kv) = k.as_const() {
            return usize::try_from(kv)
                .ok()
                .and_then(|i| entries.get(i).cloned())
                .unwrap_or(tail);
        }
        Rc::new(Term::Table(k, entries.into(), tail))
    }
}

/// A node replacement for [`Rewriter`].
type Rewrite<'a> = Box<dyn FnMut(&Builder, &T) -> Option<T> + 'a>;

/// An exponent that is nonnegative in every execution (constants, iteration numbers
/// and their sums with nonnegative coefficients).
pub fn exp_nonneg(e: &T) -> bool {
    match &**e {
        Term::Const(v) => *v >= 0,
        Term::Iter(_) => true,
        Term::IterAdd(k, off) => *off >= 0 && exp_nonneg(k),
        Term::Bin(BinOp::Add, x, y) => exp_nonneg(x) && exp_nonneg(y),
        Term::Bin(BinOp::Mul, x, y) => {
            (x.as_const().is_some_and(|c| c >= 0) && exp_nonneg(y))
                || (y.as_const().is_some_and(|c| c >= 0) && exp_nonneg(x))
        }
        _ => false,
    }
}

/// Rewrites a term bottom-up: `f` may replace a node (given its rebuilt children);
/// returning `None` keeps the node. Shared subterms are rewritten once.
pub struct Rewriter<'a> {
    pub b: Builder,
    memo: HashMap<*const Term, T>,
    f: Rewrite<'a>,
}

impl<'a> Rewriter<'a> {
    pub fn new(b: Builder, f: impl FnMut(&Builder, &T) -> Option<T> + 'a) -> Rewriter<'a> {
        Rewriter {
            b,
            memo: HashMap::new(),
            f: Box::new(f),
        }
    }

    pub fn run(&mut self, t: &T) -> T {
        let key = Rc::as_ptr(t);
        if let Some(r) = self.memo.get(&key) {
            return r.clone();
        }
        let b = self.b;
        let rebuilt = match &**t {
            Term::Const(_) | Term::Builtin(_) | Term::Param(..) | Term::Iter(_) | Term::InLoop(_) => {
                t.clone()
            }
            Term::IterAdd(k, off) => {
                let k2 = self.run(k);
                if Rc::ptr_eq(k, &k2) {
                    t.clone()
                } else {
                    b.iter_add(k2, *off)
                }
            }
            Term::Pow2(e) => {
                let e2 = self.run(e);
                if Rc::ptr_eq(e, &e2) { t.clone() } else { b.pow2(e2) }
            }
            Term::Cast(ty, e) => {
                let e2 = self.run(e);
                if Rc::ptr_eq(e, &e2) {
                    t.clone()
                } else {
                    b.cast(*ty, e2)
                }
            }
            Term::Atom(id, args) => {
                let args2: Vec<T> = args.iter().map(|a| self.run(a)).collect();
                if args.iter().zip(&args2).all(|(x, y)| Rc::ptr_eq(x, y)) {
                    t.clone()
                } else {
                    Rc::new(Term::Atom(*id, args2))
                }
            }
            Term::Un(op, a) => {
                let a2 = self.run(a);
                if Rc::ptr_eq(a, &a2) {
                    t.clone()
                } else {
                    b.un(*op, a2)
                }
            }
            Term::Bin(op, x, y) => {
                let (x2, y2) = (self.run(x), self.run(y));
                if Rc::ptr_eq(x, &x2) && Rc::ptr_eq(y, &y2) {
                    t.clone()
                } else {
                    b.bin(*op, x2, y2)
                }
            }
            Term::Ite(c, x, y) => {
                let (c2, x2, y2) = (self.run(c), self.run(x), self.run(y));
                if Rc::ptr_eq(c, &c2) && Rc::ptr_eq(x, &x2) && Rc::ptr_eq(y, &y2) {
                    t.clone()
                } else {
                    b.ite(c2, x2, y2)
                }
            }
            Term::Table(k, entries, tail) => {
                let (k2, tail2) = (self.run(k), self.run(tail));
                let es: Vec<T> = entries.iter().map(|e| self.run(e)).collect();
                if Rc::ptr_eq(k, &k2)
                    && Rc::ptr_eq(tail, &tail2)
                    && entries.iter().zip(&es).all(|(x, y)| Rc::ptr_eq(x, y))
                {
                    t.clone()
                } else {
                    b.table(k2, es, tail2)
                }
            }
        };
        let out = (self.f)(&b, &rebuilt).unwrap_or(rebuilt);
        self.memo.insert(key, out.clone());
        out
    }
}

/// Whether `pred` holds for some node of the term (shared subterms visited once).
pub fn any_node(t: &T, pred: &mut impl FnMut(&Term) -> bool) -> bool {
    fn go(
        t: &T,
        pred: &mut impl FnMut(&Term) -> bool,
        seen: &mut std::collections::HashSet<*const Term>,
    ) -> bool {
        if !seen.insert(Rc::as_ptr(t)) {
            return false;
        }
        if pred(t) {
            return true;
        }
        let mut found = false;
        t.for_each_child(&mut |c| {
            if !found {
                found = go(c, pred, seen);
            }
        });
        found
    }
    go(t, pred, &mut std::collections::HashSet::new())
}

/// Splits `t` as `coef·x + rest` for the atom `x` (any arguments), where `rest` does not
/// mention `x`; `None` when `t` is not linear in `x`.
pub fn linear_in(b: &Builder, t: &T, x: AtomId) -> Option<(i64, T)> {
    let mentions = |t: &T| any_node(t, &mut |n| matches!(n, Term::Atom(id, _) if *id == x));
    if !mentions(t) {
        return Some((0, t.clone()));
    }
    match &**t {
        Term::Atom(id, _) if *id == x => Some((1, b.int(0))),
        Term::Bin(BinOp::Add, p, q) => {
            let (c1, r1) = linear_in(b, p, x)?;
            let (c2, r2) = linear_in(b, q, x)?;
            Some((c1.checked_add(c2)?, b.bin(BinOp::Add, r1, r2)))
        }
        Term::Bin(BinOp::Sub, p, q) => {
            let (c1, r1) = linear_in(b, p, x)?;
            let (c2, r2) = linear_in(b, q, x)?;
            Some((c1.checked_sub(c2)?, b.bin(BinOp::Sub, r1, r2)))
        }
        Term::Un(UnOp::Neg, p) => {
            let (c, r) = linear_in(b, p, x)?;
            Some((c.checked_neg()?, b.un(UnOp::Neg, r)))
        }
        // A counter's step converted back to the counter's type (`i += blockDim.x` on an
        // `int i` is `i = (int)((unsigned)i + blockDim.x)`): the identity under the
        // no-overflow assumption, which here says the counter stays in its type.
        Term::Cast(_, p) => linear_in(b, p, x),
        // A step taken only under a condition that does not depend on `x` (a
        // loop-invariant `if (active) i = i + c;` gives the step `ite(active, c, 0)`).
        Term::Ite(c, p, q) if !mentions(c) => {
            let (c1, r1) = linear_in(b, p, x)?;
            let (c2, r2) = linear_in(b, q, x)?;
            (c1 == c2).then(|| (c1, b.ite(c.clone(), r1, r2)))
        }
        Term::Bin(BinOp::Mul, p, q) => {
            let (k, other) = match (p.as_const(), q.as_const()) {
                (Some(k), _) => (k, q),
                (_, Some(k)) => (k, p),
                _ => return None,
            };
            let (c, r) = linear_in(b, other, x)?;
            Some((c.checked_mul(k)?, b.bin(BinOp::Mul, b.int(k), r)))
        }
        _ => None,
    }
}

/// Uniformity of terms, given the classes of atoms. `ignore` names atoms that count as
/// uniform (the trip count of the loop being analysed: threads inside one of its
/// iterations agree on being inside).
pub fn class_of(
    t: &T,
    atom_class: &impl Fn(AtomId) -> Class,
    loop_class: &impl Fn(LoopId) -> Class,
) -> Class {
    fn go(
        t: &T,
        ac: &impl Fn(AtomId) -> Class,
        lc: &impl Fn(LoopId) -> Class,
        memo: &mut HashMap<*const Term, Class>,
    ) -> Class {
        if let Some(c) = memo.get(&Rc::as_ptr(t)) {
            return *c;
        }
        let mut c = match &**t {
            Term::Builtin(Builtin::Tid(_)) => Class::Thread,
            Term::Builtin(Builtin::Bid(_)) => Class::Block,
            Term::Atom(id, _) => ac(*id),
            Term::InLoop(l) => lc(*l),
            _ => Class::Grid,
        };
        if c != Class::Thread {
            t.for_each_child(&mut |ch| c = c.max(go(ch, ac, lc, memo)));
        }
        memo.insert(Rc::as_ptr(t), c);
        c
    }
    go(t, atom_class, loop_class, &mut HashMap::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_and_neutral_elements() {
        let b = Builder::new(Arith::Unbounded);
        let x = b.leaf(Term::Param(0, IntTy::U32));
        assert_eq!(b.bin(BinOp::Add, x.clone(), b.int(0)), x);
        assert_eq!(b.bin(BinOp::Div, b.int(-7), b.int(2)).as_const(), Some(-3));
        assert!(b.and(b.tt(), b.bin(BinOp::Lt, x.clone(), b.int(3))).is_bool());
        assert_eq!(b.ite(b.tt(), x.clone(), b.int(4)), x);
        let w = Builder::new(Arith::Wrap32);
        assert_eq!(
            w.bin(BinOp::Sub, w.int(0), w.int(1)).as_const(),
            Some(0xFFFF_FFFF)
        );
    }

    #[test]
    fn tables_absorb_constants() {
        let b = Builder::new(Arith::Unbounded);
        let k = b.leaf(Term::Iter(0));
        let s = b.table(k, [8, 4, 2, 1, 0].map(|v| b.int(v)).to_vec(), b.int(0));
        let m = b.bin(BinOp::Sub, s, b.int(1));
        match &*m {
            Term::Table(_, vals, tail) => {
                let vals: Vec<Option<i64>> = vals.iter().map(|v| v.as_const()).collect();
                assert_eq!(vals, [7, 3, 1, 0, -1].map(Some));
                assert_eq!(tail.as_const(), Some(-1));
            }
            other => panic!("not a table: {other:?}"),
        }
    }

    /// `Pow2(e) cmp c` rewritten on the exponent agrees with comparing `2^e` (0 for
    /// `e < 0`) at every exponent and constant tried.
    #[test]
    fn power_comparisons_on_exponents() {
        let b = Builder::new(Arith::Unbounded);
        let k = b.leaf(Term::Iter(0));
        let e = b.bin(BinOp::Sub, b.int(3), k);
        let p = b.pow2(e);
        for op in [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq, BinOp::Ne] {
            for c in [-2i64, 0, 1, 2, 3, 4, 5, 7, 8, 9, 1 << 40] {
                for (l, r, flip) in [(p.clone(), b.int(c), false), (b.int(c), p.clone(), true)] {
                    let t = b.bin(op, l, r);
                    assert!(!matches!(&*t, Term::Bin(_, x, _) if matches!(**x, Term::Pow2(_))));
                    for kv in 0..8 {
                        let ev = 3 - kv;
                        let pv = if ev < 0 { 0 } else { 1i64 << ev };
                        let want = if flip {
                            b.arith.binary(op, c, pv)
                        } else {
                            b.arith.binary(op, pv, c)
                        };
                        let got = crate::verifier::symbolic::substitute_iter(&b, &t, 0, &b.int(kv));
                        assert_eq!(got.as_const(), want.ok(), "{op:?} {c} at k = {kv}");
                    }
                }
            }
        }
    }

    #[test]
    fn linear_decomposition() {
        let b = Builder::new(Arith::Unbounded);
        let x = b.leaf(Term::Atom(3, vec![]));
        let n = b.leaf(Term::Param(0, IntTy::U32));
        let t = b.bin(BinOp::Add, b.bin(BinOp::Add, x.clone(), n.clone()), b.int(2));
        let (c, rest) = linear_in(&b, &t, 3).unwrap();
        assert_eq!(c, 1);
        assert_eq!(rest, b.bin(BinOp::Add, n.clone(), b.int(2)));
        assert!(linear_in(&b, &b.bin(BinOp::Mul, x.clone(), x.clone()), 3).is_none());
        // A conditional step.
        let c = b.bin(
            BinOp::Lt,
            b.leaf(Term::Builtin(Builtin::Tid(kpl::Dim::X))),
            n.clone(),
        );
        let t = b.ite(c.clone(), b.bin(BinOp::Sub, x.clone(), b.int(3)), x);
        let (coef, step) = linear_in(&b, &t, 3).unwrap();
        assert_eq!(coef, 1);
        assert_eq!(step, b.ite(c, b.un(UnOp::Neg, b.int(3)), b.int(0)));
    }
}
