//! Symbolic execution of one thread: for every access, barrier and `assume`, the terms of
//! its index (or condition) and of its predicate — whether the thread is enabled there —
//! as functions of the thread, the launch, the parameters and the iteration numbers of the
//! enclosing loops.
//!
//! Control flow follows the SDV semantics (docs/semantics.md, Execution model) directly, so
//! no separate desugaring pass is needed: an `if` runs its then-block under `path ∧ c` and
//! then its else-block under `path ∧ ¬c`; `return`, `break` and `continue` set per-thread
//! flags that switch the predicate off for the rest of the kernel, the loop or the
//! iteration; assignments are predicated (`x := ite(active, e, x)`).
//!
//! Loops are not unrolled and need no invariants. The value of a loop-carried variable at
//! the start of iteration `k` is, by what one symbolic pass over the body shows:
//! - unchanged, or `init + c·k` (an induction variable with a loop-invariant step, also
//!   one taken under a loop-invariant condition: `ite(c, s, 0)·k`);
//! - a geometric sequence (`s *= 2`, `s >>= 1`, `s /= 2`): `2^(e0 ± m·k)` when the start
//!   is a power of two, a constant one included (`Term::Pow2`, so nested sequences like
//!   bitonic sort's stay exact and linear in the exponent; unbounded arithmetic only);
//!   else tabulated exactly when the start is a known constant and the guard ends the
//!   table soon; else an atom with sound bounds (see the encoder);
//! - `e(k - 1)` when its end-of-iteration value `e` depends only on resolved variables;
//! - otherwise an atom (an arbitrary value; the guard still constrains it).
//!
//! Whether a thread is inside iteration `k` is `k < trip ∧ guard(k)` with `trip` an atom:
//! the thread's trip count. It is shared by all threads of a block when the loop's guard
//! and exits are uniform, which is what makes barriers in loops provably executed.
//! Values inside a loop body are computed *relative to being inside the loop* (the entry
//! predicate and the trip count are not folded into them): threads inside one iteration
//! agree on a variable when its updates are uniform, whatever happened before the loop.
//! Predicates of statements do include the entry predicate and `InLoop` of every loop.

use kpl::{Arith, AtomicOp, BinOp, Block, Builtin, Expr, IntTy, Kernel, Space, Span, Stmt, StmtId, StmtKind};
use std::collections::{BTreeSet, HashMap, HashSet};

use super::candidates;
use super::term::{
    AtomId, Builder, Class, LoopId, Rewriter, T, Term, any_node, class_of, exp_nonneg, linear_in,
};
use crate::{AccessKind, CheckOptions};

/// What an atom stands for (for facts, names and diagnostics).
#[derive(Clone, Debug)]
pub enum AtomKind {
    /// The value a read (or an atomic) returns.
    Read(StmtId),
    /// `havoc x`, `local x;` without initializer, or division results the analysis drops.
    Arbitrary(StmtId),
    /// A variable used before any assignment (only kernels that skip the scope check).
    Unknown(String),
    /// Placeholder for a loop-carried value during the analysis of its loop (never
    /// reaches the encoder).
    Start(LoopId, String),
    /// A loop-carried value without closed form, at iteration `k ≥ 1`.
    Carried(LoopId, String),
    /// A geometric sequence `x(k) = step^k(init)` with a symbolic start, at `k ≥ 1`.
    Geo { lp: LoopId, op: BinOp, c: i64, init: T },
    /// A tabulated geometric sequence past its table, whose last entry is `last`: at
    /// least one more step away from it.
    Tail { op: BinOp, c: i64, last: i64 },
    /// The trip count of a loop (iteration-valued).
    Trip(LoopId),
    /// A loop-carried value after a loop left with `break`.
    After(LoopId, String),
    /// Whether the thread executed `return` inside the loop (0/1).
    Returned(LoopId),
    /// The contents of a global array that no statement writes (and no atomic updates),
    /// as one function of the index for the whole launch: its one argument is the
    /// index, a value, not an iteration (see `Exec::read_class`).
    Input(String),
    /// `other(e)` in a two-thread `assume`: its one argument is `e`, evaluated in the
    /// other thread copy of the query (see [`AssumeFact::two_thread`]).
    Other,
    /// `@f(..)`: the uninterpreted function `f` of KPL ([`Expr::Apply`]), one for the
    /// launch; its arguments are values, and every copy, block and iteration shares it.
    Function(String),
}

#[derive(Clone, Debug)]
pub struct AtomInfo {
    pub kind: AtomKind,
    pub class: Class,
    /// Number of iteration arguments.
    pub arity: usize,
    /// The type a read's value is known to have (`x = u32(A[i]);`): the encoder adds
    /// that it is in the type's range, and encodes `Cast(ty, atom)` as the atom itself
    /// (unbounded arithmetic). Reads through distinct types get distinct atoms.
    pub ty: Option<IntTy>,
}

impl AtomInfo {
    /// Iteration-valued atoms (trip counts) live in the iteration domain of the encoder.
    pub fn is_iteration(&self) -> bool {
        matches!(self.kind, AtomKind::Trip(_))
    }

    /// Atoms whose argument is a value rather than iteration numbers
    /// ([`AtomKind::Input`], [`AtomKind::Other`], [`AtomKind::Function`]).
    pub fn takes_value(&self) -> bool {
        matches!(
            self.kind,
            AtomKind::Input(_) | AtomKind::Other | AtomKind::Function(_)
        )
    }
}

#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub stmt: StmtId,
    /// The trip count's atom, unless the trip count is a known constant.
    pub trip: Option<AtomId>,
    /// The trip count: the atom applied to the enclosing loops' iterations, or a
    /// constant.
    pub trip_term: T,
    /// The guard at iteration `Iter(self)`.
    pub guard: T,
    /// `break` or `return` can leave the loop while its guard holds.
    pub exit_jumps: bool,
    /// No thread starts a second iteration ([`runs_once`]).
    pub once: bool,
    /// Whether the thread leaves the loop by `break` or `return` during iteration
    /// `Iter(self)` (relative to being inside it; `0` without such exits): a thread
    /// inside iteration `k` did not leave in iteration `k - 1` (the encoder's fact).
    pub exits: T,
}

#[derive(Clone, Debug)]
pub struct AccessFact {
    pub stmt: StmtId,
    pub span: Span,
    pub array: String,
    pub space: Space,
    pub kind: AccessKind,
    pub index: T,
    pub pred: T,
    /// Enclosing loops, outermost first.
    pub loops: Vec<LoopId>,
    /// Position in program text order (pre-order of statements).
    pub pos: u32,
    /// The operand of an atomic (for the repetition-free counter refinement).
    pub atomic: Option<(kpl::AtomicOp, T)>,
    /// The value a plain write stores (benign write-write pairs store equal values).
    pub value: Option<T>,
}

#[derive(Clone, Debug)]
pub struct BarrierFact {
    pub stmt: StmtId,
    pub span: Span,
    pub pred: T,
    /// Reached by every thread inside the current iterations of its loops (no
    /// condition, `return`, `break` or `continue` before it in them).
    pub unconditional: bool,
    pub loops: Vec<LoopId>,
    pub pos: u32,
    /// `__syncwarp()`: synchronizes (and must be reached by) the threads of one warp
    /// only.
    pub warp: bool,
    /// A grid barrier: synchronizes (and must be reached by) every thread of the grid.
    pub grid: bool,
    /// The ordering point of a last-block ticket ([`StmtKind::TicketBarrier`]): a grid
    /// barrier whose divergence is not reported (a block that skips its ticket leaves
    /// no block last); it orders only where it is never divergent, like every barrier.
    pub ticket: bool,
}

#[derive(Clone, Debug)]
pub struct AssumeFact {
    pub pred: T,
    pub cond: T,
    pub loops: Vec<LoopId>,
    pub pos: u32,
    /// The condition names the other thread (`other(e)`, [`AtomKind::Other`]): it holds
    /// for every ordered pair of distinct threads that both reach the `assume`, so a
    /// query asserts it for its two thread copies jointly, in both orders. Only
    /// `assume`s outside loops are two-thread (inside one, the two threads of a query
    /// may be at different iterations, so `other(e)` is an arbitrary value there).
    pub two_thread: bool,
}

/// Everything the queries need about one kernel.
#[derive(Clone, Debug)]
pub struct Summary {
    pub arith: Arith,
    pub atoms: Vec<AtomInfo>,
    pub loops: Vec<Option<LoopInfo>>,
    pub accesses: Vec<AccessFact>,
    pub barriers: Vec<BarrierFact>,
    pub assumes: Vec<AssumeFact>,
    pub requires: Vec<T>,
    /// Scalar parameters the options leave symbolic, by `Term::Param` index.
    pub params: Vec<String>,
    /// Their types (the range each one's value lies in).
    pub param_types: Vec<kpl::IntTy>,
    /// Scalar parameters with a known value (options, or `requires n == c`).
    pub fixed_params: Vec<(String, i64)>,
    /// Dimensions (x, y, z) some builtin of the kernel names; symbolic launches have
    /// size 1 in the others.
    pub dims_used: [bool; 3],
    /// `atomic_add`s on arrays that only `atomic_add`s of never-negative amounts modify,
    /// and `atomic_sub`s on arrays only such `atomic_sub`s modify (repetition-free
    /// counters, whose results the encoder knows to be apart); empty under `Wrap32` and
    /// `CheckOptions::wrapping`.
    pub counters: HashSet<StmtId>,
    /// Launch sizes known per dimension (options, or `requires bdim == c`).
    pub block_dim: [Option<i64>; 3],
    pub grid_dim: [Option<i64>; 3],
    /// Threads per block at most (`__launch_bounds__`, else CUDA's 1024).
    pub max_threads: i64,
    /// The threads of a warp, for [`Class::Warp`] values (`--warp-size`, else 32).
    pub warp_size: u32,
    /// Per loop, the candidate invariants to prove ([`super::invariants`]) and where
    /// the proved ones hold.
    pub invariants: Vec<LoopInvariants>,
    /// `invariant` statements that are not at the head of a loop body: never used.
    pub misplaced_invariants: Vec<Span>,
}

/// Where a candidate invariant comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Generated from the loop ([`super::invariants`]).
    Generated,
    /// An `invariant` statement of the kernel (GPUVerify's `__invariant`).
    Annotated(Span),
}

#[derive(Clone, Debug)]
pub struct Candidate {
    /// A condition over the start-of-iteration atoms of the loop, `Iter(loop)` and values
    /// from before the loop.
    pub cond: T,
    pub origin: Origin,
}

/// One loop's candidate invariants, the terms to prove them with (from the analysis
/// pass: the start-of-iteration values are the loop's `Start` atoms) and the places
/// where the proved ones are used.
#[derive(Clone, Debug)]
pub struct LoopInvariants {
    pub lp: LoopId,
    /// The `Start` atoms of the carried variables.
    pub starts: Vec<AtomId>,
    /// The carried variables' values before the loop.
    pub inits: Vec<T>,
    /// Their values at the end of an iteration (over the start atoms).
    pub ends: Vec<T>,
    /// The guard over the start atoms.
    pub guard: T,
    /// Whether the thread leaves the loop by `break` or `return` in the iteration.
    pub exits: T,
    pub candidates: Vec<Candidate>,
    /// The carried variables at the head of iteration `Iter(loop)` (the final pass's
    /// forms): a proved invariant holds of them whenever `head_pred` does.
    pub head: Vec<T>,
    /// Some carried value has no closed form (else the head needs no invariant).
    pub in_loop: bool,
    pub head_pred: T,
    /// The loops around the body, the loop included, and the loop statement's position.
    pub head_loops: Vec<LoopId>,
    pub head_pos: u32,
    /// After the loop: the head values the thread left the loop with, each under its
    /// condition, when the thread is enabled after the loop (`after_pred`).
    pub after: Vec<(T, Vec<T>, T)>,
    /// Per carried variable: its value after the loop is one of those (not after a
    /// `break` that follows an assignment to it): only invariants over such
    /// variables hold after the loop.
    pub after_exact: Vec<bool>,
    pub after_pred: T,
    pub after_loops: Vec<LoopId>,
    /// The position of the loop's last statement.
    pub after_pos: u32,
}

impl Summary {
    pub fn builder(&self) -> Builder {
        Builder {
            arith: self.arith,
            block_dim: self.block_dim,
            grid_dim: self.grid_dim,
            max_threads: self.max_threads,
        }
    }

    pub fn atom_class(&self, id: AtomId) -> Class {
        self.atoms.get(id).map_or(Class::Thread, |a| a.class)
    }

    /// Whether threads inside one iteration of the loop agree on being there.
    pub fn loop_class(&self, l: LoopId) -> Class {
        match self.loops.get(l).and_then(|i| i.as_ref()) {
            Some(info) => info
                .trip
                .map_or(Class::Grid, |t| self.atom_class(t))
                .max(class_of(&info.guard, &|a| self.atom_class(a), &|m| {
                    self.loop_class(m)
                })),
            None => Class::Thread,
        }
    }

    pub fn class(&self, t: &T) -> Class {
        class_of(t, &|a| self.atom_class(a), &|l| self.loop_class(l))
    }
}

/// Runs the symbolic execution of `kernel` under `opts`.
pub fn summarize(kernel: &Kernel, opts: &CheckOptions) -> Summary {
    // The launch with the kernel's own pins (`requires bdim == 256`) merged in.
    let launch = opts.launch.for_kernel(kernel);
    let block_dim: [Option<i64>; 3] = launch.block.map(|d| d.map(i64::from));
    let grid_dim: [Option<i64>; 3] = launch.grid.map(|d| d.map(i64::from));
    let max_threads = i64::from(launch.thread_limit());
    let b = Builder {
        arith: opts.arith,
        block_dim,
        grid_dim,
        max_threads,
    };
    let mut params = Vec::new();
    let mut param_types = Vec::new();
    let mut fixed_params = Vec::new();
    let mut scalars = HashMap::new();
    for (name, ty) in kernel.typed_scalars() {
        let fixed = launch.params.get(name);
        let t = match fixed {
            Some(v) => {
                fixed_params.push((name.to_string(), *v));
                b.int(*v)
            }
            None => {
                params.push(name.to_string());
                param_types.push(ty);
                b.leaf(Term::Param(params.len() - 1, ty))
            }
        };
        scalars.insert(name.to_string(), t);
    }
    let mut pos = HashMap::new();
    let mut loop_ids = HashMap::new();
    let mut written = HashSet::new();
    for (i, s) in kernel.stmts().into_iter().enumerate() {
        pos.insert(s.id, i as u32);
        if let StmtKind::Write { array, .. } | StmtKind::Atomic { array, .. } = &s.kind {
            written.insert(array.clone());
        }
        if s.kind.is_loop() {
            let n = loop_ids.len();
            loop_ids.insert(s.id, n);
        }
    }
    let mut ex = Exec {
        b,
        kernel,
        block_dim,
        grid_dim,
        scalars,
        atoms: Vec::new(),
        loops: vec![None; loop_ids.len()],
        loop_ids,
        pos,
        written,
        inputs: HashMap::new(),
        functions: HashMap::new(),
        two_thread: false,
        reads: ReadCache::default(),
        stack: Vec::new(),
        record: true,
        accesses: Vec::new(),
        barriers: Vec::new(),
        assumes: Vec::new(),
        head_invariants: head_invariants(kernel),
        relevant: candidates::relevant_vars(kernel),
        self_contained: self_contained_loops(kernel),
        inv_terms: HashMap::new(),
        invariants: Vec::new(),
        misplaced: Vec::new(),
    };
    let requires = kernel
        .requires
        .iter()
        .map(|e| {
            let t = ex.eval(&HashMap::new(), e);
            b.truthy(t)
        })
        .collect();
    let mut st = State {
        env: HashMap::new(),
        path: b.tt(),
        ret: b.ff(),
        brk: b.ff(),
        cont: b.ff(),
        ctx: b.tt(),
    };
    ex.block(&kernel.body, &mut st);
    let counters = if opts.arith == Arith::Unbounded && !opts.wrapping {
        counters(&ex.accesses, &ex.atoms, &ex.barriers)
    } else {
        HashSet::new()
    };
    Summary {
        arith: opts.arith,
        atoms: ex.atoms,
        loops: ex.loops,
        accesses: ex.accesses,
        barriers: ex.barriers,
        assumes: ex.assumes,
        requires,
        params,
        param_types,
        fixed_params,
        counters,
        dims_used: dims_used(kernel),
        block_dim,
        grid_dim,
        max_threads,
        warp_size: opts.warp_barrier_size(),
        invariants: ex.invariants,
        misplaced_invariants: ex.misplaced,
    }
}

/// The `atomic_add`s of arrays whose every modification is an `atomic_add` of an
/// amount that is never negative (a negative amount, `atomic_add(C[0], 0 - 1)`, lets
/// the counter hand out a value again), and likewise the `atomic_sub`s of arrays only
/// `atomic_sub`s of never-negative amounts modify (counting down), and the
/// `atomic_inc`s of arrays only never-wrapping `atomic_inc`s modify
/// ([`inc_never_wraps`]; not mixed with adds, which could carry the counter past the
/// bound).
fn counters(accesses: &[AccessFact], atoms: &[AtomInfo], barriers: &[BarrierFact]) -> HashSet<StmtId> {
    let mut memo = HashMap::new();
    // Per array: the one operation that modifies it, if its amounts are never negative.
    let mut ops: HashMap<&str, Option<AtomicOp>> = HashMap::new();
    for a in accesses.iter().filter(|a| a.kind == AccessKind::Atomic) {
        let op = match &a.atomic {
            Some((op @ (AtomicOp::Add | AtomicOp::Sub), operand))
                if never_negative(operand, atoms, &mut memo) =>
            {
                Some(*op)
            }
            Some((AtomicOp::Inc, bound)) if inc_never_wraps(bound) => Some(AtomicOp::Inc),
            _ => None,
        };
        let e = ops.entry(a.array.as_str()).or_insert(op);
        if *e != op {
            *e = None;
        }
    }
    for w in accesses.iter().filter(|a| a.kind == AccessKind::Write) {
        if let Some(op) = ops.get_mut(w.array.as_str())
            && !initializes(w, accesses, barriers)
        {
            *op = None;
        }
    }
    accesses
        .iter()
        .filter(|a| {
            let op = a.atomic.as_ref().map(|(op, _)| *op);
            op.is_some() && ops.get(a.array.as_str()).copied().flatten() == op
        })
        .map(|a| a.stmt)
        .collect()
}

/// A plain write of a `__shared__` counter that only sets it up (`if (tid == 0) n = 0;
/// __syncthreads();` before the atomics): outside loops, and separated from every
/// atomic of the array by a barrier at the top level of the kernel that every thread
/// reaches (no condition, `return` or loop around or before it). All writes of the
/// block then happen before all its atomics, and the counter of another block is
/// other memory. A global counter set up by one thread is not ordered with the atomics
/// of other blocks, so it never counts.
fn initializes(w: &AccessFact, accesses: &[AccessFact], barriers: &[BarrierFact]) -> bool {
    let separated = |x: &AccessFact| {
        barriers
            .iter()
            .any(|b| !b.warp && b.unconditional && b.loops.is_empty() && w.pos < b.pos && b.pos < x.pos)
    };
    w.space == Space::Shared
        && w.loops.is_empty()
        && accesses
            .iter()
            .filter(|x| x.array == w.array && x.kind == AccessKind::Atomic)
            .all(separated)
}

/// `atomic_inc` with the largest bound of its 32-bit counter (`atomicInc(&c, 0xffffffff)`)
/// wraps only where an add of 1 would (the counter assumption: it never does), so on an
/// array only such `atomic_inc`s modify it counts up by 1 like `atomic_add(c, 1)` (the
/// encoder takes its amount to be 1). A smaller bound wraps within a run.
fn inc_never_wraps(bound: &T) -> bool {
    bound.as_const().is_some_and(|c| c >= 0xFFFF_FFFF)
}

/// Whether a term is nonnegative in every execution, for unbounded arithmetic: thread
/// and block ids, sizes, parameters, iteration numbers and conditions are; values read
/// from memory (or returned by atomics) may not be.
fn never_negative(t: &T, atoms: &[AtomInfo], memo: &mut HashMap<*const Term, bool>) -> bool {
    use BinOp::*;
    if let Some(v) = memo.get(&std::rc::Rc::as_ptr(t)) {
        return *v;
    }
    let mut nn = |x: &T| never_negative(x, atoms, memo);
    let v = match &**t {
        Term::Const(v) => *v >= 0,
        Term::Builtin(_) | Term::Iter(_) | Term::InLoop(_) | Term::Pow2(_) => true,
        Term::Param(_, ty) | Term::Cast(ty, _) => !ty.signed,
        Term::IterAdd(k, off) => *off >= 0 && nn(k),
        Term::Atom(id, _) => atoms.get(*id).is_some_and(|a| a.is_iteration()),
        Term::Un(kpl::UnOp::Not, _) => true,
        Term::Un(..) => false,
        Term::Bin(Eq | Ne | Lt | Le | Gt | Ge | And | Or, _, _) => true,
        Term::Bin(Add | Mul | BitOr | BitXor, x, y) => nn(x) && nn(y),
        // A zero divisor or an undefined shift gives an arbitrary value.
        Term::Bin(Div | Rem, x, y) => y.as_const().is_some_and(|c| c > 0) && nn(x),
        Term::Bin(Shl | Shr, x, y) => y.as_const().is_some_and(|c| (0..63).contains(&c)) && nn(x),
        Term::Bin(BitAnd, x, y) => nn(x) || nn(y),
        Term::Bin(Sub, ..) => false,
        Term::Ite(_, x, y) => nn(x) && nn(y),
        Term::Table(_, entries, tail) => entries.iter().all(&mut nn) && nn(tail),
    };
    memo.insert(std::rc::Rc::as_ptr(t), v);
    v
}

/// Which dimensions the kernel's expressions mention (`tid.y`, `bdim.z`, ...); x always.
fn dims_used(kernel: &Kernel) -> [bool; 3] {
    let mut used = [true, false, false];
    let mut see = |e: &Expr| e.for_each_builtin(&mut |b| used[b.dim().index()] = true);
    kernel.requires.iter().for_each(&mut see);
    for s in kernel.stmts() {
        match &s.kind {
            StmtKind::Local { init: Some(e), .. }
            | StmtKind::Assign { value: e, .. }
            | StmtKind::Assume(e)
            | StmtKind::If { cond: e, .. }
            | StmtKind::While { cond: e, .. }
            | StmtKind::Read { index: e, .. } => see(e),
            StmtKind::Write { index, value, .. } | StmtKind::Atomic { index, value, .. } => {
                see(index);
                see(value);
            }
            StmtKind::For { init, cond, step, .. } => {
                see(init);
                see(cond);
                see(step);
            }
            _ => {}
        }
    }
    used
}

/// Value numbering of reads (the deviation "Values all threads read alike" in
/// `verifier/mod.rs`): a read of the element an earlier read named with the same index
/// term, with no write or atomic on the array executed in between, returns the same
/// value, so it reuses that read's term. Lock step makes that exact: between the two
/// reads no thread executes anything but the statements in between, and none of them
/// writes the array. That holds across branches too (`if (tid == 0) x = s[0]; else x =
/// s[0];` reads one value): a thread that did not execute the earlier read has no value
/// of its own there (its term at that read is dropped by the `ite` of the assignment),
/// so the term can stand for the element's contents, which the later read sees.
///
/// Entries live within one iteration of the innermost loop (cleared at loop entry and
/// exit, and for each pass over a body); a write or atomic anywhere on an array, even
/// under a condition, ends its entries for the rest of the run.
#[derive(Default)]
struct ReadCache {
    /// (array, the type it was read through, index, value, when), oldest first. A read
    /// through another type gets a value of its own (over-approximate, and sound: the
    /// two are not related).
    entries: Vec<(String, Option<IntTy>, T, T, u64)>,
    /// Per array, the last write or atomic (entries not newer are stale).
    written: HashMap<String, u64>,
    now: u64,
}

impl ReadCache {
    fn get(&self, array: &str, ty: Option<IntTy>, index: &T) -> Option<T> {
        let stale = self.written.get(array).copied().unwrap_or(0);
        self.entries
            .iter()
            .rev()
            .find(|(a, t, i, _, when)| {
                *when > stale && a == array && *t == ty && (std::rc::Rc::ptr_eq(i, index) || i == index)
            })
            .map(|(_, _, _, v, _)| v.clone())
    }

    fn insert(&mut self, array: &str, ty: Option<IntTy>, index: T, value: T) {
        self.now += 1;
        self.entries.push((array.to_string(), ty, index, value, self.now));
    }

    fn invalidate(&mut self, array: &str) {
        self.now += 1;
        self.written.insert(array.to_string(), self.now);
    }

    fn clear(&mut self) {
        self.entries.clear();
    }
}

/// The state of the thread between statements.
#[derive(Clone)]
struct State {
    env: HashMap<String, T>,
    /// The conditions of the enclosing `if`s since the innermost loop entry.
    path: T,
    ret: T,
    brk: T,
    cont: T,
    /// The full predicate at the entry of the innermost loop, with its `InLoop`
    /// (`1` outside loops): statement predicates are `ctx ∧ active`.
    ctx: T,
}

struct Exec<'k> {
    b: Builder,
    kernel: &'k Kernel,
    block_dim: [Option<i64>; 3],
    grid_dim: [Option<i64>; 3],
    scalars: HashMap<String, T>,
    atoms: Vec<AtomInfo>,
    loops: Vec<Option<LoopInfo>>,
    loop_ids: HashMap<StmtId, LoopId>,
    pos: HashMap<StmtId, u32>,
    /// Arrays some statement writes or updates atomically (the others are read-only).
    written: HashSet<String>,
    /// The [`AtomKind::Input`] atom of each never-written global array read so far.
    inputs: HashMap<(String, Option<IntTy>), AtomId>,
    /// The [`AtomKind::Function`] atom of each `@f` applied so far, by name and arity.
    functions: HashMap<(String, usize), AtomId>,
    /// Evaluating the condition of an `assume` outside loops: `other(e)` is honoured.
    two_thread: bool,
    /// The values read so far that a later read of the same element may reuse.
    reads: ReadCache,
    /// Enclosing loops, innermost last.
    stack: Vec<LoopId>,
    /// Facts are recorded only in the final pass over a loop body.
    record: bool,
    accesses: Vec<AccessFact>,
    barriers: Vec<BarrierFact>,
    assumes: Vec<AssumeFact>,
    /// `invariant` statements at the head of a loop body (only declarations and other
    /// invariants before them).
    head_invariants: HashSet<StmtId>,
    /// Variables that can matter to an index or a condition.
    relevant: HashSet<String>,
    /// Loops with no effect outside them but on arrays ([`self_contained_loops`]).
    self_contained: HashSet<StmtId>,
    /// Per loop, the head invariants as evaluated in the current pass over its body.
    inv_terms: HashMap<LoopId, Vec<(T, Span)>>,
    invariants: Vec<LoopInvariants>,
    misplaced: Vec<Span>,
}

/// The `invariant` statements at the head of loop bodies.
fn head_invariants(kernel: &Kernel) -> HashSet<StmtId> {
    let mut out = HashSet::new();
    for s in kernel.stmts() {
        if !s.kind.is_loop() {
            continue;
        }
        for body in s.blocks() {
            for t in &body.stmts {
                match &t.kind {
                    StmtKind::Invariant(_) => {
                        out.insert(t.id);
                    }
                    StmtKind::Local { .. } => {}
                    _ => break,
                }
            }
        }
    }
    out
}

/// What the closed-form analysis of one loop works with.
struct LoopCx {
    lp: LoopId,
    /// `Iter(lp)`.
    k: T,
    /// The iteration arguments of atoms created for the loop (outer loops, then `k`).
    args: Vec<T>,
    /// The start-of-iteration atoms of the carried variables.
    starts: Vec<AtomId>,
    /// The guard over the start-of-iteration atoms.
    guard: T,
}

/// How a loop-carried variable evolves, as found by the analysis pass.
enum Form {
    /// The value at iteration `k` (a term mentioning `Iter(loop)`).
    Known(T),
    Unresolved,
}

impl Exec<'_> {
    fn iters(&self) -> Vec<T> {
        self.stack.iter().map(|l| self.b.leaf(Term::Iter(*l))).collect()
    }

    fn atom_with(&mut self, kind: AtomKind, class: Class, args: Vec<T>) -> T {
        let id = self.atoms.len();
        self.atoms.push(AtomInfo {
            kind,
            class,
            arity: args.len(),
            ty: None,
        });
        self.b.leaf(Term::Atom(id, args))
    }

    /// The value of a read of memory through `ty` (`x = u32(A[i]);`): a fresh atom that
    /// the encoder knows to be in the type's range, as `Cast(ty, atom)` so that
    /// [`Builder::range`] knows it too (the encoder does not wrap it: see
    /// [`AtomInfo::ty`]).
    fn typed_atom(&mut self, kind: AtomKind, class: Class, ty: Option<IntTy>) -> T {
        let v = self.atom(kind, class);
        self.typed(v, ty)
    }

    /// `v`, a fresh atom, as a value of `ty`: `Builder::cast`, which keeps `Cast(ty, v)`
    /// under unbounded arithmetic (an atom's range is unknown to it), where the atom is
    /// marked as in the type's range; bit vectors get the mask (nothing for 32 bits).
    fn typed(&mut self, v: T, ty: Option<IntTy>) -> T {
        let Some(t) = ty else {
            return v;
        };
        if self.b.arith == Arith::Unbounded
            && let Term::Atom(id, _) = &*v
            && let Some(info) = self.atoms.get_mut(*id)
        {
            info.ty = Some(t);
        }
        self.b.cast(t, v)
    }

    /// A fresh atom over the iterations of the enclosing loops.
    fn atom(&mut self, kind: AtomKind, class: Class) -> T {
        let args = self.iters();
        self.atom_with(kind, class, args)
    }

    fn class(&self, t: &T) -> Class {
        let atoms = &self.atoms;
        let loops = &self.loops;
        fn loop_class(atoms: &[AtomInfo], loops: &[Option<LoopInfo>], l: LoopId) -> Class {
            match loops.get(l).and_then(|i| i.as_ref()) {
                Some(info) => info.trip.map_or(Class::Grid, |t| atoms[t].class).max(class_of(
                    &info.guard,
                    &|a| atoms.get(a).map_or(Class::Thread, |x| x.class),
                    &|m| loop_class(atoms, loops, m),
                )),
                None => Class::Thread,
            }
        }
        class_of(t, &|a| atoms.get(a).map_or(Class::Thread, |x| x.class), &|l| {
            loop_class(atoms, loops, l)
        })
    }

    fn active(&self, st: &State) -> T {
        let b = &self.b;
        let flags = b.or(b.or(st.ret.clone(), st.brk.clone()), st.cont.clone());
        b.and(st.path.clone(), b.not(flags))
    }

    fn full(&self, st: &State) -> T {
        self.b.and(st.ctx.clone(), self.active(st))
    }

    fn eval(&mut self, env: &HashMap<String, T>, e: &Expr) -> T {
        let b = self.b;
        match e {
            Expr::Int(v) => b.int(*v),
            Expr::Var(v) => match env.get(v).or_else(|| self.scalars.get(v)) {
                Some(t) => t.clone(),
                // Only kernels that bypass the scope check get here: any value will do.
                None => self.atom(AtomKind::Unknown(v.clone()), Class::Thread),
            },
            Expr::Builtin(bi) => match bi {
                Builtin::Bdim(d) if self.block_dim[d.index()].is_some() => {
                    b.int(self.block_dim[d.index()].unwrap_or(1))
                }
                Builtin::Gdim(d) if self.grid_dim[d.index()].is_some() => {
                    b.int(self.grid_dim[d.index()].unwrap_or(1))
                }
                _ => b.leaf(Term::Builtin(*bi)),
            },
            Expr::Unary(op, a) => {
                let a = self.eval(env, a);
                b.un(*op, a)
            }
            Expr::Cast(ty, a) => {
                let a = self.eval(env, a);
                b.cast(*ty, a)
            }
            Expr::Binary(op, x, y) => {
                let x = self.eval(env, x);
                let y = self.eval(env, y);
                b.bin(*op, x, y)
            }
            // Outside a two-thread `assume` (or nested), an arbitrary value: sound, as
            // an assumption about it constrains nothing else.
            Expr::Other(a) if self.two_thread => {
                self.two_thread = false;
                let a = self.eval(env, a);
                self.two_thread = true;
                self.atom_with(AtomKind::Other, Class::Thread, vec![a])
            }
            Expr::Other(_) => self.atom(AtomKind::Unknown("other(..)".to_string()), Class::Thread),
            Expr::Apply(f, args) => {
                let args: Vec<T> = args.iter().map(|a| self.eval(env, a)).collect();
                self.apply(f, args)
            }
        }
    }

    /// `@f(args)`: the function's atom (one per name and arity for the launch, class
    /// [`Class::Grid`]: the uniformity of an application is that of its arguments,
    /// which [`class_of`] takes in).
    fn apply(&mut self, f: &str, args: Vec<T>) -> T {
        let key = (f.to_string(), args.len());
        let id = match self.functions.get(&key) {
            Some(id) => *id,
            None => {
                let id = self.atoms.len();
                self.atoms.push(AtomInfo {
                    kind: AtomKind::Function(f.to_string()),
                    class: Class::Grid,
                    arity: args.len(),
                    ty: None,
                });
                self.functions.insert(key, id);
                id
            }
        };
        self.b.leaf(Term::Atom(id, args))
    }

    /// A global array no statement writes or updates: its contents are fixed for the
    /// launch, so a read returns a function of the index alone, the same for every
    /// thread, block and iteration ([`AtomKind::Input`]). Under `--alias` the front end
    /// makes the pointer parameters that may alias one array, so a write through any of
    /// them makes it written; atomics count as writes.
    fn is_input(&self, array: &str) -> bool {
        self.kernel.array_space(array).unwrap_or(Space::Global) == Space::Global
            && !self.written.contains(array)
    }

    /// The value of `array[index]` for an [`Exec::is_input`] array.
    fn input(&mut self, array: &str, index: T, ty: Option<IntTy>) -> T {
        let key = (array.to_string(), ty);
        let id = match self.inputs.get(&key) {
            Some(id) => *id,
            None => {
                let id = self.atoms.len();
                self.atoms.push(AtomInfo {
                    kind: AtomKind::Input(array.to_string()),
                    class: Class::Grid,
                    arity: 1,
                    ty: None,
                });
                self.inputs.insert(key, id);
                id
            }
        };
        let v = self.b.leaf(Term::Atom(id, vec![index]));
        self.typed(v, ty)
    }

    /// Who shares the value one execution of a read returns (`Read(stmt)` at given
    /// iteration numbers): the threads of a block when its index is block-uniform, else
    /// each thread its own. [`Class::Grid`] stands for a read of an [`Exec::is_input`]
    /// array, whatever its index: its value is the array's [`AtomKind::Input`] function
    /// of the index, which every thread, block and iteration shares (a thread-dependent
    /// index included: two threads reading one element read one value).
    ///
    /// Why this is sound (the deviation "Values all threads read alike" in
    /// `verifier/mod.rs`): the threads of a block that execute one instance of a read
    /// statement (the same iterations of its loops) with one index read one element at
    /// one step of the lock-step trace, with no write in between; under delayed
    /// visibility a thread that wrote that element earlier in the barrier interval
    /// would see its own value, but that write races with the other thread's read. An
    /// input array is never written at all.
    fn read_class(&self, array: &str, index: &T) -> Class {
        if self.is_input(array) {
            return Class::Grid;
        }
        match self.class(index) {
            c @ (Class::Thread | Class::Warp) => c,
            _ => Class::Block,
        }
    }

    fn old(&mut self, st: &mut State, var: &str) -> T {
        if let Some(t) = st.env.get(var) {
            return t.clone();
        }
        let t = self.atom(AtomKind::Unknown(var.to_string()), Class::Thread);
        st.env.insert(var.to_string(), t.clone());
        t
    }

    fn assign(&mut self, st: &mut State, var: &str, value: T) {
        let old = self.old(st, var);
        let active = self.active(st);
        let v = self.b.ite(active, value, old);
        st.env.insert(var.to_string(), v);
    }

    fn block(&mut self, blk: &Block, st: &mut State) {
        for s in &blk.stmts {
            self.stmt(s, st);
        }
    }

    fn record_access(
        &mut self,
        s: &Stmt,
        st: &State,
        array: &str,
        kind: AccessKind,
        index: T,
        atomic: Option<(kpl::AtomicOp, T)>,
    ) {
        if !self.record {
            return;
        }
        let pred = self.full(st);
        self.accesses.push(AccessFact {
            stmt: s.id,
            span: s.span,
            array: array.to_string(),
            // Arrays the kernel does not declare (other front ends) count as global:
            // that checks both same-block and cross-block races.
            space: self.kernel.array_space(array).unwrap_or(Space::Global),
            kind,
            index,
            pred,
            loops: self.stack.clone(),
            pos: self.pos.get(&s.id).copied().unwrap_or(u32::MAX),
            atomic,
            value: None,
        });
    }

    /// Gives the access just recorded (a plain write) the value it stores.
    fn record_written(&mut self, value: T) {
        if self.record
            && let Some(a) = self.accesses.last_mut()
        {
            a.value = Some(value);
        }
    }

    fn stmt(&mut self, s: &Stmt, st: &mut State) {
        let b = self.b;
        match &s.kind {
            StmtKind::Local { var, init } => {
                // A declaration is reached by every thread that can ever read the
                // variable, so no predication is needed.
                let v = match init {
                    Some(e) => self.eval(&st.env, e),
                    None => self.atom(AtomKind::Arbitrary(s.id), Class::Thread),
                };
                st.env.insert(var.clone(), v);
            }
            StmtKind::Assign { var, value } => {
                let v = self.eval(&st.env, value);
                self.assign(st, var, v);
            }
            StmtKind::Havoc { var, warp } => {
                let class = if *warp { Class::Warp } else { Class::Thread };
                let v = self.atom(AtomKind::Arbitrary(s.id), class);
                self.assign(st, var, v);
            }
            StmtKind::Read {
                var,
                array,
                index,
                ty,
            } => {
                let i = self.eval(&st.env, index);
                let class = self.read_class(array, &i);
                self.record_access(s, st, array, AccessKind::Read, i.clone(), None);
                let v = match self.reads.get(array, *ty, &i) {
                    Some(v) => v,
                    None if class == Class::Grid => self.input(array, i, *ty),
                    None => {
                        let v = self.typed_atom(AtomKind::Read(s.id), class, *ty);
                        self.reads.insert(array, *ty, i, v.clone());
                        v
                    }
                };
                self.assign(st, var, v);
            }
            StmtKind::Write { array, index, value } => {
                let i = self.eval(&st.env, index);
                self.reads.invalidate(array);
                self.record_access(s, st, array, AccessKind::Write, i, None);
                let v = self.eval(&st.env, value);
                self.record_written(v);
            }
            StmtKind::Atomic {
                var,
                op,
                array,
                index,
                value,
                ty,
            } => {
                let i = self.eval(&st.env, index);
                let operand = self.eval(&st.env, value);
                self.reads.invalidate(array);
                self.record_access(s, st, array, AccessKind::Atomic, i, Some((*op, operand)));
                if let Some(var) = var {
                    let v = self.typed_atom(AtomKind::Read(s.id), Class::Thread, *ty);
                    self.assign(st, var, v);
                }
            }
            StmtKind::Barrier | StmtKind::WarpBarrier | StmtKind::GridBarrier | StmtKind::TicketBarrier => {
                if self.record {
                    let pred = self.full(st);
                    let unconditional = self.active(st).as_const() == Some(1);
                    self.barriers.push(BarrierFact {
                        stmt: s.id,
                        span: s.span,
                        pred,
                        unconditional,
                        loops: self.stack.clone(),
                        pos: self.pos.get(&s.id).copied().unwrap_or(u32::MAX),
                        warp: matches!(s.kind, StmtKind::WarpBarrier),
                        grid: s.kind.orders_blocks(),
                        ticket: matches!(s.kind, StmtKind::TicketBarrier),
                    });
                }
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let c = self.eval(&st.env, cond);
                let c = b.truthy(c);
                let path = st.path.clone();
                st.path = b.and(path.clone(), c.clone());
                self.block(then_blk, st);
                if let Some(e) = else_blk {
                    st.path = b.and(path.clone(), b.not(c));
                    self.block(e, st);
                }
                st.path = path;
            }
            StmtKind::While { .. } | StmtKind::For { .. } => {
                // Reads before the loop, in other iterations or after it may see the
                // writes of its iterations.
                self.reads.clear();
                // An analysis pass of an enclosing loop only needs the loop's effect on
                // variables, and a self-contained loop has none that anything outside
                // it sees: skipping it keeps loop nests linear in their depth (each
                // loop is otherwise analysed once per enclosing loop).
                if self.record || !self.self_contained.contains(&s.id) {
                    self.run_loop(s, st);
                }
                self.reads.clear();
            }
            StmtKind::Assume(e) => {
                if self.record {
                    let two_thread = self.stack.is_empty() && e.has_other();
                    self.two_thread = two_thread;
                    let c = self.eval(&st.env, e);
                    self.two_thread = false;
                    let cond = b.truthy(c);
                    let pred = self.full(st);
                    self.assumes.push(AssumeFact {
                        pred,
                        cond,
                        loops: self.stack.clone(),
                        pos: self.pos.get(&s.id).copied().unwrap_or(u32::MAX),
                        two_thread,
                    });
                }
            }
            StmtKind::Invariant(e) => match self.stack.last() {
                Some(&lp) if self.head_invariants.contains(&s.id) => {
                    let c = self.eval(&st.env, e);
                    let c = b.truthy(c);
                    self.inv_terms.entry(lp).or_default().push((c, s.span));
                }
                _ if self.record => self.misplaced.push(s.span),
                _ => {}
            },
            StmtKind::Return => st.ret = b.or(st.ret.clone(), self.active(st)),
            StmtKind::Break => st.brk = b.or(st.brk.clone(), self.active(st)),
            StmtKind::Continue => st.cont = b.or(st.cont.clone(), self.active(st)),
        }
    }

    fn run_loop(&mut self, s: &Stmt, st: &mut State) {
        let b = self.b;
        let (for_var, cond, step, body) = match &s.kind {
            StmtKind::For {
                var,
                init,
                cond,
                step,
                body,
            } => {
                let v = self.eval(&st.env, init);
                st.env.insert(var.clone(), v);
                (Some(var.as_str()), cond, Some(step), body)
            }
            StmtKind::While { cond, body } => (None, cond, None, body),
            _ => return,
        };
        let Some(&lp) = self.loop_ids.get(&s.id) else {
            return;
        };
        let active_entry = self.active(st);
        let full_entry = self.full(st);
        let mut assigned = BTreeSet::new();
        assigned_vars(body, &mut assigned);
        if let Some(v) = for_var {
            assigned.insert(v.to_string());
        }
        let carried: Vec<String> = assigned.into_iter().filter(|v| st.env.contains_key(v)).collect();
        let env0 = st.env.clone();
        let outer = self.iters();
        self.stack.push(lp);
        let k = b.leaf(Term::Iter(lp));
        let mut args = outer.clone();
        args.push(k.clone());

        // Analysis passes: the end-of-iteration value of every carried variable, with
        // the start-of-iteration values as opaque atoms; repeated until the uniformity
        // classes of those atoms are stable.
        let mut classes: Vec<Class> = carried.iter().map(|v| self.class(&env0[v])).collect();
        // Atoms from here on belong to the body (or are the start atoms).
        let first_atom = self.atoms.len();
        let (starts, ends, guard0, analysis_exits) = loop {
            self.inv_terms.remove(&lp);
            let starts: Vec<T> = carried
                .iter()
                .zip(&classes)
                .map(|(v, c)| self.atom_with(AtomKind::Start(lp, v.clone()), *c, args.clone()))
                .collect();
            let mut env = env0.clone();
            for (v, x) in carried.iter().zip(&starts) {
                env.insert(v.clone(), x.clone());
            }
            let g = self.eval(&env, cond);
            let guard0 = b.truthy(g);
            let mut inner = State {
                env,
                path: b.tt(),
                ret: b.ff(),
                brk: b.ff(),
                cont: b.ff(),
                ctx: b.tt(),
            };
            let record = std::mem::replace(&mut self.record, false);
            self.reads.clear();
            self.block(body, &mut inner);
            self.record = record;
            if let (Some(v), Some(step)) = (for_var, step) {
                // `continue` still runs the step; `break`/`return` leave the loop, so
                // the step is unconditional for threads that reach the next iteration.
                let t = self.eval(&inner.env, step);
                inner.env.insert(v.to_string(), t);
            }
            let ends: Vec<T> = carried.iter().map(|v| inner.env[v].clone()).collect();
            let new: Vec<Class> = carried
                .iter()
                .zip(&ends)
                .map(|(v, e)| self.class(&env0[v]).max(self.class(e)))
                .collect();
            if new == classes {
                break (starts, ends, guard0, (inner.ret, inner.brk));
            }
            classes = new;
        };
        let start_ids: Vec<AtomId> = starts
            .iter()
            .map(|t| match &**t {
                Term::Atom(id, _) => *id,
                _ => unreachable!("start values are atoms"),
            })
            .collect();
        let annotated = self.inv_terms.remove(&lp).unwrap_or_default();
        let lcx = LoopCx {
            lp,
            k: k.clone(),
            args: args.clone(),
            starts: start_ids,
            guard: guard0,
        };
        let forms = self.resolve(&lcx, &carried, &env0, &ends, &classes);
        let candidates = if self.record {
            let exits = b.or(analysis_exits.0.clone(), analysis_exits.1.clone());
            let relevant: Vec<bool> = carried.iter().map(|v| self.relevant.contains(v)).collect();
            let mut cands = candidates::generate(
                &b,
                &relevant,
                &starts,
                &carried.iter().map(|v| env0[v].clone()).collect::<Vec<_>>(),
                &lcx.guard,
                &ends,
                &exits,
                &|id| id >= first_atom && !lcx.starts.contains(&id),
                &|id| {
                    matches!(
                        self.atoms[id].kind,
                        AtomKind::Trip(_) | AtomKind::After(..) | AtomKind::Returned(_)
                    )
                },
            );
            cands.extend(self.conditional_forms(&lcx, &carried, &env0, &ends, &classes));
            let mut out: Vec<Candidate> = cands
                .into_iter()
                .map(|cond| Candidate {
                    cond,
                    origin: Origin::Generated,
                })
                .collect();
            out.extend(annotated.into_iter().map(|(cond, span)| Candidate {
                cond,
                origin: Origin::Annotated(span),
            }));
            Some((out, exits))
        } else {
            None
        };

        // The final pass, which records facts.
        let mut env = env0.clone();
        for (v, f) in carried.iter().zip(&forms) {
            env.insert(v.clone(), f.clone());
        }
        let g = self.eval(&env, cond);
        let guard = b.truthy(g);
        let exit_break = has_break(body);
        let has_return = has_return(body);
        let exit_jumps = exit_break || has_return;
        // A guard that is a known constant at every iteration gives a known trip count;
        // otherwise the trip count is an unknown (see the module doc).
        let (trip, trip_id) = match constant_trip(&b, &guard, lp).filter(|_| !exit_jumps) {
            Some(n) => (b.int(n), None),
            None => {
                let t = self.atom_with(AtomKind::Trip(lp), Class::Grid, outer.clone());
                let id = match &*t {
                    Term::Atom(id, _) => Some(*id),
                    _ => None,
                };
                (t, id)
            }
        };
        if self.record {
            self.loops[lp] = Some(LoopInfo {
                stmt: s.id,
                trip: trip_id,
                trip_term: trip.clone(),
                guard: guard.clone(),
                exit_jumps,
                once: runs_once(body),
                exits: b.ff(),
            });
        }
        // The final pass, which records the body's facts. Inside an outer loop's
        // analysis pass nothing is recorded, and the analysis pass's exits (whose
        // classes bound the final pass's: the start atoms have the fixpoint classes)
        // are all that is needed; skipping the pass keeps nests linear instead of
        // exponential in their depth.
        let head_pred = b.and(full_entry, b.leaf(Term::InLoop(lp)));
        let head_loops = self.stack.clone();
        let (ret, brk) = if self.record {
            let mut inner = State {
                env,
                path: b.tt(),
                ret: b.ff(),
                brk: b.ff(),
                cont: b.ff(),
                ctx: head_pred.clone(),
            };
            self.reads.clear();
            self.block(body, &mut inner);
            if let Some(info) = self.loops[lp].as_mut() {
                info.exits = b.or(inner.ret.clone(), inner.brk.clone());
            }
            (inner.ret, inner.brk)
        } else {
            analysis_exits
        };
        let trip_class = self.class(&guard).max(self.class(&ret)).max(self.class(&brk));
        if let Some(id) = trip_id {
            self.atoms[id].class = trip_class;
        }
        self.stack.pop();

        // After the loop: carried variables hold their value at the exit iteration.
        // When nothing is assigned before a `break` (on any path through the body),
        // a thread that breaks in iteration `trip - 1` leaves with that iteration's head
        // values, the others with the head values of iteration `trip`.
        // Per variable: exact when the loop has no `break`, or no `break` follows an
        // assignment to it.
        let exact: Vec<bool> = carried
            .iter()
            .map(|v| {
                !exit_break
                    || (b.arith == Arith::Unbounded && break_before_assign(body, std::slice::from_ref(v)))
            })
            .collect();
        let (prev, broke) = {
            let later = b.bin(BinOp::Lt, b.int(0), trip.clone());
            let prev = b.ite(later.clone(), b.iter_add(trip.clone(), -1), b.int(0));
            let exits = self.loops[lp].as_ref().map_or(b.tt(), |i| i.exits.clone());
            let broke = b.and(later, substitute_iter(&b, &exits, lp, &prev));
            (prev, broke)
        };
        let at_exit = |form: &T| {
            let normal = substitute_iter(&b, form, lp, &trip);
            if exit_break {
                b.ite(broke.clone(), substitute_iter(&b, form, lp, &prev), normal)
            } else {
                normal
            }
        };
        for (((v, form), class), exact) in carried.iter().zip(&forms).zip(&classes).zip(&exact) {
            let after = if !exact {
                self.atom_with(
                    AtomKind::After(lp, v.clone()),
                    (*class).max(trip_class),
                    outer.clone(),
                )
            } else {
                at_exit(form)
            };
            let value = b.ite(active_entry.clone(), after, env0[v].clone());
            st.env.insert(v.clone(), value);
        }
        if has_return {
            // Whether a thread returned depends on how many iterations it ran, too.
            let ret_class = self.class(&ret).max(trip_class);
            let r = self.atom_with(AtomKind::Returned(lp), ret_class, outer.clone());
            let returned = b.and(active_entry.clone(), b.truthy(r));
            st.ret = b.or(st.ret.clone(), returned);
        }
        // Without a carried value lacking a closed form, an annotation or an unknown
        // trip count, the closed forms say all there is.
        let carried_atom = |t: &T| {
            any_node(t, &mut |n| {
                matches!(n, Term::Atom(id, _)
                    if matches!(&self.atoms[*id].kind, AtomKind::Carried(l, _) if *l == lp))
            })
        };
        let unresolved = forms.iter().any(carried_atom);
        let useful = |c: &Vec<Candidate>| {
            !c.is_empty()
                && (unresolved || trip_id.is_some() || c.iter().any(|x| x.origin != Origin::Generated))
        };
        if let Some((candidates, exits)) = candidates.filter(|(c, _)| useful(c)) {
            // Where the proved invariants hold after the loop: the head values of the
            // exit iteration (unknown after a `break` that follows assignments).
            let at = |k: &T| -> Vec<T> { forms.iter().map(|f| substitute_iter(&b, f, lp, k)).collect() };
            let after = if exit_break {
                vec![
                    (broke.clone(), at(&prev), prev.clone()),
                    (b.not(broke.clone()), at(&trip), trip.clone()),
                ]
            } else {
                vec![(b.tt(), at(&trip), trip.clone())]
            };
            let after_pred = b.and(self.full(st), active_entry);
            let pos = |id: &StmtId| self.pos.get(id).copied().unwrap_or(u32::MAX);
            let mut last = pos(&s.id);
            for t in subtree(s) {
                last = last.max(pos(&t.id));
            }
            self.invariants.push(LoopInvariants {
                lp,
                starts: lcx.starts.clone(),
                inits: carried.iter().map(|v| env0[v].clone()).collect(),
                ends,
                guard: lcx.guard.clone(),
                exits,
                candidates,
                head: forms.clone(),
                after_exact: exact,
                in_loop: unresolved,
                head_pred,
                head_loops,
                head_pos: pos(&s.id),
                after,
                after_pred,
                after_loops: self.stack.clone(),
                after_pos: last,
            });
        }
    }

    /// Finds the value at iteration `k` of every carried variable (see the module doc).
    fn resolve(
        &mut self,
        lcx: &LoopCx,
        carried: &[String],
        env0: &HashMap<String, T>,
        ends: &[T],
        classes: &[Class],
    ) -> Vec<T> {
        let b = self.b;
        let (lp, k, args) = (lcx.lp, &lcx.k, &lcx.args[..]);
        let forms = self.closed_forms(lcx, carried, env0, ends, classes);
        let mut out = Vec::with_capacity(carried.len());
        for (i, f) in forms.into_iter().enumerate() {
            out.push(match f {
                Some(t) => t,
                None => {
                    let h = self.atom_with(
                        AtomKind::Carried(lp, carried[i].clone()),
                        classes[i],
                        args.to_vec(),
                    );
                    let first = b.bin(BinOp::Eq, k.clone(), b.int(0));
                    b.ite(first, env0[&carried[i]].clone(), h)
                }
            });
        }
        out
    }

    /// Closed forms under a condition: for variables updated only under one condition
    /// `c` (`if (tid < n) { n >>= 1; off <<= 1; }`), `c → x == F(k)` where `F` is the
    /// closed form of the updates taken unconditionally. Inductive whenever `c`, once
    /// false, stays false (nothing it reads changes when it is false); a candidate
    /// like any other ([`super::invariants`] proves it or drops it).
    fn conditional_forms(
        &mut self,
        lcx: &LoopCx,
        carried: &[String],
        env0: &HashMap<String, T>,
        ends: &[T],
        classes: &[Class],
    ) -> Vec<T> {
        let b = self.b;
        let mut conds: Vec<T> = Vec::new();
        let first_body_atom = lcx.starts.first().copied().unwrap_or(0);
        let reads_body = |c: &T| {
            any_node(
                c,
                &mut |n| matches!(n, Term::Atom(id, _) if *id >= first_body_atom && !lcx.starts.contains(id)),
            )
        };
        for e in ends {
            if let Term::Ite(c, _, _) = &**e
                && !conds.iter().any(|x| candidates::same(x, c))
                && !reads_body(c)
                && conds.len() < 4
            {
                conds.push(c.clone());
            }
        }
        let mut out = Vec::new();
        for c in conds {
            let forced: Vec<T> = ends
                .iter()
                .map(|e| {
                    let mut r = Rewriter::new(b, |b, n| std::rc::Rc::ptr_eq(n, &c).then(|| b.tt()));
                    r.run(e)
                })
                .collect();
            let forms = self.closed_forms(lcx, carried, env0, &forced, classes);
            for (i, (e, f)) in ends.iter().zip(forms).enumerate() {
                if let (Term::Ite(ci, _, _), Some(f)) = (&**e, f)
                    && std::rc::Rc::ptr_eq(ci, &c)
                    && self.relevant.contains(&carried[i])
                {
                    let x = b.leaf(Term::Atom(lcx.starts[i], lcx.args.clone()));
                    out.push(b.or(b.not(c.clone()), b.bin(BinOp::Eq, x, f)));
                }
            }
        }
        out
    }

    /// The closed forms of [`Exec::resolve`], `None` for the variables without one.
    fn closed_forms(
        &mut self,
        lcx: &LoopCx,
        carried: &[String],
        env0: &HashMap<String, T>,
        ends: &[T],
        classes: &[Class],
    ) -> Vec<Option<T>> {
        let b = self.b;
        let (lp, k, starts) = (lcx.lp, &lcx.k, &lcx.starts[..]);
        let mut forms: Vec<Form> = carried.iter().map(|_| Form::Unresolved).collect();
        let is_start = |id: AtomId| starts.contains(&id);
        loop {
            let mut changed = false;
            // Replace the start atoms of resolved variables by their forms.
            let known: HashMap<AtomId, T> = starts
                .iter()
                .zip(&forms)
                .filter_map(|(id, f)| match f {
                    Form::Known(t) => Some((*id, t.clone())),
                    Form::Unresolved => None,
                })
                .collect();
            for i in 0..carried.len() {
                if matches!(forms[i], Form::Known(_)) {
                    continue;
                }
                let e = substitute_atoms(&b, &ends[i], &known);
                let init = env0[&carried[i]].clone();
                let unresolved_start = |t: &T, also_own: bool| {
                    any_node(t, &mut |n| {
                        matches!(n, Term::Atom(id, _) if is_start(*id) && !known.contains_key(id)
                            && (also_own || *id != starts[i]))
                    })
                };
                let varies = |t: &T| {
                    unresolved_start(t, true)
                        || any_node(t, &mut |n| match n {
                            Term::Iter(l) => *l == lp,
                            Term::InLoop(_) => true,
                            _ => false,
                        })
                };
                let form = if matches!(&*e, Term::Atom(id, _) if *id == starts[i]) {
                    Some(init)
                } else if let Some((1, step)) = linear_in(&b, &e, starts[i]).filter(|(_, r)| !varies(r)) {
                    Some(b.bin(BinOp::Add, init, b.bin(BinOp::Mul, step, k.clone())))
                } else if let Some((op, c)) = geometric(&e, starts[i]) {
                    Some(self.geometric_form(lcx, starts[i], op, c, init, classes[i]))
                } else if !unresolved_start(&e, true) {
                    let prev = substitute_iter(&b, &e, lp, &b.iter_add(k.clone(), -1));
                    let first = b.bin(BinOp::Eq, k.clone(), b.int(0));
                    Some(b.ite(first, init, prev))
                } else {
                    None
                };
                if let Some(f) = form {
                    forms[i] = Form::Known(f);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        forms
            .into_iter()
            .map(|f| match f {
                Form::Known(t) => Some(t),
                Form::Unresolved => None,
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    /// `init op^k c` as `Pow2(e0 + step·k)` when `init` is a power of two (a constant one
    /// or a `Pow2`) and `op c` multiplies or divides by one (unbounded arithmetic only).
    fn pow2_form(&self, op: BinOp, c: i64, init: &T, k: &T) -> Option<T> {
        let b = self.b;
        if b.arith != Arith::Unbounded {
            return None;
        }
        let step = pow2_step(op, c)?;
        let e0 = match &**init {
            Term::Pow2(e) => e.clone(),
            Term::Const(v) if *v > 0 && v & (v - 1) == 0 => b.int(i64::from(v.trailing_zeros())),
            _ => return None,
        };
        // Doubling 0 (a negative exponent) stays 0; only nonnegative exponents grow.
        if step > 0 && !exp_nonneg(&e0) {
            return None;
        }
        let e = b.bin(BinOp::Add, e0, b.bin(BinOp::Mul, b.int(step), k.clone()));
        Some(b.pow2(e))
    }

    /// The value at iteration `k` of `x := x op c` from `init`: a table when `init` is a
    /// constant (or a small table of them), else an atom with facts (see the encoder).
    /// A table ends where the loop's guard becomes false (no thread is inside beyond).
    fn geometric_form(&mut self, lcx: &LoopCx, x: AtomId, op: BinOp, c: i64, init: T, class: Class) -> T {
        let (lp, k, args) = (lcx.lp, &lcx.k, &lcx.args[..]);
        let b = self.b;
        // A power of two times powers of two: `Pow2` of an exponent linear in `k`.
        // Also from a constant start: nested power-of-two loops (sorting networks) are
        // faster for the solver as exponents linear in the iteration numbers (cases per
        // exponent, bits compared by `Encoder::same_index_bits`) than as nested tables.
        if let Some(p) = self.pow2_form(op, c, &init, k) {
            return p;
        }
        if let Some(v0) = init.as_const() {
            // Tabulate until the sequence is stuck (0 for `>>`, `/`; 0 for `*` in Wrap32),
            // leaves the 32-bit range every guard compares it with, or leaves what the
            // arithmetic computes; past the table, a bounded unknown.
            let mut vals = vec![v0];
            let mut tail = None;
            while vals.len() < 40 && vals.last().is_some_and(|v| v.unsigned_abs() <= 1 << 33) {
                let last = *vals.last().unwrap_or(&v0);
                let at = HashMap::from([(x, b.int(last))]);
                if substitute_atoms(&b, &lcx.guard, &at).as_const() == Some(0) {
                    break;
                }
                match b.arith.binary(op, last, c) {
                    Ok(next) if next == last => {
                        tail = Some(b.int(last));
                        break;
                    }
                    Ok(next) => vals.push(next),
                    Err(_) => break,
                }
            }
            let tail = match tail {
                Some(t) => t,
                None => {
                    let last = *vals.last().unwrap_or(&v0);
                    self.atom_with(AtomKind::Tail { op, c, last }, Class::Grid, args.to_vec())
                }
            };
            return b.table(k.clone(), vals.into_iter().map(|v| b.int(v)).collect(), tail);
        }
        if let Term::Table(ko, entries, tail) = &*init
            && init.table_size() <= 64
        {
            // One sequence per entry of the outer table.
            let inner: Vec<T> = entries
                .iter()
                .map(|e| self.geometric_form(lcx, x, op, c, e.clone(), class))
                .collect();
            let tail = self.geometric_form(lcx, x, op, c, tail.clone(), class);
            let t = b.table(ko.clone(), inner, tail);
            if t.table_size() <= 512 {
                return t;
            }
        }
        // Symbolic doubling: `init · 2^(m·k)` (unbounded arithmetic: no overflow).
        if b.arith == Arith::Unbounded
            && let Some(step) = pow2_step(op, c).filter(|s| *s > 0)
        {
            let e = b.bin(BinOp::Mul, b.int(step), k.clone());
            return b.bin(BinOp::Mul, init, b.pow2(e));
        }
        let g = self.atom_with(
            AtomKind::Geo {
                lp,
                op,
                c,
                init: init.clone(),
            },
            class,
            args.to_vec(),
        );
        let first = b.bin(BinOp::Eq, k.clone(), b.int(0));
        b.ite(first, init, g)
    }
}

/// The exponent step of `x op c` when it multiplies or divides by a power of two.
fn pow2_step(op: BinOp, c: i64) -> Option<i64> {
    let log2 = (c > 0 && c & (c - 1) == 0).then(|| i64::from(c.trailing_zeros()));
    match op {
        BinOp::Mul => log2,
        BinOp::Div => log2.map(|m| -m),
        BinOp::Shl => (1..32).contains(&c).then_some(c),
        BinOp::Shr => (1..32).contains(&c).then_some(-c),
        _ => None,
    }
}

/// The number of iterations of a loop whose guard folds to a constant at every
/// iteration (`for (i = 0; i < 16; i++)`, or tabulated sequences), if it ends within a
/// few thousand iterations.
fn constant_trip(b: &Builder, guard: &T, lp: LoopId) -> Option<i64> {
    for i in 0..4096 {
        match substitute_iter(b, guard, lp, &b.int(i)).as_const()? {
            0 => return Some(i),
            _ => continue,
        }
    }
    None
}

/// `e = x op c` with a step that makes a geometric sequence.
fn geometric(e: &T, x: AtomId) -> Option<(BinOp, i64)> {
    let is_x = |t: &T| matches!(&**t, Term::Atom(id, _) if *id == x);
    match &**e {
        Term::Bin(op @ (BinOp::Mul | BinOp::Div), a, c) if is_x(a) => {
            let c = c.as_const()?;
            (c >= 2).then_some((*op, c))
        }
        Term::Bin(BinOp::Mul, c, a) if is_x(a) => {
            let c = c.as_const()?;
            (c >= 2).then_some((BinOp::Mul, c))
        }
        Term::Bin(op @ (BinOp::Shl | BinOp::Shr), a, c) if is_x(a) => {
            let c = c.as_const()?;
            (1..32).contains(&c).then_some((*op, c))
        }
        _ => None,
    }
}

/// Replaces `Iter(lp)` by `by` (also inside atom arguments).
pub fn substitute_iter(b: &Builder, t: &T, lp: LoopId, by: &T) -> T {
    let mut r = Rewriter::new(*b, |_, n| match &**n {
        Term::Iter(l) if *l == lp => Some(by.clone()),
        _ => None,
    });
    r.run(t)
}

/// Replaces the atoms in `map` (whatever their arguments) by the given terms. The terms
/// are written in the atoms' own iteration context, which is the current one here.
pub(super) fn substitute_atoms(b: &Builder, t: &T, map: &HashMap<AtomId, T>) -> T {
    if map.is_empty() {
        return t.clone();
    }
    let mut r = Rewriter::new(*b, |_, n| match &**n {
        Term::Atom(id, _) => map.get(id).cloned(),
        _ => None,
    });
    r.run(t)
}

/// The loops that do not `return` and none of whose variables (those assigned or
/// declared anywhere in them) is mentioned outside them: running such a loop changes
/// nothing later statements or enclosing loops can see but array contents (which the
/// read cache forgets after every loop anyway) and fresh atoms.
fn self_contained_loops(kernel: &Kernel) -> HashSet<StmtId> {
    fn count(s: &Stmt, out: &mut HashMap<String, usize>) {
        mentions(s, &mut |v| *out.entry(v.to_string()).or_default() += 1);
    }
    let stmts = kernel.stmts();
    let mut total = HashMap::new();
    for s in &stmts {
        count(s, &mut total);
    }
    for e in &kernel.requires {
        e.for_each_var(&mut |v| *total.entry(v.to_string()).or_default() += 1);
    }
    let mut out = HashSet::new();
    for s in stmts.iter().filter(|s| s.kind.is_loop()) {
        let inner: Vec<&Stmt> = std::iter::once(*s).chain(subtree(s)).collect();
        if inner.iter().any(|t| matches!(t.kind, StmtKind::Return)) {
            continue;
        }
        let mut here = HashMap::new();
        for t in &inner {
            count(t, &mut here);
        }
        let assigned = inner.iter().filter_map(|t| match &t.kind {
            StmtKind::Local { var, .. }
            | StmtKind::Assign { var, .. }
            | StmtKind::Havoc { var, .. }
            | StmtKind::Read { var, .. }
            | StmtKind::For { var, .. }
            | StmtKind::Atomic { var: Some(var), .. } => Some(var),
            _ => None,
        });
        if assigned.into_iter().all(|v| here.get(v) == total.get(v)) {
            out.insert(s.id);
        }
    }
    out
}

/// Every mention of a variable by `s` itself (not its blocks): read, assigned or declared.
fn mentions(s: &Stmt, f: &mut impl FnMut(&str)) {
    let mut exprs: Vec<&Expr> = Vec::new();
    match &s.kind {
        StmtKind::Local { var, init } => {
            f(var);
            exprs.extend(init);
        }
        StmtKind::Assign { var, value } => {
            f(var);
            exprs.push(value);
        }
        StmtKind::Havoc { var, .. } => f(var),
        StmtKind::Read { var, index, .. } => {
            f(var);
            exprs.push(index);
        }
        StmtKind::Write { index, value, .. } => exprs.extend([index, value]),
        StmtKind::Atomic {
            var, index, value, ..
        } => {
            if let Some(v) = var {
                f(v);
            }
            exprs.extend([index, value]);
        }
        StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => exprs.push(cond),
        StmtKind::For {
            var,
            init,
            cond,
            step,
            ..
        } => {
            f(var);
            exprs.extend([init, cond, step]);
        }
        StmtKind::Assume(e) | StmtKind::Invariant(e) => exprs.push(e),
        StmtKind::Barrier
        | StmtKind::WarpBarrier
        | StmtKind::GridBarrier
        | StmtKind::TicketBarrier
        | StmtKind::Return
        | StmtKind::Break
        | StmtKind::Continue => {}
    }
    for e in exprs {
        e.for_each_var(f);
    }
}

/// Variables a block assigns or declares (at any depth).
fn assigned_vars(blk: &Block, out: &mut BTreeSet<String>) {
    kpl::for_each_stmt(&blk.stmts, &mut |s| {
        out.extend(s.kind.target().map(str::to_string))
    });
}

/// A `break` of this loop (not of an inner one).
/// `break` of this loop (not of a loop nested in it).
fn has_break(blk: &Block) -> bool {
    has_jump(blk, &StmtKind::Break)
}

/// `continue` of this loop (not of a loop nested in it).
fn has_continue(blk: &Block) -> bool {
    has_jump(blk, &StmtKind::Continue)
}

/// `jump` in `blk` or its conditionals, not in nested loops.
fn has_jump(blk: &Block, jump: &StmtKind) -> bool {
    blk.stmts.iter().any(|s| match &s.kind {
        StmtKind::If {
            then_blk, else_blk, ..
        } => has_jump(then_blk, jump) || else_blk.as_ref().is_some_and(|e| has_jump(e, jump)),
        k => k == jump,
    })
}

/// The body ends with an unconditional `break;` and never continues: every thread
/// leaves the loop in its first iteration (the front ends' one-trip `while (1)` for a
/// `switch`).
fn runs_once(body: &Block) -> bool {
    matches!(body.stmts.last().map(|s| &s.kind), Some(StmtKind::Break)) && !has_continue(body)
}

/// Every `break` of this loop comes before any assignment to a carried variable on every
/// path through the body (assignments in branches or nested loops count wherever they
/// are): a thread that breaks leaves with the head values of its iteration.
fn break_before_assign(body: &Block, carried: &[String]) -> bool {
    fn go(blk: &Block, carried: &[String], assigned: &mut bool) -> bool {
        for s in &blk.stmts {
            match &s.kind {
                StmtKind::Break if *assigned => return false,
                StmtKind::If {
                    then_blk, else_blk, ..
                } => {
                    // The branches are alternatives: each starts from what came before.
                    let mut in_then = *assigned;
                    let mut in_else = *assigned;
                    if !go(then_blk, carried, &mut in_then) {
                        return false;
                    }
                    if let Some(e) = else_blk
                        && !go(e, carried, &mut in_else)
                    {
                        return false;
                    }
                    *assigned = in_then || in_else;
                }
                _ => {
                    let mut vars = BTreeSet::new();
                    match &s.kind {
                        StmtKind::Local { var, .. }
                        | StmtKind::Assign { var, .. }
                        | StmtKind::Havoc { var, .. }
                        | StmtKind::Read { var, .. }
                        | StmtKind::For { var, .. }
                        | StmtKind::Atomic { var: Some(var), .. } => {
                            vars.insert(var.clone());
                        }
                        _ => {}
                    }
                    for inner in s.blocks() {
                        assigned_vars(inner, &mut vars);
                    }
                    if vars.iter().any(|v| carried.contains(v)) {
                        *assigned = true;
                    }
                }
            }
        }
        true
    }
    go(body, carried, &mut false)
}

/// The statements of a statement's blocks, at any depth.
fn subtree(s: &Stmt) -> Vec<&Stmt> {
    let mut out = Vec::new();
    for blk in s.blocks() {
        for t in &blk.stmts {
            out.push(t);
            out.extend(subtree(t));
        }
    }
    out
}

fn has_return(blk: &Block) -> bool {
    blk.stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::Return) || s.blocks().into_iter().any(has_return))
}

impl Summary {
    /// Loops enclosing both `a` and `b` (a common prefix), outermost first.
    pub fn common_loops(a: &[LoopId], b: &[LoopId]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }
}
