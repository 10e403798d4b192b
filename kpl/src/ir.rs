//! The kernel IR: KPL (AutoSync paper, Fig. 8) extended with what real kernels need.
//!
//! Every statement carries a [`StmtId`] that stays stable when barriers are inserted
//! (the synthesizer relies on that), and a [`Span`] into the source it came from, so
//! reports and rewrites can point at the original text.

use std::fmt;

use crate::ctype::IntTy;

/// A statement's identity inside one kernel. Assigned in pre-order by the front ends;
/// inserted barriers get fresh ids above every existing one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct StmtId(pub u32);

/// A region of the source text: byte offsets plus the 1-based line and column of its
/// start (and the line of its end), so diagnostics need not re-scan the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    /// Where the text really is when the fields above stand for another place: for a
    /// device function or kernel of an included header, the header's text (the fields
    /// above are then the `#include` line, which is what `fix` may edit); for the last
    /// statement of an inlined device function, which takes the call's place so that a
    /// barrier after it goes after the call, its own text (file 0 when it is in the main
    /// file). Reports show this place ([`Span::real`]).
    pub elsewhere: Option<FileSpan>,
    /// The inlined call the text at [`Span::real`] was reached through: an index into
    /// [`Kernel::calls`], `None` for the kernel's own code (and for `.kpl`). The chain of
    /// calls from the kernel down to the text is [`Kernel::call_chain`].
    pub call: Option<CallId>,
}

impl Span {
    /// A span that points nowhere (statements made up by a transformation).
    pub const NONE: Span = Span {
        start: 0,
        end: 0,
        line: 0,
        col: 0,
        end_line: 0,
        elsewhere: None,
        call: None,
    };

    /// Where the text really is, for reports: [`Span::elsewhere`] when it is set, else
    /// the span's own place in the main file (file 0).
    pub fn real(&self) -> FileSpan {
        self.elsewhere.unwrap_or(FileSpan {
            file: 0,
            start: self.start,
            end: self.end,
            line: self.line,
            col: self.col,
        })
    }

    /// Whether the text really is in an included header (not in the main file).
    pub fn in_header(&self) -> bool {
        self.elsewhere.is_some_and(|e| e.file != 0)
    }
}

/// An inlined call of a device function: an index into [`Kernel::calls`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct CallId(pub u32);

/// A call of a device function that the front end inlined into the kernel: the function
/// called, and where. The call's span has its own [`Span::call`]: the inlined call it is
/// made in (`None` when the kernel makes it), so frames chain up to the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallFrame {
    /// The function as the source names it (`Comparator`, `Tile::load`).
    pub callee: String,
    /// The call expression.
    pub site: Span,
}

/// A region of another file than the main one: the index of the file among those the
/// front end read (0 is the main file, headers follow; see the front end's source map),
/// byte offsets in it, and the 1-based line and column of its start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileSpan {
    pub file: u32,
    pub start: usize,
    pub end: usize,
    pub line: u32,
    pub col: u32,
}

/// One of the three components of CUDA's `threadIdx`, `blockIdx`, `blockDim`, `gridDim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    X,
    Y,
    Z,
}

impl Dim {
    pub const ALL: [Dim; 3] = [Dim::X, Dim::Y, Dim::Z];

    pub fn index(self) -> usize {
        match self {
            Dim::X => 0,
            Dim::Y => 1,
            Dim::Z => 2,
        }
    }

    pub fn suffix(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }
}

/// The launch-dependent values an expression can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// The thread's index in its block (`threadIdx`).
    Tid(Dim),
    /// The block's index in the grid (`blockIdx`).
    Bid(Dim),
    /// Threads per block (`blockDim`).
    Bdim(Dim),
    /// Blocks per grid (`gridDim`).
    Gdim(Dim),
}

impl Builtin {
    pub fn keyword(self) -> &'static str {
        match self {
            Builtin::Tid(_) => "tid",
            Builtin::Bid(_) => "bid",
            Builtin::Bdim(_) => "bdim",
            Builtin::Gdim(_) => "gdim",
        }
    }

    pub fn dim(self) -> Dim {
        match self {
            Builtin::Tid(d) | Builtin::Bid(d) | Builtin::Bdim(d) | Builtin::Gdim(d) => d,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// Arithmetic negation `-e`.
    Neg,
    /// Logical negation `!e` (1 when `e` is 0, else 0).
    Not,
    /// Bitwise complement `~e`.
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    /// C precedence, higher binds tighter. All binary operators are left-associative.
    pub fn precedence(self) -> u8 {
        use BinOp::*;
        match self {
            Or => 1,
            And => 2,
            BitOr => 3,
            BitXor => 4,
            BitAnd => 5,
            Eq | Ne => 6,
            Lt | Le | Gt | Ge => 7,
            Shl | Shr => 8,
            Add | Sub => 9,
            Mul | Div | Rem => 10,
        }
    }

    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
        }
    }
}

/// Thread-local expressions: they never touch memory (reads are statements).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Int(i64),
    Var(String),
    Builtin(Builtin),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// The value converted to a C integer type, exactly as C converts
    /// ([`IntTy::convert`]): the only place where values wrap, unless the front end
    /// wraps every operation (`--wrap`).
    Cast(IntTy, Box<Expr>),
    /// `other(e)`: the value of `e` in the *other* thread of GPUVerify's two-thread view
    /// (`__other_int(e)`). Only meaningful in an `assume` (the scope check rejects it
    /// elsewhere): `assume p;` with `other` in `p` says that `p` holds for every ordered
    /// pair of distinct threads that both reach it (docs/semantics.md, Preconditions).
    Other(Box<Expr>),
    /// `@f(e1, .., en)`: the value of `f`, an uninterpreted function, at the arguments.
    /// Each name is one fixed function for the whole launch: equal arguments give equal
    /// values, in every thread and at every iteration, and nothing else is known of it.
    /// The front end writes floating-point arithmetic this way (its values are integers
    /// to KPL: their bit patterns), so that two threads computing the same operation on
    /// equal operands are known to hold equal values (docs/semantics.md, Uninterpreted
    /// functions).
    Apply(String, Vec<Expr>),
}

impl Expr {
    /// The `p == c` (or `c == p`) conjuncts of a precondition: the parameters it pins to
    /// a constant, for the callers that need concrete values (`requires n == 1024`).
    pub fn pinned_values(&self) -> Vec<(String, i64)> {
        fn walk(e: &Expr, out: &mut Vec<(String, i64)>) {
            match e {
                Expr::Binary(BinOp::And, a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                Expr::Binary(BinOp::Eq, a, b) => {
                    if let (Expr::Var(v), Expr::Int(c)) | (Expr::Int(c), Expr::Var(v)) = (&**a, &**b) {
                        out.push((v.clone(), *c));
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    pub fn un(op: UnOp, a: Expr) -> Expr {
        Expr::Unary(op, Box::new(a))
    }

    pub fn cast(ty: IntTy, a: Expr) -> Expr {
        Expr::Cast(ty, Box::new(a))
    }

    pub fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    pub fn other(a: Expr) -> Expr {
        Expr::Other(Box::new(a))
    }

    /// Whether the expression names the other thread's values ([`Expr::Other`]).
    pub fn has_other(&self) -> bool {
        match self {
            Expr::Other(_) => true,
            Expr::Int(_) | Expr::Var(_) | Expr::Builtin(_) => false,
            Expr::Unary(_, a) | Expr::Cast(_, a) => a.has_other(),
            Expr::Binary(_, a, b) => a.has_other() || b.has_other(),
            Expr::Apply(_, args) => args.iter().any(Expr::has_other),
        }
    }

    /// Calls `f` on every variable the expression reads.
    pub fn for_each_var(&self, f: &mut impl FnMut(&str)) {
        match self {
            Expr::Var(v) => f(v),
            Expr::Int(_) | Expr::Builtin(_) => {}
            Expr::Unary(_, a) | Expr::Cast(_, a) | Expr::Other(a) => a.for_each_var(f),
            Expr::Binary(_, a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
            Expr::Apply(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    /// Calls `f` on every builtin the expression reads.
    pub fn for_each_builtin(&self, f: &mut impl FnMut(Builtin)) {
        match self {
            Expr::Builtin(b) => f(*b),
            Expr::Int(_) | Expr::Var(_) => {}
            Expr::Unary(_, a) | Expr::Cast(_, a) | Expr::Other(a) => a.for_each_builtin(f),
            Expr::Binary(_, a, b) => {
                a.for_each_builtin(f);
                b.for_each_builtin(f);
            }
            Expr::Apply(_, args) => args.iter().for_each(|a| a.for_each_builtin(f)),
        }
    }
}

/// Memory spaces that matter for races: shared memory is per block, global memory is
/// shared by the whole grid (so inter-block races on it cannot be fixed by barriers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Space {
    Shared,
    Global,
}

impl Space {
    pub fn keyword(self) -> &'static str {
        match self {
            Space::Shared => "shared",
            Space::Global => "global",
        }
    }
}

/// Read-modify-write operations. Atomic/atomic pairs never race (docs/semantics.md, Warps
/// and atomics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    Exch,
    Min,
    Max,
    And,
    Or,
    Xor,
    Inc,
    Dec,
    Cas,
}

impl AtomicOp {
    pub const ALL: [AtomicOp; 11] = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Exch,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Inc,
        AtomicOp::Dec,
        AtomicOp::Cas,
    ];

    /// The `.kpl` spelling (`atomic_add`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomic_add",
            AtomicOp::Sub => "atomic_sub",
            AtomicOp::Exch => "atomic_exch",
            AtomicOp::Min => "atomic_min",
            AtomicOp::Max => "atomic_max",
            AtomicOp::And => "atomic_and",
            AtomicOp::Or => "atomic_or",
            AtomicOp::Xor => "atomic_xor",
            AtomicOp::Inc => "atomic_inc",
            AtomicOp::Dec => "atomic_dec",
            AtomicOp::Cas => "atomic_cas",
        }
    }
}

/// Where a barrier written "after" a statement goes in the source the statement came from
/// (docs/semantics.md, Kernels and labels: every label maps to a place in the original
/// source, or to none).
///
/// A front end that lowers one source statement to several KPL statements, or that makes
/// statements up (desugared loop conditions, inlined functions, macro bodies), says here
/// which of them have a place. `.kpl` statements are all [`Place::After`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Place {
    /// Right after the statement's span, in the enclosing block.
    #[default]
    After,
    /// At the top of the enclosing block's source text: the statement is the last one of
    /// a loop condition that the front end moved into the loop body, so the source body
    /// starts right after it.
    BlockTop,
    /// Nowhere. For a barrier statement: it is not written directly in the kernel's
    /// text (it comes from an inlined function or a macro), so `--strip` keeps it.
    Nowhere,
    /// Inside a source statement that [`crate::split`] prepared: a barrier here means
    /// splitting the statement (its racing operands read into locals before the barrier,
    /// the rest after it). Only [`crate::split::prepare`] gives this place.
    Split,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// From the opening to the closing brace; for a block without braces (the body of a
    /// brace-less `if`/`for`/... in C), the body statement.
    pub span: Span,
    /// The source block has braces. When it has not, writing a statement into it means
    /// adding braces around `span`. Always true for `.kpl`.
    pub braces: bool,
    /// A barrier at the top of this block has a place in the source (just inside the
    /// opening brace). False when the block begins with statements the front end made up
    /// (a loop condition evaluated inside the loop body). Always true for `.kpl`.
    pub top: bool,
}

impl Block {
    pub fn new(stmts: Vec<Stmt>) -> Block {
        Block {
            stmts,
            span: Span::NONE,
            braces: true,
            top: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub id: StmtId,
    pub kind: StmtKind,
    pub span: Span,
    /// Where a barrier after this statement would be written in the source.
    pub place: Place,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `local x;` or `local x = e;`: a private variable (arbitrary value when no init).
    Local {
        var: String,
        init: Option<Expr>,
    },
    /// `x = e;`
    Assign {
        var: String,
        value: Expr,
    },
    /// `havoc x;`: x gets an arbitrary value (what the front end does with unknown calls).
    /// `warp_havoc x;` (`warp`): an arbitrary value that is the same in every thread of
    /// a warp (of 32 threads, or the `--warp-size`) executing this instance of the
    /// statement together: the result of a warp-wide collective (`cg::reduce` over a
    /// 32-thread tile), which every lane of the warp receives.
    Havoc {
        var: String,
        warp: bool,
    },
    /// `x = A[e];`, or `x = u32(A[e]);`: the element read through an integer type
    /// (`ty`), as C reads an lvalue of that type. The value is the element converted
    /// to the type: exact whatever was stored, and in the type's range, which the
    /// verifier knows without a wrap-around unknown (memory is otherwise untyped).
    Read {
        var: String,
        array: String,
        index: Expr,
        ty: Option<IntTy>,
    },
    /// `A[e] = v;`
    Write {
        array: String,
        index: Expr,
        value: Expr,
    },
    /// `x = atomic_add(A[e], v);` and the other read-modify-write operations;
    /// `x = u32(atomic_add(A[e], v));` when the element has an integer type (`ty`):
    /// the old value is read through it, as for [`StmtKind::Read`].
    Atomic {
        var: Option<String>,
        op: AtomicOp,
        array: String,
        index: Expr,
        value: Expr,
        ty: Option<IntTy>,
    },
    Barrier,
    /// `__syncwarp()`: a barrier for the threads of one warp (32 threads, or the
    /// `--warp-size`). Not a candidate for synthesis and never removed by `--strip`.
    WarpBarrier,
    /// `cooperative_groups::this_grid().sync()` (`grid_barrier;` in `.kpl`): a barrier
    /// for every thread of the grid, threads of different blocks too (the kernel is
    /// launched cooperatively). It orders what a block barrier orders and more, and
    /// must be reached by all threads of the grid. Kept by `--strip` unless
    /// `fix --cooperative` may place grid barriers itself.
    GridBarrier,
    /// `ticket_barrier;`: where the last block of a *last-block ticket* knows that every
    /// other block has finished what it did before its fence (`__threadfence()`, then one
    /// `atomicInc`/`atomicAdd` per block on a counter; the block that draws the last
    /// ticket goes on). The CUDA front end writes it only where it proved that pattern
    /// (`cuda/src/lower/ticket.rs`): right after the block barrier that follows the
    /// ticket, with only the last block doing anything with global memory after it. Both
    /// oracles order it as a grid barrier; unlike one, a block that does not reach it is
    /// not a divergence (then no block is last), and the static verifier orders nothing
    /// by it then. Never placed, moved or removed by `fix`.
    TicketBarrier,
    If {
        cond: Expr,
        then_blk: Block,
        else_blk: Option<Block>,
    },
    While {
        cond: Expr,
        body: Block,
    },
    /// `for (v = init; cond; v = step) body`: declares `v` for the loop.
    For {
        var: String,
        init: Expr,
        cond: Expr,
        step: Expr,
        body: Block,
    },
    /// `assume e;`: executions where e is false for an enabled thread are infeasible.
    Assume(Expr),
    /// `invariant e;` (GPUVerify's `__invariant(e)`): a claimed loop invariant, true at
    /// the head of every iteration of the innermost loop around it. Written at the top
    /// of a loop body. A hint, never trusted: the static verifier proves it (base case
    /// and inductive step) before it uses it; it has no effect on executions.
    Invariant(Expr),
    /// Turns the thread's predicate off for the rest of the kernel.
    Return,
    /// Turns the thread's predicate off until the innermost loop ends.
    Break,
    /// Turns the thread's predicate off until the innermost loop's next iteration.
    Continue,
}

impl StmtKind {
    /// `havoc var;`: a value of the thread's own.
    pub fn havoc(var: impl Into<String>) -> StmtKind {
        StmtKind::Havoc {
            var: var.into(),
            warp: false,
        }
    }
}

impl StmtKind {
    pub fn is_barrier(&self) -> bool {
        matches!(self, StmtKind::Barrier)
    }

    /// A grid-wide barrier ([`StmtKind::GridBarrier`]).
    pub fn is_grid_barrier(&self) -> bool {
        matches!(self, StmtKind::GridBarrier)
    }

    /// A barrier that orders threads of different blocks: a grid barrier, or the
    /// ordering point of a last-block ticket ([`StmtKind::TicketBarrier`]).
    pub fn orders_blocks(&self) -> bool {
        matches!(self, StmtKind::GridBarrier | StmtKind::TicketBarrier)
    }

    /// The variable the statement sets or declares: `local x`, `x = e`, `havoc x`,
    /// `x = A[i]`, `x = atomic_..(..)`, a `for` loop's own variable.
    pub fn target(&self) -> Option<&str> {
        match self {
            StmtKind::Local { var, .. }
            | StmtKind::Assign { var, .. }
            | StmtKind::Havoc { var, .. }
            | StmtKind::Read { var, .. }
            | StmtKind::For { var, .. } => Some(var),
            StmtKind::Atomic { var, .. } => var.as_deref(),
            _ => None,
        }
    }

    pub fn is_loop(&self) -> bool {
        matches!(self, StmtKind::While { .. } | StmtKind::For { .. })
    }
}

/// A kernel parameter: an array in a memory space, or an integer that has one value
/// for the whole launch, somewhere in its type's range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    Array { name: String, space: Space },
    Scalar { name: String, ty: IntTy },
}

impl Param {
    pub fn name(&self) -> &str {
        match self {
            Param::Array { name, .. } | Param::Scalar { name, .. } => name,
        }
    }

    /// A scalar parameter of `.kpl`'s default type (`u32`).
    pub fn scalar(name: impl Into<String>) -> Param {
        Param::Scalar {
            name: name.into(),
            ty: IntTy::default(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub name: String,
    pub params: Vec<Param>,
    /// Preconditions on parameters and launch sizes (conjunction).
    pub requires: Vec<Expr>,
    pub body: Block,
    /// The kernel's header (for diagnostics).
    pub span: Span,
    /// The device-function calls the front end inlined, which spans name
    /// ([`Span::call`]); empty for `.kpl`. Statements made by transformations copy spans,
    /// so they keep their calls.
    pub calls: Vec<CallFrame>,
}

impl Kernel {
    pub fn arrays(&self) -> impl Iterator<Item = (&str, Space)> {
        self.params.iter().filter_map(|p| match p {
            Param::Array { name, space } => Some((name.as_str(), *space)),
            Param::Scalar { .. } => None,
        })
    }

    pub fn scalars(&self) -> impl Iterator<Item = &str> {
        self.typed_scalars().map(|(n, _)| n)
    }

    /// The scalar parameters with their types.
    pub fn typed_scalars(&self) -> impl Iterator<Item = (&str, IntTy)> {
        self.params.iter().filter_map(|p| match p {
            Param::Scalar { name, ty } => Some((name.as_str(), *ty)),
            Param::Array { .. } => None,
        })
    }

    /// The type of a scalar parameter.
    pub fn scalar_type(&self, name: &str) -> Option<IntTy> {
        self.typed_scalars().find(|(n, _)| *n == name).map(|(_, t)| t)
    }

    pub fn array_space(&self, name: &str) -> Option<Space> {
        self.arrays().find(|(n, _)| *n == name).map(|(_, s)| s)
    }

    /// All statements, in pre-order (a compound statement before its children, then
    /// branch before else branch).
    pub fn stmts(&self) -> Vec<&Stmt> {
        let mut out = Vec::new();
        collect(&self.body, &mut out);
        out
    }

    pub fn stmt(&self, id: StmtId) -> Option<&Stmt> {
        self.stmts().into_iter().find(|s| s.id == id)
    }

    pub fn max_id(&self) -> Option<StmtId> {
        self.stmts().iter().map(|s| s.id).max()
    }

    pub fn barrier_count(&self) -> usize {
        self.stmts().iter().filter(|s| s.kind.is_barrier()).count()
    }

    /// Gives every statement a fresh id in pre-order (what the front ends do after
    /// building a kernel).
    pub fn renumber(&mut self) {
        let mut next = 0;
        renumber_block(&mut self.body, &mut next);
    }

    /// The kernel without its barriers.
    pub fn without_barriers(&self) -> Kernel {
        let mut k = self.clone();
        strip_block(&mut k.body, &|s| s.kind.is_barrier());
        k
    }

    /// The kernel without the barriers `--strip` removes (those written directly in its
    /// text, see [`Stmt::is_movable_barrier`]); the same as
    /// [`without_barriers`](Self::without_barriers) for `.kpl`.
    pub fn without_movable_barriers(&self) -> Kernel {
        let mut k = self.clone();
        strip_block(&mut k.body, &Stmt::is_movable_barrier);
        k
    }

    /// [`without_movable_barriers`](Self::without_movable_barriers), and without the
    /// grid barriers written directly in its text too (`fix --cooperative --strip`).
    pub fn without_movable_syncs(&self) -> Kernel {
        let mut k = self.clone();
        strip_block(&mut k.body, &|s| {
            s.is_movable_barrier() || s.is_movable_grid_barrier()
        });
        k
    }

    /// The kernel without its block and grid barriers.
    pub fn without_any_barriers(&self) -> Kernel {
        let mut k = self.clone();
        strip_block(&mut k.body, &|s| s.kind.is_barrier() || s.kind.is_grid_barrier());
        k
    }

    /// The inlined calls through which the text at `span` is reached, innermost first:
    /// the function the text is in and where it is called, then the function that call
    /// is in and where that one is called, ..., up to the call the kernel makes. Empty
    /// for the kernel's own code.
    pub fn call_chain(&self, span: Span) -> Vec<&CallFrame> {
        let mut out: Vec<&CallFrame> = Vec::new();
        let mut at = span.call;
        while let Some(CallId(i)) = at {
            // A frame's parent was made before it: the chain ends (no cycle).
            let Some(f) = self.calls.get(i as usize) else {
                break;
            };
            if out.len() > self.calls.len() {
                break;
            }
            out.push(f);
            at = f.site.call.filter(|p| p.0 < i);
        }
        out
    }

    /// The same kernel with every span cleared: structural equality for round trips.
    pub fn without_spans(&self) -> Kernel {
        let mut k = self.clone();
        k.span = Span::NONE;
        k.calls.clear();
        clear_spans(&mut k.body);
        k
    }
}

impl Stmt {
    /// A statement with the default place (right after its span).
    pub fn new(id: StmtId, kind: StmtKind, span: Span) -> Stmt {
        Stmt {
            id,
            kind,
            span,
            place: Place::After,
        }
    }

    /// A barrier that `--strip` removes: one written directly in the kernel's text.
    pub fn is_movable_barrier(&self) -> bool {
        self.kind.is_barrier() && self.place != Place::Nowhere
    }

    /// A grid barrier written directly in the kernel's text (`fix --cooperative
    /// --strip` removes it).
    pub fn is_movable_grid_barrier(&self) -> bool {
        self.kind.is_grid_barrier() && self.place != Place::Nowhere
    }

    /// The blocks directly inside this statement, in program order.
    pub fn blocks(&self) -> Vec<&Block> {
        match &self.kind {
            StmtKind::If {
                then_blk, else_blk, ..
            } => std::iter::once(then_blk).chain(else_blk.as_ref()).collect(),
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }

    pub fn blocks_mut(&mut self) -> Vec<&mut Block> {
        match &mut self.kind {
            StmtKind::If {
                then_blk, else_blk, ..
            } => std::iter::once(then_blk).chain(else_blk.as_mut()).collect(),
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }
}

fn collect<'a>(b: &'a Block, out: &mut Vec<&'a Stmt>) {
    for_each_stmt(&b.stmts, &mut |s| out.push(s));
}

/// Calls `f` on every statement of `stmts` and of the blocks nested in them, in
/// pre-order (as [`Kernel::stmts`] lists them).
pub fn for_each_stmt<'a>(stmts: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in stmts {
        f(s);
        for inner in s.blocks() {
            for_each_stmt(&inner.stmts, f);
        }
    }
}

fn renumber_block(b: &mut Block, next: &mut u32) {
    for s in &mut b.stmts {
        s.id = StmtId(*next);
        *next += 1;
        for inner in s.blocks_mut() {
            renumber_block(inner, next);
        }
    }
}

fn strip_block(b: &mut Block, strip: &dyn Fn(&Stmt) -> bool) {
    b.stmts.retain(|s| !strip(s));
    for s in &mut b.stmts {
        for inner in s.blocks_mut() {
            strip_block(inner, strip);
        }
    }
}

fn clear_spans(b: &mut Block) {
    b.span = Span::NONE;
    for s in &mut b.stmts {
        s.span = Span::NONE;
        for inner in s.blocks_mut() {
            clear_spans(inner);
        }
    }
}

impl fmt::Display for StmtId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s{}", self.0)
    }
}
