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
//! of `__device__` functions), `builtins` the CUDA builtins by family.

mod alloc;
mod builtins;
mod call;
pub(crate) mod expr;
mod float;
pub mod fold;
pub(super) mod in_flight;
mod ptx;
mod stmt;
mod ticket;
mod types;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use tree_sitter::Node;

use super::Options;
use super::error::{CudaError, ErrorKind};
use super::program::{FuncDef, Program, declarator_name, named_children};
use super::types::{Binding, StructTy, Ty};
use kpl::ir::{BinOp, Block, Expr, Kernel, Param, Place, Space, Span, Stmt, StmtId, StmtKind};

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
                    out.extend(launch_contexts(prog, opts, i, host, l))
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

/// Where a kernel of an included header is, for its report: the report's lines are the
/// main file's (the `#include` line), and `fix` writes only the main file.
fn header_kernel_note(prog: &Program, f: &FuncDef) -> String {
    let (file, line, _) = prog.map.describe(f.node.start_byte());
    format!(
        "`{}` is defined in {}:{}, a header this file includes and launches it from: its accesses \
         are reported at the `#include` line, and `fix` places no barrier in the header (check the \
         header itself for its lines)",
        f.name,
        file.display(),
        line
    )
}

/// The kernel `l` once per launch context: the launch of `opts` (flags over header)
/// over the host code's launches of this instance (when the flags and the header say
/// nothing of the sizes) over its `__launch_bounds__`. With several distinct host
/// contexts the kernel is checked for each, numbered in text order (`k#1`, `k#2`).
fn launch_contexts(
    prog: &Program,
    opts: &Options,
    f: usize,
    host: &crate::host::HostCode,
    l: Lowered,
) -> Vec<Lowered> {
    let def = &prog.funcs[f];
    let bounds = kpl::Launch {
        max_threads: crate::host::launch_bound(prog, def.node),
        ..kpl::Launch::default()
    }
    .from(kpl::launch::Origin::Bounds);
    let given = &opts.launch;
    let sized = given.block.iter().chain(&given.grid).any(Option::is_some);
    let params: Vec<String> = def
        .params()
        .into_iter()
        .filter_map(|p| p.child_by_field_name("declarator"))
        .filter_map(|d| crate::program::declarator_name(d, prog.src))
        .collect();
    let scalars: Vec<(String, kpl::IntTy)> = l
        .kernel
        .typed_scalars()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
    let mut contexts: Vec<kpl::Launch> = Vec::new();
    // Why the host launches do not tell all, if they do not.
    let unread = host
        .escaped
        .get(&def.name)
        .map(|at| {
            format!(
                "the host code uses `{}` at line {} other than by launching it",
                def.name, at.line
            )
        })
        .or_else(|| {
            host.unparsed.get(&def.name).map(|at| {
                format!(
                    "the host code names `{}` in text it could not parse ({}:{})",
                    def.name, at.file, at.line
                )
            })
        })
        .or_else(|| {
            // A launch may hide in a macro of what was not read.
            prog.map.unread.first().map(|source| {
                format!(
                    "the host code may launch `{}` through a macro of {source}",
                    def.name
                )
            })
        });
    for h in host
        .launches
        .iter()
        .filter(|h| !sized && unread.is_none() && h.kernel == def.name)
    {
        for c in &h.contexts {
            // A context whose template arguments are not known launches an instance
            // the open one stands for.
            let this = match (&h.template_list, h.instance(c)) {
                (None, _) => def.template.is_none() || !l.kernel.name.contains('<'),
                (Some(_), Some(name)) => name == l.kernel.name,
                (Some(_), None) => !l.kernel.name.contains('<'),
            };
            if !this {
                continue;
            }
            let launch = c.launch(&params, &scalars, &h.site);
            match contexts.iter_mut().find(|x| same_launch(x, &launch)) {
                Some(x) => {
                    if !x.sites.contains(&h.site) {
                        x.sites.push(h.site.clone());
                    }
                }
                None => contexts.push(launch),
            }
        }
    }
    if contexts.is_empty() {
        let mut l = l;
        l.launch = given.clone().over(&bounds);
        if let Some(why) = unread.filter(|_| !sized) {
            l.notes.push(format!("{why}: checked for every launch"));
        }
        return vec![l];
    }
    let many = contexts.len() > 1;
    let mut out: Vec<Lowered> = Vec::new();
    for ctx in contexts {
        let launch = given.clone().over(&ctx).over(&bounds);
        let mut k = l.clone();
        k.kernel = launch.constrain(&l.kernel);
        if !launch.cooperative
            && launch.sources.contains(&kpl::launch::Origin::Host)
            && drop_grid_barriers(&mut k.kernel.body)
        {
            let lines: Vec<String> = launch.sites.iter().map(|s| s.line.to_string()).collect();
            k.notes.push(format!(
                "the host code launches `{}` at line {} without a cooperative launch (`cudaLaunchCooperativeKernel`), \
                 where a grid sync is undefined: it is checked as no synchronization there",
                def.name,
                lines.join(", ")
            ));
        }
        if many {
            // Numbered in text order, not by line: a fix that moves the launches keeps
            // the names (the notes say the lines).
            k.kernel.name = format!("{}#{}", l.kernel.name, out.len() + 1);
        }
        k.notes.push(launch.describe());
        k.launch = launch;
        out.push(k);
    }
    out
}

/// Replaces each grid barrier in `block` by a statement that does nothing, for a
/// launch that is not cooperative; whether there was one.
fn drop_grid_barriers(block: &mut kpl::Block) -> bool {
    let mut dropped = false;
    for s in &mut block.stmts {
        if s.kind.is_grid_barrier() {
            s.kind = StmtKind::Assume(Expr::Int(1));
            dropped = true;
        }
        for b in s.blocks_mut() {
            dropped |= drop_grid_barriers(b);
        }
    }
    dropped
}

/// Two host launches that give the same facts (their sites aside).
fn same_launch(a: &kpl::Launch, b: &kpl::Launch) -> bool {
    kpl::Launch {
        sites: Vec::new(),
        ..a.clone()
    } == kpl::Launch {
        sites: Vec::new(),
        ..b.clone()
    }
}

/// The name (`k<float>`) of an explicit specialization `template <> ... k<float>(...)`.
fn specialization_name(prog: &Program, f: usize) -> Option<String> {
    let def = &prog.funcs[f];
    let params = def.template?;
    if named_children(params).iter().any(|c| c.kind() != "comment") {
        return None;
    }
    let mut stack = vec![def.node];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_declarator" {
            let d = n.child_by_field_name("declarator")?;
            return (d.kind() == "template_function")
                .then(|| prog.text(d).split_whitespace().collect::<Vec<_>>().join(""));
        }
        if n.kind() != "compound_statement" {
            stack.extend(named_children(n));
        }
    }
    None
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

/// Template bindings whose values are all constants: an instance autosync can name.
fn constant_bindings(bindings: Vec<(String, Binding)>) -> Option<Vec<(String, Binding)>> {
    bindings
        .iter()
        .all(|(_, b)| !matches!(b, Binding::Value(e) if fold::int(e).is_none()))
        .then_some(bindings)
}

/// An instance's name and its template parameters' bindings.
type NamedInstance = (String, Vec<(String, Binding)>);

/// One kernel to lower: a function with its template arguments.
#[derive(Clone, Debug)]
struct Instance {
    name: String,
    bindings: Vec<(String, Binding)>,
    notes: Vec<String>,
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
            }],
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

    pub fn span(&self, n: Node<'t>) -> Span {
        self.prog.map.span(n.byte_range())
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

    // ---- emission ----------------------------------------------------------------

    /// Appends a statement to the current block. It has no place until
    /// [`finalize`](Self::finalize) gives one to the last statement of a source statement.
    pub fn emit(&mut self, kind: StmtKind, span: Span) {
        let barrier = matches!(
            kind,
            StmtKind::Barrier | StmtKind::WarpBarrier | StmtKind::GridBarrier
        );
        if let Some(b) = self.blocks.last_mut() {
            b.push(Stmt {
                id: StmtId(0),
                kind,
                span,
                place: Place::Nowhere,
            });
        }
        // A copy in flight goes on in the interval the barrier opens.
        if barrier && !self.copies.is_empty() {
            self.repeat_pending();
        }
    }

    /// `__threadfence()`: a marker for [`ticket`] where the statement was (nothing
    /// while a copy is in flight: a statement there repeats the copy's accesses).
    pub fn fence_marker(&mut self, span: Span) {
        if self.copies.is_empty() {
            let var = self.fresh("_fence");
            self.fences.insert(var.clone());
            self.emit(StmtKind::Local { var, init: None }, span);
        }
    }

    /// Makes a last-block ticket's ordering explicit ([`ticket`]), with a note saying
    /// so (or why a ticket orders nothing), and removes the fence markers.
    fn last_block_ticket(&mut self, stmts: &mut Vec<Stmt>) {
        let space_of = |name: &str| {
            self.arrays
                .iter()
                .find(|a| a.kpl == name)
                .map(|a| a.space)
                .or_else(|| {
                    self.params.iter().find_map(|p| match p {
                        Param::Array { name: n, space } if n == name => Some(match space {
                            Space::Shared => ArraySpace::Shared,
                            Space::Global => ArraySpace::Global,
                        }),
                        _ => None,
                    })
                })
        };
        let global = |a: &str| space_of(a) == Some(ArraySpace::Global);
        let shared = |a: &str| space_of(a) == Some(ArraySpace::Shared);
        let scalars: HashSet<String> = self
            .params
            .iter()
            .filter_map(|p| match p {
                Param::Scalar { name, .. } => Some(name.clone()),
                Param::Array { .. } => None,
            })
            .collect();
        // Reads autosync cannot see into go to the scratch local.
        let mut noncoherent = self.noncoherent.clone();
        noncoherent.insert(SCRATCH.to_string());
        let cx = ticket::Context {
            fences: &self.fences,
            global: &global,
            shared: &shared,
            scalars: &scalars,
            block_scoped: &self.block_scoped,
            noncoherent: &noncoherent,
        };
        let note = ticket::order_last_block(stmts, &cx);
        ticket::remove_fences(stmts, &self.fences);
        if let Some(n) = note {
            self.note(n);
        }
    }

    /// Adds to what the object variable `id` holds (see [`Lowerer::held`]).
    pub fn hold(&mut self, id: VarId, parts: Vec<Value>) {
        let ty = self.vars[id].ty.clone();
        let entry = self.held.entry(id).or_insert_with(|| Value {
            v: V::Struct(Vec::new()),
            ty,
        });
        if let V::Struct(have) = &mut entry.v {
            for p in parts {
                let known =
                    matches!(&p.v, V::Ptr(q) if have.iter().any(|h| matches!(&h.v, V::Ptr(r) if r == q)));
                if !known {
                    have.push(p);
                }
            }
        }
    }

    /// The arrays code autosync cannot see may reach in shared and/or global memory
    /// (never the hidden results of `__syncthreads_or`).
    pub fn reachable_arrays(&self, shared: bool, global: bool) -> Vec<usize> {
        (0..self.arrays.len())
            .filter(|&a| self.arrays[a].key != ArrayKey::SyncResults)
            .filter(|&a| match self.arrays[a].space {
                ArraySpace::Shared => shared,
                ArraySpace::Global => global,
                ArraySpace::Constant | ArraySpace::Private => false,
            })
            .collect()
    }

    /// The innermost function being lowered (not the kernel's own frame).
    pub fn current_function(&self) -> Option<usize> {
        self.frames.iter().rev().find_map(|f| f.func)
    }

    /// A read of `array[index]` whose value nobody uses: an access the lowering must keep
    /// (of code it cannot see: inline PTX, a function the file does not define).
    pub fn emit_opaque_read(&mut self, array: &str, index: Expr, span: Span) {
        let s = self.scratch();
        self.emit(
            StmtKind::Read {
                var: s,
                array: array.to_string(),
                index,
                ty: None,
            },
            span,
        );
    }

    /// [`Lowerer::read`] through a cache a fence does not reach (`__ldg`, a surface
    /// read): the locals it reads into are recorded for [`ticket`].
    pub fn noncoherent_read(&mut self, lv: &LVal, n: Node<'t>) -> R<Value> {
        let start = self.mark();
        let v = self.read(lv, n)?;
        let reads: Vec<String> = self
            .blocks
            .last()
            .map(|b| &b[start.min(b.len())..])
            .unwrap_or_default()
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Read { var, .. } => Some(var.clone()),
                _ => None,
            })
            .collect();
        self.noncoherent.extend(reads);
        Ok(v)
    }

    /// A write of an arbitrary value to `array[index]` (as [`Self::emit_opaque_read`]).
    pub fn emit_opaque_write(&mut self, array: &str, index: Expr, span: Span) {
        let s = self.scratch();
        self.emit(StmtKind::havoc(s.clone()), span);
        self.emit(
            StmtKind::Write {
                array: array.to_string(),
                index,
                value: Expr::Var(s),
            },
            span,
        );
    }

    /// Declares a fresh KPL local that will be assigned again.
    pub fn mutable_local(&mut self, base: &str, init: Option<Expr>, span: Span) -> String {
        let name = self.local(base, init, span);
        self.mutable.insert(name.clone());
        name
    }

    /// Declares a fresh KPL local and returns its name.
    pub fn local(&mut self, base: &str, init: Option<Expr>, span: Span) -> String {
        let name = self.fresh(base);
        self.emit(
            StmtKind::Local {
                var: name.clone(),
                init,
            },
            span,
        );
        name
    }

    /// Number of statements in the current block (to finalize a statement later).
    pub fn mark(&self) -> usize {
        self.blocks.last().map_or(0, Vec::len)
    }

    /// Gives the statements lowered from one source statement their places: only the
    /// last can have a barrier written after it, and only when the statement's text is
    /// exactly in the main file.
    ///
    /// While an asynchronous copy is in flight, the copy's accesses follow the place (see
    /// [`in_flight`]): a barrier placed there does not end the copy's interval.
    pub fn finalize(&mut self, start: usize, n: Node<'t>) {
        let exact = self.frame().placeable
            && self.unplaceable_blocks == 0
            && self.prog.map.main_range(n.byte_range()).is_some();
        let span = self.span(n);
        let mut placed = false;
        if let Some(b) = self.blocks.last_mut() {
            let len = b.len();
            // A barrier is the statement's own only when it is all the statement does
            // (`__syncthreads();`): then `--strip` may delete the statement's text.
            let own_barrier = len == start + 1;
            for (i, s) in b.iter_mut().enumerate().skip(start) {
                if i + 1 == len && exact && (own_barrier || !s.kind.is_barrier()) {
                    s.place = Place::After;
                    s.span = span;
                    placed = true;
                    // "After the else branch" is after the whole statement.
                    if let StmtKind::If {
                        else_blk: Some(e), ..
                    } = &mut s.kind
                    {
                        e.span.end = span.end;
                        e.span.end_line = span.end_line;
                    }
                } else {
                    s.place = Place::Nowhere;
                }
            }
        }
        if placed && !self.copies.is_empty() {
            self.repeat_pending();
        }
    }

    /// Lowers into a new block; returns the statements.
    pub fn in_block<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<(T, Vec<Stmt>)> {
        self.blocks.push(Vec::new());
        self.block_ids.push(self.blocks_made);
        self.blocks_made += 1;
        let r = f(self);
        self.block_ids.pop();
        let stmts = self.blocks.pop().unwrap_or_default();
        Ok((r?, stmts))
    }

    /// The number of the block statements go to now (see `block_ids`).
    pub fn block(&self) -> usize {
        self.block_ids.last().copied().unwrap_or(0)
    }

    /// Appends already lowered statements to the current block.
    pub fn extend(&mut self, stmts: Vec<Stmt>) {
        if let Some(b) = self.blocks.last_mut() {
            b.extend(stmts);
        }
    }

    /// Whether a barrier may be placed at the top of a block or label lowered now: not
    /// in text a macro hides, nor while an asynchronous copy is in flight (a barrier
    /// placed there would not repeat the copy's accesses, see [`in_flight`]; places after
    /// statements do, [`Lowerer::finalize`]).
    pub fn placeable(&self) -> bool {
        self.frame().placeable && self.unplaceable_blocks == 0 && self.copies.is_empty()
    }

    /// A block built from statements (made up by the lowering: no place at its top).
    pub fn made_block(&self, stmts: Vec<Stmt>, span: Span) -> Block {
        Block {
            stmts,
            span,
            braces: true,
            top: false,
        }
    }

    // ---- frames and scopes -------------------------------------------------------

    pub fn frame(&self) -> &Frame {
        self.frames.last().expect("the kernel frame is never popped")
    }

    pub fn frame_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("the kernel frame is never popped")
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(Scope::default());
    }

    pub fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    /// How a variable names memory at `base` of array `a`: the array itself, a pointer
    /// into it (an array placed at an offset), or a reference to one element.
    pub fn array_var(&self, a: usize, base: Expr, ty: &Ty) -> VarKind {
        let unit = self.arrays[a].cell;
        if ty.is_array() && base == Expr::Int(0) {
            VarKind::Array(Target::Array(a))
        } else if ty.is_array() {
            VarKind::Ptr {
                target: Some(Target::Array(a)),
                off: Offset::Fixed(base),
                unit,
            }
        } else {
            VarKind::Ref(LVal::Mem(
                Ptr {
                    target: Target::Array(a),
                    off: base,
                    unit,
                },
                ty.clone(),
            ))
        }
    }

    pub fn add_var(&mut self, name: &str, ty: Ty, kind: VarKind) -> VarId {
        // A pointer to the start of an array with a reserved name: the user's name of it.
        if let VarKind::Ptr {
            target: Some(Target::Array(a)),
            off: Offset::Fixed(Expr::Int(0)),
            ..
        } = &kind
            && let Some(info) = self.arrays.get_mut(*a)
            && info.name.starts_with("__")
            && !name.starts_with("__")
            && info.alias.is_none()
        {
            info.alias = Some(name.to_string());
        }
        let id = self.vars.len();
        let declared_at = (self.frames.len(), self.frame().loops);
        let declared_in = (self.frames.len(), self.block());
        self.vars.push(VarInfo {
            name: name.to_string(),
            ty,
            kind,
            declared_at,
            declared_in,
        });
        if let Some(s) = self.scopes.last_mut() {
            s.vars.insert(name.to_string(), id);
        }
        id
    }

    /// Hides a variable just declared (while its initializer is lowered).
    pub fn pop_var_binding(&mut self, name: &str) {
        if let Some(s) = self.scopes.last_mut() {
            s.vars.remove(name);
        }
    }

    /// Makes a variable visible by name in the current scope.
    pub fn bind_var(&mut self, name: &str, id: VarId) {
        if let Some(s) = self.scopes.last_mut() {
            s.vars.insert(name.to_string(), id);
        }
    }

    /// A variable not visible by name (fields of struct variables, results).
    pub fn hidden_var(&mut self, name: &str, ty: Ty, kind: VarKind) -> VarId {
        let id = self.vars.len();
        let declared_at = (self.frames.len(), self.frame().loops);
        let declared_in = (self.frames.len(), self.block());
        self.vars.push(VarInfo {
            name: name.to_string(),
            ty,
            kind,
            declared_at,
            declared_in,
        });
        id
    }

    pub fn add_alias(&mut self, name: &str, ty: Ty) {
        if let Some(s) = self.scopes.last_mut() {
            s.aliases.insert(name.to_string(), ty);
        }
    }

    /// A variable of the current function by C++ name, or a file-scope variable.
    pub fn lookup(&self, name: &str) -> Option<VarId> {
        let base = self.frame().scope_base.clamp(1, self.scopes.len());
        self.scopes[base..]
            .iter()
            .rev()
            .find_map(|s| s.vars.get(name).copied())
            .or_else(|| self.scopes.first().and_then(|s| s.vars.get(name).copied()))
    }

    /// Binds a file-scope variable (visible from every function).
    pub fn add_global_var(&mut self, name: &str, ty: Ty, kind: VarKind) -> VarId {
        let id = self.hidden_var(name, ty, kind);
        if let Some(s) = self.scopes.first_mut() {
            s.vars.insert(name.to_string(), id);
        }
        id
    }

    pub fn lookup_alias(&self, name: &str) -> Option<Ty> {
        let base = self.frame().scope_base;
        self.scopes[base..]
            .iter()
            .rev()
            .find_map(|s| s.aliases.get(name).cloned())
    }

    pub fn binding(&self, name: &str) -> Option<Binding> {
        self.frame()
            .bindings
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    }

    // ---- arrays ------------------------------------------------------------------

    /// The array for `key`, created on first use.
    pub fn array(&mut self, key: ArrayKey, name: &str, space: ArraySpace, cell: u32) -> usize {
        if let Some(i) = self.arrays.iter().position(|a| a.key == key) {
            return i;
        }
        let kpl = if space == ArraySpace::Private {
            name.to_string()
        } else {
            self.fresh(name)
        };
        self.arrays.push(ArrayInfo {
            kpl,
            name: name.to_string(),
            alias: None,
            space,
            cell: cell.max(1),
            key,
        });
        self.arrays.len() - 1
    }

    /// Under `--alias`, the one byte-addressed array of the global memory that pointer
    /// parameters and `__device__` arrays may share, and where `name` starts in it: the
    /// first part at 0, every other one at an unknown offset (a fresh scalar parameter),
    /// so any two may overlap.
    pub fn aliased(&mut self, name: &str) -> (usize, Expr) {
        let first = !self.arrays.iter().any(|x| x.key == ArrayKey::Aliased);
        let a = self.array(ArrayKey::Aliased, name, ArraySpace::Global, 1);
        if first {
            self.params.push(Param::Array {
                name: self.arrays[a].kpl.clone(),
                space: kpl::ir::Space::Global,
            });
            return (a, Expr::Int(0));
        }
        let b = self.fresh(&format!("{name}_base"));
        self.params.push(Param::scalar(b.clone()));
        (a, Expr::Var(b))
    }

    /// Like [`Lowerer::array`], for an array of `cells` cells (`None`: unknown size), and
    /// where it starts in the KPL array: 0, or its base when it is merged with others.
    pub fn array_at(
        &mut self,
        key: ArrayKey,
        name: &str,
        space: ArraySpace,
        cell: u32,
        cells: Option<u64>,
    ) -> (usize, Expr) {
        if !self.merge.contains(&key) {
            return (self.array(key, name, space, cell), Expr::Int(0));
        }
        let group = format!("{space:?}-{}", cell.max(1));
        let a = self.array(ArrayKey::Merged(group.clone()), name, space, cell);
        if let Some(b) = self.merge_bases.get(&key) {
            return (a, b.clone());
        }
        let end = self.merge_end.get(&group).copied().unwrap_or(Some(0));
        let base = match (end, cells) {
            (Some(e), Some(n)) => {
                let n = i64::try_from(n).unwrap_or(i64::MAX / 4).max(1);
                self.merge_end.insert(group, Some(e.saturating_add(n)));
                Expr::Int(e)
            }
            _ => {
                // A part of unknown size (a parameter, dynamic shared memory), and every
                // part after one: a slot of its own, `MERGE_SLOT` cells after the
                // previous one. No allocation has that many cells, so in-bounds
                // accesses of distinct parts never meet (as for distinct parameters).
                self.merge_end.insert(group, None);
                if end == Some(0) {
                    Expr::Int(0)
                } else {
                    let used = self
                        .merge_bases
                        .values()
                        .filter(|b| matches!(b, Expr::Int(v) if *v >= MERGE_SLOT))
                        .count() as i64;
                    Expr::Int((used + 1) * MERGE_SLOT)
                }
            }
        };
        if let Expr::Int(start) = base {
            self.merge_parts.push((a, name.to_string(), start));
        }
        self.merge_bases.insert(key, base.clone());
        (a, base)
    }

    /// The user's names of the kernel's shared and global arrays.
    fn array_origins(&self) -> Vec<ArrayOrigin> {
        let shown = |a: &ArrayInfo, name: &str| match &a.alias {
            Some(alias) if name == a.name => alias.clone(),
            _ => name.to_string(),
        };
        self.arrays
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(a.space, ArraySpace::Shared | ArraySpace::Global))
            .map(|(i, a)| {
                let mut parts: Vec<(String, i64)> = self
                    .merge_parts
                    .iter()
                    .filter(|p| p.0 == i)
                    .map(|p| (shown(a, &p.1), p.2))
                    .collect();
                if parts.is_empty() {
                    parts.push((shown(a, &a.name), 0));
                }
                parts.sort_by_key(|p| p.1);
                ArrayOrigin {
                    array: a.kpl.clone(),
                    parts,
                }
            })
            .collect()
    }

    /// Records that a pointer chooses between arrays `a` and `b` when they can be merged
    /// (same space, same cell size, not private); the caller then fails.
    pub fn request_merge(&mut self, a: Target, b: Target) {
        if let (Target::Array(x), Target::Array(y)) = (a, b) {
            let (ax, ay) = (&self.arrays[x], &self.arrays[y]);
            if ax.space == ay.space && ax.cell == ay.cell && ax.space != ArraySpace::Private {
                self.merge_request = Some((ax.key.clone(), ay.key.clone()));
            }
        }
    }

    // ---- kernels -----------------------------------------------------------------

    /// The instantiations of a kernel: explicit ones, those launched with constant
    /// template arguments, or one with every parameter left symbolic.
    fn instances(&mut self, f: usize, host: &crate::host::HostCode) -> R<Vec<Instance>> {
        let def = &self.prog.funcs[f];
        let Some(tparams) = def.template else {
            return Ok(vec![Instance {
                name: def.name.clone(),
                bindings: Vec::new(),
                notes: Vec::new(),
            }]);
        };
        if let Some(name) = specialization_name(self.prog, f) {
            // `template <> __global__ void k<float>(...)`: a kernel of its own.
            return Ok(vec![Instance {
                name,
                bindings: Vec::new(),
                notes: Vec::new(),
            }]);
        }
        let mut arg_lists: Vec<Node> = Vec::new();
        for inst in &self.prog.instantiations {
            if let Some(args) = instantiation_args(self.prog, *inst, &def.name) {
                arg_lists.push(args);
            }
        }
        // Launches the host code reads are instantiated below, context by context.
        let read: Vec<&crate::host::HostLaunch> = host
            .launches
            .iter()
            .filter(|h| h.kernel == def.name && h.template_list.is_some())
            .collect();
        for l in &self.prog.launches {
            if let Some(fun) = l.child_by_field_name("function")
                && fun.kind() == "template_function"
                && fun
                    .child_by_field_name("name")
                    .is_some_and(|n| self.text(n) == def.name)
                && let Some(args) = fun.child_by_field_name("arguments")
                && !read
                    .iter()
                    .any(|h| h.template_list == Some((args.start_byte(), args.end_byte())))
            {
                arg_lists.push(args);
            }
        }
        // Each instantiation with its place in the text (reported in that order), or
        // `None` for one autosync cannot name: arguments that depend on the host code's
        // template parameters (`k<T, N><<<...>>>` in a host template that is not
        // called with constants) or that are not constants.
        let mut made: Vec<(usize, Option<NamedInstance>)> = Vec::new();
        for args in arg_lists {
            made.push((args.start_byte(), self.written_instance(&def.name, tparams, args)));
        }
        for h in read {
            let at = h.template_list.map_or(0, |(start, _)| start);
            for c in &h.contexts {
                let inst = c.template_args.as_ref().and_then(|args| {
                    let list = h.template_list_node(self.prog)?;
                    let bindings = self.host_bindings(tparams, list, args)?;
                    Some((crate::host::instance_name(&def.name, args), bindings))
                });
                made.push((at, inst));
            }
        }
        made.sort_by_key(|(at, _)| *at);
        let mut out: Vec<Instance> = Vec::new();
        let mut dependent = false;
        for (_, inst) in made {
            match inst {
                None => dependent = true,
                Some((name, bindings)) => {
                    if out.iter().all(|i| i.name != name) {
                        out.push(Instance {
                            name,
                            bindings,
                            notes: Vec::new(),
                        });
                    }
                }
            }
        }
        if out.is_empty() || dependent {
            // Unknown instantiations are covered by the open one.
            out.push(self.open_instance(f, tparams, dependent)?);
        }
        Ok(out)
    }

    /// The instance template arguments `args` name as written (an explicit
    /// instantiation, a launch the host code does not read): its name and bindings, or
    /// `None` when they are not all constants.
    fn written_instance(&mut self, kernel: &str, tparams: Node<'t>, args: Node<'t>) -> Option<NamedInstance> {
        if crate::host::mentions_host_template_parameter(self.prog, args) {
            return None;
        }
        let bindings = constant_bindings(self.bind_template(tparams, Some(args)).ok()?)?;
        let shown: Vec<String> = named_children(args)
            .iter()
            .map(|a| self.text(*a).split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        Some((format!("{kernel}<{}>", shown.join(",")), bindings))
    }

    /// The bindings of template parameters `tparams` to the arguments a host launch
    /// gives in one context (`args`, written as `list`): a value the host code computes
    /// as it is; a type as the front end reads the written argument, or, for a host
    /// template's parameter, the type it stands for. `None` when a type is not one the
    /// front end knows by its text.
    fn host_bindings(
        &mut self,
        tparams: Node<'t>,
        list: Node<'t>,
        args: &[crate::host::TemplateArg],
    ) -> Option<Vec<(String, Binding)>> {
        use crate::host::TemplateArg;
        let written: Vec<Node<'t>> = named_children(list)
            .into_iter()
            .filter(|a| a.kind() != "comment")
            .collect();
        let mut bindings = Vec::new();
        for (a, n) in args.iter().zip(written) {
            let as_written = self.text(n).split_whitespace().collect::<Vec<_>>().join(" ");
            bindings.push(match a {
                TemplateArg::Value(v) => Binding::Value(Expr::Int(*v)),
                TemplateArg::Written(_) => self.template_arg(n).ok()?,
                TemplateArg::Type(t) if *t == as_written => self.template_arg(n).ok()?,
                TemplateArg::Type(t) => match self.named_type_of_text(t).ok()? {
                    Ty::Opaque(_) => return None,
                    ty => Binding::Type(ty),
                },
            });
        }
        constant_bindings(self.bind_params(tparams, bindings).ok()?)
    }

    /// A template kernel the file never instantiates: checked with `int` for each type
    /// parameter without a default, and for each non-type parameter without a constant
    /// default a symbolic value of its type, the same in every thread of the launch (a
    /// scalar parameter of the kernel, typed in [`Lowerer::kernel`]), never a value
    /// havocked per thread.
    /// `dependent`: the file instantiates it with arguments that depend on template
    /// parameters of the host code, so the instantiations are not all known.
    fn open_instance(&mut self, f: usize, tparams: Node<'t>, dependent: bool) -> R<Instance> {
        let name = self.prog.funcs[f].name.clone();
        let mut bindings = self.bind_template(tparams, None)?;
        let (mut types, mut values) = (Vec::new(), Vec::new());
        for (param, b) in &mut bindings {
            match b {
                Binding::Type(Ty::Opaque(o)) if o == param => {
                    *b = Binding::Type(Ty::INT);
                    types.push(format!("`{param}`"));
                }
                Binding::Value(Expr::Var(_)) => values.push(format!("`{param}`")),
                _ => {}
            }
        }
        let mut what = Vec::new();
        if !types.is_empty() {
            what.push(format!("with `int` for {}", types.join(", ")));
        }
        if !values.is_empty() {
            what.push(format!(
                "with {} symbolic (any value of the parameter's type, the same in every thread)",
                values.join(", ")
            ));
        }
        let why = if dependent {
            "is instantiated with template arguments that depend on the host code's template parameters"
        } else {
            "is never instantiated in this file"
        };
        let notes = vec![format!(
            "template kernel `{name}` {why}: it is checked {}",
            if what.is_empty() {
                "with its default template arguments".to_string()
            } else {
                what.join(" and ")
            }
        )];
        Ok(Instance {
            name,
            bindings,
            notes,
        })
    }

    /// A symbolic non-type template argument as a scalar parameter of the kernel, of
    /// the template parameter's declared type (`int N` may be negative, `bool B` is 0
    /// or 1; a type the lowering does not track gets the default scalar type).
    fn template_scalar(&mut self, tparams: Option<Node<'t>>, param: &str, var: &str) -> R<()> {
        let decl = tparams.into_iter().flat_map(named_children).find(|p| {
            p.child_by_field_name("declarator")
                .and_then(|d| declarator_name(d, self.prog.src))
                .is_some_and(|n| n == param)
        });
        let ty = match decl.and_then(|p| p.child_by_field_name("type").map(|t| (p, t))) {
            Some((p, t)) => self.declared(t, p.child_by_field_name("declarator"))?.ty,
            None => Ty::UINT,
        };
        self.used.insert(var.to_string());
        self.params.push(Param::Scalar {
            name: var.to_string(),
            ty: ty.int_ty().unwrap_or_default(),
        });
        if ty == Ty::Bool {
            let v = Expr::Var(var.to_string());
            self.requires.push(Expr::bin(BinOp::Le, v, Expr::Int(1)));
        }
        Ok(())
    }

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

/// The template arguments of `template __global__ void name<...>(...);`.
fn instantiation_args<'t>(prog: &Program<'t>, inst: Node<'t>, name: &str) -> Option<Node<'t>> {
    let d = inst.child_by_field_name("declarator")?;
    let f = super::program::innermost_function_declarator(d)?;
    let n = f.child_by_field_name("declarator")?;
    (n.kind() == "template_function"
        && n.child_by_field_name("name")
            .is_some_and(|x| prog.text(x) == name))
    .then(|| n.child_by_field_name("arguments"))
    .flatten()
}
