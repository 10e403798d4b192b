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

use kpl::{Arith, AtomicOp, BinOp, Expr, IntTy, Kernel, Space, Span, StmtId, StmtKind};
use std::collections::{HashMap, HashSet};

use super::candidates;
use super::term::{AtomId, Builder, Class, LoopId, Rewriter, T, Term, class_of};
use crate::{AccessKind, CheckOptions};

mod closed_forms;
mod exec;
mod loops;
mod syntax;

use exec::head_invariants;
use syntax::self_contained_loops;

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

impl Summary {
    /// Loops enclosing both `a` and `b` (a common prefix), outermost first.
    pub fn common_loops(a: &[LoopId], b: &[LoopId]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }
}
