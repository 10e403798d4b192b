//! Lowering: the C++ of a kernel (and of everything it calls) to one KPL [`Kernel`].
//!
//! Values: integers the kernel computes with are tracked exactly as KPL expressions;
//! floating-point values and anything else the IR cannot express are arbitrary
//! (`V::Arb`): a variable of such a type has no KPL counterpart, a read of it from
//! memory reads into the scratch local `_`, and a write of it writes a freshly havocked
//! `_`. Conditions that depend on such values are havocked locals.
//!
//! Memory: every shared or global array the kernel touches is a KPL array parameter,
//! indexed in cells (see [`super::types`]). Pointers are tracked as (array, offset); a
//! pointer whose array cannot be determined, or that changes arrays, is unsupported.
//! Private arrays are not memory in KPL: their reads are arbitrary, their writes
//! dropped.
//!
//! Aliasing: distinct pointer parameters are assumed not to alias (GPUVerify's
//! assumption, noted in every report about a kernel with two or more of them) unless
//! they are `__restrict__`, which makes it a fact; with [`Options::alias`] all
//! non-`__restrict__` global pointer parameters with the same cell size become one array,
//! each at its own symbolic offset, which is sound whatever the caller passes.
//!
//! Sub-modules: `types` resolves C++ types, `expr` values and places in memory,
//! `stmt` statements and control flow, `call` calls (which function, and the inlining
//! of `__device__` functions), `builtins` the CUDA builtins by family. The `Lowerer`'s
//! own work is here and in `emission` (statements and places), `scopes` (variables in
//! scope), `arrays` (KPL arrays); the kernels to lower come from `instances`, and
//! `launches` makes one kernel per launch context.

mod alloc;
mod arrays;
mod builtins;
pub(crate) use builtins::is_float_function;
mod call;
mod emission;
pub(crate) mod expr;
mod float;
pub mod fold;
pub(super) mod in_flight;
mod instances;
mod launches;
mod ptx;
mod scopes;
mod stmt;
mod ticket;
mod types;

use instances::{Instance, specialization_name};
use launches::launch_contexts;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use tree_sitter::Node;

use super::Options;
use super::error::{CudaError, ErrorKind};
use super::program::{FuncDef, Program};
use super::types::{Binding, StructTy, Ty};
use kpl::ir::{Block, CallFrame, CallId, Expr, Kernel, Param, Place, Space, Span, Stmt, StmtId, StmtKind};

pub(super) type R<T> = Result<T, CudaError>;

/// A lowered kernel and what the front end wants the user to know about it.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub kernel: Kernel,
    /// The launch the kernel is checked for: [`crate::Options::launch`] over what the
    /// host code and `__launch_bounds__` say; the relations among it are also the
    /// kernel's preconditions.
    pub launch: kpl::Launch,
    pub notes: Vec<String>,
    /// The user's names of the kernel's arrays, for reports (see [`ArrayOrigin`]).
    pub arrays: Vec<ArrayOrigin>,
}

/// What a KPL array is called in the user's source. KPL names are made unique
/// (`s_1`), arrays a pointer chooses between are one KPL array named after the first
/// (`p = c ? a : b`), and the dynamic shared memory is often declared under a reserved
/// name in a helper (`extern __shared__ int __smem[]` in the SDK's `SharedMemory<T>`):
/// reports name the user's variable instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayOrigin {
    /// The KPL array.
    pub array: String,
    /// Its parts in order of their first cell: the user's name and that cell (one part
    /// at 0 unless arrays were merged).
    pub parts: Vec<(String, i64)>,
}

impl ArrayOrigin {
    /// The user's name of cell `index` of the array, and its index in that part; without
    /// an index, every part's name (`a` or `b`).
    pub fn user(&self, index: Option<i64>) -> (String, Option<i64>) {
        match index {
            Some(i) => match self.parts.iter().rev().find(|p| p.1 <= i) {
                Some((name, start)) => (name.clone(), Some(i - start)),
                None => (self.array.clone(), Some(i)),
            },
            None => {
                let names: Vec<&str> = self.parts.iter().map(|p| p.0.as_str()).collect();
                match names.as_slice() {
                    [] => (self.array.clone(), None),
                    [one] => (one.to_string(), None),
                    _ => (names.join("` or `"), None),
                }
            }
        }
    }
}

/// A kernel that could not be lowered: one bad kernel does not keep the others of its
/// file from being checked.
#[derive(Clone, Debug)]
pub struct Failed {
    /// The kernel's name (`k<int>` for an instantiation; the function's name when its
    /// instantiations could not be worked out).
    pub name: String,
    pub error: CudaError,
    /// How many lowered kernels come before it in the file.
    pub position: usize,
}

/// Lowers every kernel of the program: each `__global__` function of the main file, each
/// instantiation of a template kernel. Fails on the first kernel that cannot be lowered.
pub fn lower_all(prog: &Program, opts: &Options) -> R<Vec<Lowered>> {
    let (out, failed) = lower_each(prog, opts);
    match failed.into_iter().next() {
        Some(f) => Err(f.error),
        None => Ok(out),
    }
}

/// Lowers every kernel of the program like [`lower_all`], but a kernel that cannot be
/// lowered is listed among the failures (in file order) instead of failing the others.
pub fn lower_each(prog: &Program, opts: &Options) -> (Vec<Lowered>, Vec<Failed>) {
    let mut out = Vec::new();
    let mut failed = Vec::new();
    let mut names = HashSet::new();
    let all_host = crate::host::host_code(prog);
    let no_host = crate::host::HostCode::default();
    let host = if opts.symbolic_launch { &no_host } else { &all_host };
    let main = prog.map.files.first().map(|f| f.path.display().to_string());
    // `k<float>` with an explicit specialization is the specialization's, not the
    // primary template's.
    let special: HashSet<String> = (0..prog.funcs.len())
        .filter(|&i| prog.funcs[i].global && prog.funcs[i].body.is_some())
        .filter_map(|i| specialization_name(prog, i))
        .collect();
    for (i, f) in prog.funcs.iter().enumerate() {
        let primary = specialization_name(prog, i).is_none();
        if !f.global || f.body.is_none() {
            continue;
        }
        // A kernel of an included file belongs to that file, unless this file launches
        // it (a project's kernels in its own header).
        let launched_here = all_host
            .launches
            .iter()
            .any(|h| h.kernel == f.name && Some(&h.site.file) == main.as_ref());
        let in_header = prog.map.loc(f.node.start_byte()).file != 0;
        if in_header && !launched_here {
            continue;
        }
        // The instances of a template kernel come from its launches: one in host code
        // that did not parse may be missing.
        if f.template.is_some()
            && let Some(at) = all_host.unparsed.get(&f.name)
        {
            failed.push(Failed {
                name: f.name.clone(),
                error: prog.error(
                    ErrorKind::Unsupported,
                    f.node,
                    format!(
                        "unsupported: the template kernel `{}` is named in host code autosync could not parse \
                         ({}:{}): the instances launched there are not known",
                        f.name, at.file, at.line
                    ),
                ),
                position: out.len(),
            });
            continue;
        }
        let mut ctx = Lowerer::new(prog, opts);
        let instances = match ctx.instances(i, &all_host) {
            Ok(v) => v,
            Err(error) => {
                failed.push(Failed {
                    name: f.name.clone(),
                    error,
                    position: out.len(),
                });
                continue;
            }
        };
        // A context launches the open instance unless its own is one of these.
        let named: Vec<String> = instances.iter().map(|i| i.name.clone()).collect();
        for inst in instances {
            if (primary && special.contains(&inst.name)) || !names.insert(inst.name.clone()) {
                continue;
            }
            let name = inst.name.clone();
            match lower_merging(prog, opts, i, inst) {
                Ok(mut l) => {
                    if in_header {
                        l.notes.push(header_kernel_note(prog, f));
                    }
                    out.extend(launch_contexts(prog, opts, i, host, &named, l))
                }
                Err(error) => failed.push(Failed {
                    name,
                    error,
                    position: out.len(),
                }),
            }
        }
    }
    (out, failed)
}

/// Where a kernel of an included header is, for its report: its accesses are reported
/// at the header's lines, and `fix` writes only the main file.
fn header_kernel_note(prog: &Program, f: &FuncDef) -> String {
    let (file, line, _) = prog.map.describe(f.node.start_byte());
    format!(
        "`{}` is defined in {}:{}, a header this file includes and launches it from: its accesses \
         are reported at the header's lines, and `fix` places no barrier in the header (add them \
         there yourself, or run `autosync fix` on the header)",
        f.name,
        file.display(),
        line
    )
}

/// Lowers one kernel, again with more arrays merged as long as a pointer is found to
/// choose between arrays (see [`Lowerer::merge`]).
fn lower_merging(prog: &Program, opts: &Options, f: usize, inst: Instance) -> R<Lowered> {
    let mut merge: Vec<ArrayKey> = Vec::new();
    let mut carry = HashMap::new();
    loop {
        let mut ctx = Lowerer::new(prog, opts);
        ctx.merge = merge.clone();
        ctx.copies.carry = carry.clone();
        match ctx.kernel(f, inst.clone()) {
            Ok(mut l) => {
                for o in l.arrays.iter().filter(|o| o.parts.len() > 1) {
                    let names: Vec<String> = o.parts.iter().map(|p| format!("`{}`", p.0)).collect();
                    l.notes.push(format!(
                        "{} are checked as one memory (each in a range of its own, so they never \
                         overlap) because a pointer may point into any of them",
                        names.join(", ")
                    ));
                }
                return Ok(l);
            }
            // A loop leaves copies in flight for its next iteration: again, carrying them.
            Err(_)
                if carry.len() < 8
                    && ctx
                        .copies
                        .carry_request
                        .as_ref()
                        .is_some_and(|(body, _)| !carry.contains_key(body)) =>
            {
                if let Some((body, copies)) = ctx.copies.carry_request.take() {
                    carry.insert(body, copies);
                }
            }
            Err(e) => match ctx.merge_request.take() {
                Some((a, b)) if merge.len() < 16 && !(merge.contains(&a) && merge.contains(&b)) => {
                    for k in [a, b] {
                        if !merge.contains(&k) {
                            merge.push(k);
                        }
                    }
                }
                _ => return Err(e),
            },
        }
    }
}

/// A C++ variable in scope.
#[derive(Clone, Debug)]
pub(super) struct VarInfo {
    pub name: String,
    pub ty: Ty,
    pub kind: VarKind,
    /// Where it was declared: the depth of the frame and its loop nesting there (a
    /// constant may become a variable only where no loop lies in between,
    /// `call::unknown`).
    pub declared_at: (usize, usize),
    /// The depth of the frame and the number of the block it was declared in
    /// ([`Lowerer::block`]): an assignment in the same block is in the declaration's
    /// own statement list, after it, with no condition, loop or skipped jump in between
    /// (those lower into blocks of their own), so the variable surely holds what it
    /// assigns from there on.
    pub declared_in: (usize, usize),
}

pub(super) type VarId = usize;

#[derive(Clone, Debug)]
pub(super) enum VarKind {
    /// An integer held by a KPL local or scalar parameter.
    Int(String),
    /// An integer whose value never changes: a constant, a template argument, or an
    /// argument bound to a parameter the function never assigns.
    Fixed(Expr),
    /// A value the lowering does not track (floating point, opaque).
    Arb,
    /// A non-integer kernel parameter the kernel never assigns: untracked but uniform
    /// (a floating-point one is the term `@arg_<name>()`, see [`float`]).
    Uniform,
    /// A floating-point variable held by a KPL local (its term, see [`float`]).
    Float(String),
    /// A pointer: its array (unknown until first assigned) and its offset.
    Ptr {
        target: Option<Target>,
        off: Offset,
        unit: u32,
    },
    /// One variable per field.
    Struct(Vec<VarId>),
    /// An array object (shared, global or private).
    Array(Target),
    /// A C++ reference.
    Ref(LVal),
    /// A texture reference or object.
    Texture,
}

/// Where a pointer's offset lives.
#[derive(Clone, Debug)]
pub(super) enum Offset {
    /// An expression over values that never change.
    Fixed(Expr),
    /// A KPL local, for pointers that are assigned.
    Local(String),
}

/// What memory a pointer points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// An entry of [`Lowerer::arrays`].
    Array(usize),
    /// A variable (`&x`).
    Var(VarId),
    /// The null pointer.
    Null,
    /// Something the lowering cannot name (a pointer loaded from memory, an integer cast
    /// to a pointer): dereferencing it is unsupported.
    Unknown,
}

/// A pointer value: `target + off * unit` bytes, pointing at a `ty`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ptr {
    pub target: Target,
    pub off: Expr,
    /// Bytes per unit of `off`.
    pub unit: u32,
}

/// An l-value: a place a value can be read from or written to.
#[derive(Clone, Debug)]
pub(super) enum LVal {
    Var(VarId),
    /// Memory at a pointer, holding a `ty`.
    Mem(Ptr, Ty),
    /// Private memory the lowering does not model (reads arbitrary, writes dropped).
    Private(Ty),
}

/// A value with its C++ type.
#[derive(Clone, Debug)]
pub(super) struct Value {
    pub v: V,
    pub ty: Ty,
}

#[derive(Clone, Debug)]
pub(super) enum V {
    Int(Expr),
    Arb,
    /// An untracked value (of a type the lowering does not know) that is the same in
    /// every thread of the launch and in every evaluation: a kernel parameter of such a
    /// type, or an operation on such values. Where it becomes an integer, a condition or
    /// a stored value it is a fresh scalar parameter (one value per launch), so a guard
    /// like `if (cfg.alpha > 0.5f)` does not diverge.
    Uniform,
    /// A floating-point value, known as a term ([`float`]): its bit pattern for a
    /// constant, else uninterpreted functions (`@f32_add_3(x, y)`) of its operands'
    /// terms. Equal terms are equal values; nothing else is known of it.
    Float(Expr),
    Ptr(Ptr),
    Struct(Vec<Value>),
    Void,
}

impl Value {
    pub fn int(e: Expr, ty: Ty) -> Value {
        Value { v: V::Int(e), ty }
    }

    pub fn arb(ty: Ty) -> Value {
        Value { v: V::Arb, ty }
    }

    pub fn uniform(ty: Ty) -> Value {
        Value { v: V::Uniform, ty }
    }

    pub fn float(e: Expr, ty: Ty) -> Value {
        Value { v: V::Float(e), ty }
    }

    pub fn void() -> Value {
        Value {
            v: V::Void,
            ty: Ty::Void,
        }
    }
}

/// Where an array lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArraySpace {
    Shared,
    Global,
    /// `__constant__` memory and textures: read-only, so reads never race.
    Constant,
    /// Thread-private arrays: not modelled.
    Private,
}

/// Identifies an array across uses, so that a `__shared__` declaration in a function
/// inlined twice, or several `extern __shared__` declarations, name one array.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum ArrayKey {
    Param(String),
    /// A declaration, by its byte offset in the preprocessed text.
    Decl(usize),
    Global(String),
    /// All `extern __shared__` arrays share the dynamic shared memory.
    ExternShared,
    /// A private array, one per declaration instance.
    Private(usize),
    /// Memory a thread allocates (`malloc`, `new`), by the allocation's byte offset
    /// (`lower::alloc`).
    Heap(usize),
    /// The arrays of one memory space and cell size that a pointer may choose between
    /// (see [`Lowerer::merge`]), laid out one after the other.
    Merged(String),
    /// Under `--alias`: all global memory that pointer parameters (of any element type)
    /// and `__device__` arrays may share, addressed in bytes (see [`Lowerer::aliased`]).
    Aliased,
    /// The results of `__syncthreads_or/and/count`: one cell per call, never written,
    /// read by every thread of the block after the barrier (`builtins::sync`).
    SyncResults,
}

#[derive(Clone, Debug)]
pub(super) struct ArrayInfo {
    pub kpl: String,
    /// The C name it was declared with (of the first part, for merged arrays).
    pub name: String,
    /// For a C name reserved to the implementation (`__smem`, declared in a helper): the
    /// first local pointer that points at its start (`T *sdata = SharedMemory<T>();`),
    /// the name reports use.
    pub alias: Option<String>,
    pub space: ArraySpace,
    /// Bytes per cell.
    pub cell: u32,
    pub key: ArrayKey,
}

/// Local names and types of one C++ scope.
#[derive(Clone, Debug, Default)]
struct Scope {
    vars: HashMap<String, VarId>,
    aliases: HashMap<String, Ty>,
    /// Locals that name a lambda (`call/lambda.rs`).
    lambdas: HashMap<String, call::LambdaDef>,
}

/// How `return` works in the function being lowered.
#[derive(Clone, Debug)]
pub(super) enum Ret {
    /// The kernel itself: `return` is KPL `return`.
    Kernel,
    /// An inlined function whose only `return` is its last statement.
    Last,
    /// An inlined function with early returns: `done` is set, the rest is guarded.
    Flag { done: String, result: Option<VarId> },
}

/// One function being lowered (the kernel, or an inlined call).
#[derive(Clone, Debug)]
pub(super) struct Frame {
    pub func: Option<usize>,
    pub bindings: Vec<(String, Binding)>,
    /// The object of a method call.
    pub this: Option<LVal>,
    pub this_ty: Option<Rc<StructTy>>,
    pub ret: Ret,
    /// KPL loops open in this function (for `return` inside loops).
    pub loops: usize,
    /// C++ names the function assigns (or takes the address of) somewhere.
    pub assigned: HashSet<String>,
    /// Index of the frame's first scope.
    pub scope_base: usize,
    /// Statements of this function have places in the source (false when inlined).
    pub placeable: bool,
    /// The value of the final `return` of an inlined function ([`Ret::Last`]).
    pub ret_value: Option<Value>,
    /// The place the final `return` of an inlined function that returns a reference
    /// names (`T &operator[](int i) { return payload[i]; }`).
    pub ret_place: Option<LVal>,
    /// The inlined function returns a reference.
    pub returns_ref: bool,
    /// The inlined call this frame lowers ([`Lowerer::calls`]); `None` for the kernel.
    /// Every span made while it is lowered names it ([`Lowerer::span`]).
    pub call: Option<CallId>,
}

pub(super) struct Lowerer<'p, 't> {
    pub prog: &'p Program<'t>,
    pub opts: &'p Options,
    used: HashSet<String>,
    pub arrays: Vec<ArrayInfo>,
    /// Kernel parameters in order (arrays of C++ parameters and scalars), before the
    /// shared and global arrays found in the body.
    params: Vec<Param>,
    requires: Vec<Expr>,
    /// The locals precondition reads read into (see `builtins::annotations`).
    spec_reads: HashSet<String>,
    pub notes: Vec<String>,
    blocks: Vec<Vec<Stmt>>,
    /// A number for each block of `blocks` (the same length), never reused: which
    /// statement list a variable was declared in (`VarInfo::declared_in`).
    block_ids: Vec<usize>,
    /// Block numbers handed out so far.
    blocks_made: usize,
    scratch_used: bool,
    /// Floating-point arithmetic operations lowered so far: each gets functions of its
    /// own (see [`float`]).
    float_sites: u32,
    pub vars: Vec<VarInfo>,
    scopes: Vec<Scope>,
    pub frames: Vec<Frame>,
    /// The calls inlined so far, for reports ([`Kernel::calls`]).
    pub calls: Vec<CallFrame>,
    structs: HashMap<String, Rc<StructTy>>,
    resolving: HashSet<String>,
    /// Brace-less blocks whose text cannot be wrapped in braces (from a macro).
    unplaceable_blocks: usize,
    /// The call being lowered is a statement of its own (its result is not used).
    pub discard: bool,
    /// The call (node id) whose result is wanted as a place, and that place once the
    /// inlined function returned a reference ([`Lowerer::returned_place`]).
    pub ref_call: Option<(usize, Option<LVal>)>,
    /// KPL locals that may change after their declaration (C++ variables that are
    /// assigned, pointer offsets, flags); every other local keeps its first value.
    pub mutable: HashSet<String>,
    /// Arrays lowered as parts of one KPL array because a pointer may point into any of
    /// them (`p = c ? a : b`, or `p = a; ... p = b`): the previous attempt at the kernel
    /// asked for it through [`Lowerer::merge_request`]. Each part gets its own range of
    /// the merged array, so accesses to distinct parts never meet (within bounds) and
    /// accesses to one part meet exactly when they did before: sound.
    pub merge: Vec<ArrayKey>,
    /// Where each merged part starts, in cells of the merged array.
    merge_bases: HashMap<ArrayKey, Expr>,
    /// The next free cell of each merged array (`None` once a part of unknown size is in).
    merge_end: HashMap<String, Option<i64>>,
    /// The parts of merged arrays: the array, the part's C name, its first cell.
    merge_parts: Vec<(usize, String, i64)>,
    /// Two arrays a pointer was found to choose between (the lowering then fails, and is
    /// tried again with both in [`Lowerer::merge`]).
    pub merge_request: Option<(ArrayKey, ArrayKey)>,
    /// Labels that forward `goto`s may jump to (see `stmt::jumps`).
    gotos: Vec<stmt::GotoTarget>,
    /// Objects of types the file does not define (a library's `BlockReduce(temp)`):
    /// what each may hold, from its constructor's arguments (pointers, and the places of
    /// reference arguments), so that its methods reach them (`call::unknown_call`).
    held: HashMap<VarId, Value>,
    /// The thread's asynchronous copies in flight (see [`in_flight`]).
    copies: in_flight::InFlight,
    /// `__syncthreads_or/and/count` calls lowered so far: each reads its own cell of
    /// the [`ArrayKey::SyncResults`] array.
    sync_results: i64,
    /// The markers `__threadfence()` leaves in the statements (locals of these names),
    /// for [`ticket`]'s last-block pattern; removed before the kernel is done.
    fences: HashSet<String>,
    /// The results of block-scoped atomics (`atomicAdd_block`), for [`ticket`].
    pub block_scoped: HashSet<String>,
    /// The locals `__ldg` and surface reads read into, for [`ticket`].
    pub noncoherent: HashSet<String>,
}

/// Names the `.kpl` syntax reserves.
const KPL_KEYWORDS: &[&str] = &[
    "kernel",
    "shared",
    "global",
    "requires",
    "local",
    "barrier",
    "if",
    "else",
    "while",
    "for",
    "assume",
    "return",
    "break",
    "continue",
    "havoc",
    "tid",
    "bid",
    "bdim",
    "gdim",
    "atomic_add",
    "atomic_sub",
    "atomic_exch",
    "atomic_min",
    "atomic_max",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_inc",
    "atomic_dec",
    "atomic_cas",
];

/// Cells between the slots of merged arrays of unknown size (see
/// [`Lowerer::array_at`]): more than any GPU allocation has (2^40 cells of at least one
/// byte is a terabyte).
const MERGE_SLOT: i64 = 1 << 40;

/// The scratch local that receives values nobody uses.
pub(super) const SCRATCH: &str = "_";

impl<'p, 't> Lowerer<'p, 't> {
    pub fn new(prog: &'p Program<'t>, opts: &'p Options) -> Lowerer<'p, 't> {
        let mut used: HashSet<String> = KPL_KEYWORDS.iter().map(|s| s.to_string()).collect();
        used.insert(SCRATCH.to_string());
        Lowerer {
            prog,
            opts,
            used,
            arrays: Vec::new(),
            merge: Vec::new(),
            merge_bases: HashMap::new(),
            merge_end: HashMap::new(),
            merge_parts: Vec::new(),
            merge_request: None,
            gotos: Vec::new(),
            held: HashMap::new(),
            sync_results: 0,
            fences: HashSet::new(),
            block_scoped: HashSet::new(),
            noncoherent: HashSet::new(),
            copies: in_flight::InFlight::default(),
            params: Vec::new(),
            requires: Vec::new(),
            spec_reads: HashSet::new(),
            notes: Vec::new(),
            blocks: vec![Vec::new()],
            block_ids: vec![0],
            blocks_made: 1,
            scratch_used: false,
            float_sites: 0,
            vars: Vec::new(),
            scopes: vec![Scope::default()],
            frames: vec![Frame {
                func: None,
                bindings: Vec::new(),
                this: None,
                this_ty: None,
                ret: Ret::Kernel,
                loops: 0,
                assigned: HashSet::new(),
                scope_base: 0,
                placeable: true,
                ret_value: None,
                ret_place: None,
                returns_ref: false,
                call: None,
            }],
            calls: Vec::new(),
            structs: HashMap::new(),
            resolving: HashSet::new(),
            unplaceable_blocks: 0,
            discard: false,
            ref_call: None,
            mutable: HashSet::new(),
        }
    }

    // ---- diagnostics -------------------------------------------------------------

    pub fn text(&self, n: Node<'t>) -> &'t str {
        self.prog.text(n)
    }

    pub fn unsupported(&self, n: Node<'t>, what: &str, help: &str) -> CudaError {
        self.prog
            .error(ErrorKind::Unsupported, n, format!("unsupported: {what}"))
            .with_help(help.to_string())
    }

    pub fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The span of a node, with the inlined call being lowered ([`Span::call`]).
    pub fn span(&self, n: Node<'t>) -> Span {
        Span {
            call: self.frame().call,
            ..self.prog.map.span(n.byte_range())
        }
    }

    // ---- names -------------------------------------------------------------------

    /// A KPL name based on `base` that nothing else in the kernel uses.
    pub fn fresh(&mut self, base: &str) -> String {
        let base: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
            format!("v{base}")
        } else {
            base
        };
        if self.used.insert(base.clone()) {
            return base;
        }
        for i in 1.. {
            let name = format!("{base}_{i}");
            if self.used.insert(name.clone()) {
                return name;
            }
        }
        unreachable!("an unused name always exists")
    }

    /// The scratch local `_` (declared at the top of the kernel when used).
    pub fn scratch(&mut self) -> String {
        self.scratch_used = true;
        SCRATCH.to_string()
    }

    // ---- kernels -----------------------------------------------------------------

    fn kernel(&mut self, f: usize, inst: Instance) -> R<Lowered> {
        let def: FuncDef<'t> = self.prog.funcs[f].clone();
        let body = def
            .body
            .ok_or_else(|| self.unsupported(def.node, "kernel without body", ""))?;
        self.notes.extend(inst.notes.iter().cloned());
        // Symbolic template values become scalar parameters.
        for (param, b) in &inst.bindings {
            if let Binding::Value(Expr::Var(v)) = b {
                self.template_scalar(def.template, param, v)?;
            }
        }
        {
            let frame = self.frame_mut();
            frame.func = Some(f);
            frame.bindings = inst.bindings.clone();
        }
        self.frame_mut().assigned = stmt::assigned_names(self.prog, body);
        self.push_scope();
        self.frame_mut().scope_base = self.scopes.len() - 1;
        let mut top = self
            .prog
            .map
            .main_range(body.start_byte()..body.start_byte() + 1)
            .is_some();
        let (_, mut stmts) = self.in_block(|l| {
            l.kernel_params(&def)?;
            l.compound_items(body)
        })?;
        self.last_block_ticket(&mut stmts);
        if !self.copies.is_empty() {
            return Err(self.unsupported(
                body,
                "an asynchronous copy that may still be in flight when the kernel ends",
                "wait for every copy (`cg::wait`, `__pipeline_wait_prior(0)`, `consumer_wait`) before the kernel ends",
            ));
        }
        if let Some(s) = stmts.iter_mut().find(|s| s.place == Place::BlockTop) {
            // Parameter copies open the body (see `kernel_params`).
            if !top {
                s.place = Place::Nowhere;
            }
            top = false;
        }
        builtins::annotations::ghost_reads(&mut stmts, &self.spec_reads);
        let saved = std::mem::take(&mut self.copies.locals);
        for var in saved.into_iter().rev() {
            stmts.insert(
                0,
                Stmt {
                    id: StmtId(0),
                    kind: StmtKind::Local {
                        var,
                        init: Some(Expr::Int(0)),
                    },
                    span: self.span(body),
                    place: Place::Nowhere,
                },
            );
        }
        if self.scratch_used {
            stmts.insert(
                0,
                Stmt {
                    id: StmtId(0),
                    kind: StmtKind::Local {
                        var: SCRATCH.to_string(),
                        init: None,
                    },
                    span: self.span(body),
                    place: Place::Nowhere,
                },
            );
        }
        let mut params = self.params.clone();
        for a in &self.arrays {
            let space = match a.space {
                ArraySpace::Shared => Space::Shared,
                ArraySpace::Global => Space::Global,
                _ => continue,
            };
            if !params.iter().any(|p| p.name() == a.kpl) {
                params.push(Param::Array {
                    name: a.kpl.clone(),
                    space,
                });
            }
        }
        let header = self.prog.map.span(def.node.start_byte()..body.start_byte());
        let mut kernel = Kernel {
            name: inst.name,
            params,
            requires: self.requires.clone(),
            body: Block {
                stmts,
                span: self.span(body),
                braces: true,
                top,
            },
            span: header,
            calls: std::mem::take(&mut self.calls),
        };
        kernel.renumber();
        Ok(Lowered {
            kernel,
            launch: self.opts.launch.clone(),
            notes: self.notes.clone(),
            arrays: self.array_origins(),
        })
    }
}
