//! What the CUDA front end assumes of code it cannot see, end to end through the
//! driver (`source::from_text` → `check_file`, the static verifier).
//!
//! A differential property test: every generated kernel comes as twins,
//! - *defined*: the effect written in plain CUDA (a `__device__` function with a body
//!   that writes or reads through a reference parameter, a pointer, a pointer to a local
//!   pointer, a struct's pointer field (the struct passed by value, reference or
//!   address; the function may be an operator on the struct, `b << v`, `~b`), possibly
//!   through a wrapper; a method with a body called on an array
//!   element; an object of a type the file defines; or a plain load, store or
//!   `atomicAdd`);
//! - *opaque*: the same call with the function only declared (or, but for operators,
//!   not declared at all;
//!   some are named like CUDA builtins, `sync`, `tiled_partition`, `tex1Dlookup`), the
//!   method only declared in its struct, the object's type not defined in the file, or
//!   the load, store or atomic written as inline PTX (widths `.u32`, `.v2`, `.b64`,
//!   `.v4`, displacements, memory-order and cache qualifiers, `__cvta_generic_to_*`
//!   integer addresses, `ldmatrix`/`stmatrix`, multi-instruction blocks, predicated
//!   stores); its barriers may be spelled `bar.sync 0` and the like.
//!
//! The opaque twin over-approximates the defined one, so: when the defined twin races,
//! the opaque one races too, on every array the defined one races on; neither is ever
//! `unsupported` (no generated kernel uses an opcode that should be), nor divergent.
//! For a PTX load or store whose address operand is a pointer into the array (`"l"(&s[i])`,
//! `"l"(s + i)`, a local pointer, with any displacement and width, generic addressing
//! too) the model is exact: both twins have the same verdict and the same racing pairs
//! (array, kind, lines: the twins have the same lines). Stored values differ across
//! the grid, since a PTX `st` stores an arbitrary value: an equal-value (benign)
//! write-write pair of the plain twin would be a race of the PTX one.
//!
//! The seed is fixed (`AUTOSYNC_OPAQUE_SEED=N` replays another, `random` draws one and
//! prints it); `AUTOSYNC_OPAQUE_CASES=N` runs N kernels instead of the default, and
//! `AUTOSYNC_OPAQUE_SHOW=1` prints every pair of twins with their verdicts (with
//! `--nocapture`). The fixed examples at the end assert exact verdicts.
//!
//! `cargo test --release -p autosync-driver --test it -- opaque_effects::`

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use driver::source::{FrontEnd, Lang, from_text};
use driver::{Settings, Verdict, check_file};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

// ---- checking one file ---------------------------------------------------------------

/// What the pipeline says of a file's one kernel.
#[derive(Debug)]
struct Outcome {
    verdict: Verdict,
    error: Option<String>,
    /// The arrays of the reported races (the user's names).
    arrays: BTreeSet<String>,
    /// Every reported race: array, kind, first line, second line.
    pairs: BTreeSet<(String, String, u32, u32)>,
}

impl Outcome {
    fn racy(&self) -> bool {
        !self.pairs.is_empty()
    }
}

fn check(text: &str) -> Result<Outcome, String> {
    let src = from_text(
        Path::new("generated.cu"),
        text.to_string(),
        Lang::Cuda,
        &FrontEnd::default(),
    )
    .map_err(|e| format!("does not load: {e:#}"))?;
    let mut checks = check_file(&Settings::default(), &src).map_err(|e| format!("does not check: {e:#}"))?;
    if checks.len() != 1 {
        return Err(format!("{} kernels instead of one", checks.len()));
    }
    let k = checks.pop().expect("one kernel");
    Ok(Outcome {
        verdict: k.verdict,
        error: k.error,
        arrays: k.report.races.iter().map(|r| r.array.clone()).collect(),
        pairs: k
            .report
            .races
            .iter()
            .map(|r| (r.array.clone(), r.kind(), r.first.span.line, r.second.span.line))
            .collect(),
    })
}

// ---- the generated kernels -----------------------------------------------------------

/// A thread's index into the array, before the block offset, loop counter and
/// displacement are added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Idx {
    T,
    TPlus(u8),
    Xor1,
    Twice,
    TwicePlus1,
    Const(u8),
    Rev,
}

/// Where the array the effect touches lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Space {
    /// `__shared__ int s[136]` (`Acc a[136]` for methods).
    Shared,
    /// The parameter `g`, indexed from `64 * blockIdx.x` when `offset`, with two blocks
    /// when `grid2`.
    Global { grid2: bool, offset: bool },
}

/// What a function body does with the element it reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    /// `x += v`
    Add,
    /// `x = v`
    Set,
    /// `return x` (only reads).
    Get,
}

/// How a pointer reaches the element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PtrForm {
    /// `NAME(&X[i], v)`, `*p`.
    Elem,
    /// `NAME(X, i, v)`, `p[i]`.
    Base,
    /// `int *p = &X[i]; NAME(&p, v)`, `**pp`: a pointer to a local pointer.
    Indirect,
}

/// How a `Box` is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    Value,
    Ref,
    ConstRef,
    /// `NAME(&b, v)`: a pointer to the local struct that holds the pointer.
    Pointer,
}

/// How inline PTX addresses the element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    /// A pointer operand, `ld.shared`/`ld.global` (exact).
    Direct,
    /// A pointer operand with generic addressing, `ld.u32` (exact: the pointer is known).
    Generic,
    /// An integer address from `__cvta_generic_to_shared` / `__cvta_generic_to_global`
    /// (some element of every array of the space).
    Cvta,
    /// `ldmatrix` / `stmatrix` (shared only; some element of the array).
    Matrix,
}

/// How much a PTX load or store moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Width {
    /// `.u32`: one element.
    U32,
    /// `.v2.u32`: two elements, two registers.
    V2,
    /// `.b64`: two elements, one 64-bit register.
    B64,
    /// `.v4.u32`: four elements.
    V4,
}

impl Width {
    fn lanes(self) -> u32 {
        match self {
            Width::U32 => 1,
            Width::V2 | Width::B64 => 2,
            Width::V4 => 4,
        }
    }
}

/// How the address operand of inline PTX is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operand {
    /// `&X[i]`
    AddrOf,
    /// `X + i`
    Plus,
    /// `int *p = &X[i];` then `p`.
    Local,
}

/// An inline PTX load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ptx {
    via: Via,
    width: Width,
    /// The displacement in elements, `[%1+4*disp]` (the operand points at element
    /// `i + 1` for `-1`).
    disp: i8,
    operand: Operand,
    /// A memory-order qualifier: none, `.volatile`, `.relaxed.gpu`, `.acquire.gpu` (load)
    /// or `.release.gpu` (store).
    order: u8,
    /// A cache operator (`.ca`/`.cg` for loads, `.wb`/`.cg` for stores; global only).
    cache: bool,
    /// `.shared::cta` instead of `.shared`.
    cta: bool,
    /// The instruction inside `{ .reg .u32 tmp; ... mov ... }` (only with `U32`).
    block: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Effect {
    /// `NAME(X[i], v)` / `acc += NAME(X[i])`: a reference parameter (`const` when
    /// `konst`, only with `Get`). Opaque: the prototype, or no declaration at all.
    /// With `nest`, the kernel calls `wrap`, which the file defines in both twins and
    /// which passes its own reference on to `NAME`.
    Ref {
        body: Body,
        konst: bool,
        name: &'static str,
        proto: bool,
        nest: bool,
    },
    /// A pointer parameter.
    Ptr {
        body: Body,
        form: PtrForm,
        name: &'static str,
        proto: bool,
        nest: bool,
    },
    /// `Box b; b.p = &X[i]; NAME(b, v)` (or `b.p = X; b.k = i` when `base`): a pointer
    /// inside a struct argument.
    Boxed {
        body: Body,
        base: bool,
        pass: Pass,
        name: &'static str,
        proto: bool,
        /// The function is an operator on `Box` (`b << v`, `acc += ~b`), declared in the
        /// opaque twin (an operator declared nowhere would not compile).
        op: bool,
    },
    /// `a[i].NAME(v)` / `acc += a[i].NAME()` (through `Acc *q = &a[i]; q->` when
    /// `arrow`): a method of `struct Acc { int x; int y; }`, only declared in the opaque
    /// twin.
    Method {
        body: Body,
        name: &'static str,
        arrow: bool,
    },
    /// `Holder h(X); h.put(i, v)`: an object of a type the opaque twin does not define.
    Holder { body: Body },
    /// `v = X[i]` / `ld`.
    Load(Ptx),
    /// `X[i] = gid` / `st`; a predicated `@q st` for `if (t % 2 == 0)` when `pred`.
    Store { ptx: Ptx, pred: bool },
    /// `atomicAdd(&X[i], gid)` / `red.add` (`atom.add` with its result when `!red`).
    Atomic { red: bool },
}

/// Another access of the effect's array, before or after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Other {
    write: bool,
    at: Idx,
    /// For `Acc` arrays: the field `y`, which only the opaque method touches.
    field_y: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guard {
    /// `if (t < k)`
    Lt(u8),
    /// `if (t % 2 == 0)`
    Even,
    /// `if (t >= 32)`
    Upper,
}

/// `for (int r = 0; r < 2; ++r)` around the effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loop {
    /// The effect's index has `+ r`.
    shift: bool,
    /// A barrier after the effect, in the loop.
    barrier: bool,
}

#[derive(Clone, Debug)]
struct Case {
    effect: Effect,
    space: Space,
    at: Idx,
    pre: Option<Other>,
    barrier_before: bool,
    guard: Option<Guard>,
    looped: Option<Loop>,
    barrier_after: bool,
    post: Option<Other>,
    /// How the opaque twin spells its barriers: `__syncthreads()`, or one of
    /// [`PTX_BARRIERS`].
    ptx_barrier: Option<usize>,
}

/// Block barriers in inline PTX.
const PTX_BARRIERS: &[&str] = &[
    r#"asm volatile("bar.sync 0;" ::: "memory");"#,
    r#"asm volatile("barrier.sync 0;" ::: "memory");"#,
    r#"asm volatile("barrier.sync.aligned 0;" ::: "memory");"#,
    r#"asm volatile("bar.sync %0;" :: "r"(0) : "memory");"#,
];

/// Names for functions that have a prototype in the opaque twin: some are CUDA
/// builtins' names, which a function the file declares hides.
const PROTO_NAMES: &[&str] = &[
    "bump",
    "sync",
    "tiled_partition",
    "tex1Dlookup",
    "max",
    "__bump",
    "surf1Dwrite",
];
/// Names for functions that the opaque twin does not declare at all (no builtin has
/// them; `__` names would be taken by value).
const FREE_NAMES: &[&str] = &["bump", "poke", "tex1Dlookup"];
const METHOD_NAMES: &[&str] = &["add", "sync", "wait"];

fn idx() -> impl Strategy<Value = Idx> {
    prop_oneof![
        Just(Idx::T),
        (1u8..=3).prop_map(Idx::TPlus),
        Just(Idx::Xor1),
        Just(Idx::Twice),
        Just(Idx::TwicePlus1),
        (0u8..=2).prop_map(Idx::Const),
        Just(Idx::Rev),
    ]
}

fn body() -> impl Strategy<Value = Body> {
    prop_oneof![Just(Body::Add), Just(Body::Set), Just(Body::Get)]
}

/// A function name and whether the opaque twin declares it.
fn named() -> impl Strategy<Value = (&'static str, bool)> {
    prop_oneof![
        2 => proptest::sample::select(PROTO_NAMES).prop_map(|n| (n, true)),
        1 => proptest::sample::select(FREE_NAMES).prop_map(|n| (n, false)),
    ]
}

fn ptx() -> impl Strategy<Value = Ptx> {
    (
        prop_oneof![
            Just(Via::Direct),
            Just(Via::Generic),
            Just(Via::Cvta),
            Just(Via::Matrix)
        ],
        prop_oneof![3 => Just(Width::U32), 1 => Just(Width::V2), 1 => Just(Width::B64), 1 => Just(Width::V4)],
        prop_oneof![3 => Just(0i8), 1 => Just(1i8), 1 => Just(2i8), 1 => Just(-1i8)],
        prop_oneof![Just(Operand::AddrOf), Just(Operand::Plus), Just(Operand::Local)],
        (0u8..4, any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(|(via, width, disp, operand, (order, cache, cta, block))| Ptx {
            via,
            width,
            disp,
            operand,
            order,
            cache,
            cta,
            block: block && width == Width::U32,
        })
}

fn effect() -> impl Strategy<Value = Effect> {
    prop_oneof![
        (body(), any::<bool>(), named(), any::<bool>()).prop_map(|(body, konst, (name, proto), nest)| {
            Effect::Ref {
                body,
                konst: konst && body == Body::Get,
                name,
                proto,
                nest,
            }
        }),
        (
            body(),
            prop_oneof![Just(PtrForm::Elem), Just(PtrForm::Base), Just(PtrForm::Indirect)],
            named(),
            any::<bool>()
        )
            .prop_map(|(body, form, (name, proto), nest)| Effect::Ptr {
                body,
                form,
                name,
                proto,
                nest,
            }),
        (
            body(),
            any::<bool>(),
            prop_oneof![
                Just(Pass::Value),
                Just(Pass::Ref),
                Just(Pass::ConstRef),
                Just(Pass::Pointer)
            ],
            named(),
            proptest::bool::weighted(0.5),
        )
            .prop_map(|(body, base, pass, (name, proto), op)| {
                let op = op && pass != Pass::Pointer;
                Effect::Boxed {
                    body,
                    base,
                    pass,
                    name,
                    proto: proto || op,
                    op,
                }
            }),
        (body(), proptest::sample::select(METHOD_NAMES), any::<bool>())
            .prop_map(|(body, name, arrow)| Effect::Method { body, name, arrow }),
        body().prop_map(|body| Effect::Holder { body }),
        ptx().prop_map(Effect::Load),
        (ptx(), proptest::bool::weighted(0.2)).prop_map(|(ptx, pred)| Effect::Store {
            ptx,
            pred: pred && ptx.width == Width::U32 && !ptx.block,
        }),
        any::<bool>().prop_map(|red| Effect::Atomic { red }),
    ]
}

fn space() -> impl Strategy<Value = Space> {
    prop_oneof![
        3 => Just(Space::Shared),
        2 => (any::<bool>(), any::<bool>()).prop_map(|(grid2, offset)| Space::Global { grid2, offset }),
    ]
}

fn other() -> impl Strategy<Value = Option<Other>> {
    proptest::option::weighted(
        0.8,
        (any::<bool>(), idx(), any::<bool>()).prop_map(|(write, at, field_y)| Other { write, at, field_y }),
    )
}

fn guard() -> impl Strategy<Value = Option<Guard>> {
    proptest::option::weighted(
        0.35,
        prop_oneof![
            proptest::sample::select(&[1u8, 2, 32, 63][..]).prop_map(Guard::Lt),
            Just(Guard::Even),
            Just(Guard::Upper),
        ],
    )
}

fn looped() -> impl Strategy<Value = Option<Loop>> {
    proptest::option::weighted(
        0.35,
        (any::<bool>(), any::<bool>()).prop_map(|(shift, barrier)| Loop { shift, barrier }),
    )
}

fn case() -> impl Strategy<Value = Case> {
    (
        (effect(), space(), idx()),
        (
            other(),
            any::<bool>(),
            guard(),
            looped(),
            any::<bool>(),
            other(),
            proptest::option::of(0..PTX_BARRIERS.len()),
        ),
    )
        .prop_map(
            |(
                (effect, space, at),
                (pre, barrier_before, guard, looped, barrier_after, post, ptx_barrier),
            )| Case {
                effect,
                space,
                at,
                pre,
                barrier_before,
                guard,
                looped,
                barrier_after,
                post,
                ptx_barrier,
            },
        )
}

// ---- rendering the twins -------------------------------------------------------------

struct Twin {
    defined: String,
    opaque: String,
    /// The twins must have the same verdict and races.
    exact: bool,
}

/// An index expression: the block offset, the thread's index, the loop counter, a
/// displacement.
fn index(at: Idx, offset: bool, shift: bool, plus: u32) -> String {
    let mut parts: Vec<String> = Vec::new();
    if offset {
        parts.push("64 * blockIdx.x".into());
    }
    let mut k = plus;
    match at {
        Idx::T => parts.push("t".into()),
        Idx::TPlus(c) => {
            parts.push("t".into());
            k += u32::from(c);
        }
        Idx::Xor1 => parts.push("t ^ 1".into()),
        Idx::Twice => parts.push("2 * t".into()),
        Idx::TwicePlus1 => {
            parts.push("2 * t".into());
            k += 1;
        }
        Idx::Const(c) => k += u32::from(c),
        Idx::Rev => parts.push("63 - t".into()),
    }
    if shift {
        parts.push("r".into());
    }
    if k > 0 || parts.is_empty() {
        parts.push(k.to_string());
    }
    if parts.len() > 1 {
        for p in &mut parts {
            if p.contains('^') {
                *p = format!("({p})");
            }
        }
    }
    parts.join(" + ")
}

/// An index as an argument the callee cannot take by reference (`t` and the loop
/// counter `r` are l-values: a function with no prototype may write them).
fn rvalue(i: &str) -> String {
    if matches!(i, "t" | "r") {
        format!("(int){i}")
    } else {
        i.into()
    }
}

/// The twins' lines that differ, and whether they must agree exactly.
struct Parts {
    /// A line before the kernel in each twin (struct definitions).
    head: Option<(String, String)>,
    /// The function's line in each twin.
    decl: Option<(String, String)>,
    /// The effect's statement in each twin.
    stmt: (String, String),
    /// Locals the effect needs, declared in both twins (`int v3 = 0, v4 = 0;`).
    locals: Option<String>,
    exact: bool,
}

fn body_of(body: Body, e: &str) -> String {
    match body {
        Body::Add => format!("{{ {e} += v; }}"),
        Body::Set => format!("{{ {e} = v; }}"),
        Body::Get => format!("{{ return {e}; }}"),
    }
}

fn ret(body: Body) -> &'static str {
    if body == Body::Get { "int" } else { "void" }
}

/// The defined function and its opaque declaration (a prototype or nothing), both
/// followed by `wrap` when `nest` (`args`: the parameters' names to pass on).
fn function(
    name: &str,
    body: Body,
    params: &str,
    text: &str,
    proto: bool,
    nest: Option<&str>,
) -> (String, String) {
    let ty = ret(body);
    let def = format!("__device__ {ty} {name}({params}) {text}");
    let mut opaque = if proto {
        format!("__device__ {ty} {name}({params});")
    } else {
        format!("/* `{name}` is declared nowhere */")
    };
    let mut def = def;
    if let Some(args) = nest {
        let ret_kw = if body == Body::Get { "return " } else { "" };
        let wrap = format!(" __device__ {ty} wrap({params}) {{ {ret_kw}{name}({args}); }}");
        def.push_str(&wrap);
        opaque.push_str(&wrap);
    }
    (def, opaque)
}

/// The call of a function (`wrap` when nested) with `args`, and `v` for writers.
fn call(name: &str, body: Body, args: &str, nest: bool) -> String {
    let f = if nest { "wrap" } else { name };
    match body {
        Body::Get => format!("acc += {f}({args});"),
        _ => format!("{f}({args}, (int)gid);"),
    }
}

fn parts(c: &Case) -> Parts {
    let global = matches!(c.space, Space::Global { .. });
    let offset = matches!(c.space, Space::Global { offset: true, .. });
    let shift = c.looped.is_some_and(|l| l.shift);
    let x = if global {
        "g"
    } else if matches!(c.effect, Effect::Method { .. }) {
        "a"
    } else {
        "s"
    };
    let i = index(c.at, offset, shift, 0);
    match c.effect {
        Effect::Ref {
            body,
            konst,
            name,
            proto,
            nest,
        } => {
            let (params, args) = match (body, konst) {
                (Body::Get, true) => ("const int &r", "r"),
                (Body::Get, false) => ("int &r", "r"),
                _ => ("int &r, int v", "r, v"),
            };
            let decl = function(
                name,
                body,
                params,
                &body_of(body, "r"),
                proto,
                nest.then_some(args),
            );
            plain(None, Some(decl), call(name, body, &format!("{x}[{i}]"), nest))
        }
        Effect::Ptr {
            body,
            form,
            name,
            proto,
            nest,
        } => {
            let (params, e, args, names) = match form {
                PtrForm::Elem => ("int *p", "*p", format!("&{x}[{i}]"), "p"),
                PtrForm::Base => ("int *p, int i", "p[i]", format!("{x}, {}", rvalue(&i)), "p, i"),
                PtrForm::Indirect => ("int **pp", "**pp", "&p".to_string(), "pp"),
            };
            let (params, names) = match body {
                Body::Get if form == PtrForm::Indirect => (params.to_string(), names.to_string()),
                Body::Get => (format!("const {params}"), names.to_string()),
                _ => (format!("{params}, int v"), format!("{names}, v")),
            };
            let decl = function(
                name,
                body,
                &params,
                &body_of(body, e),
                proto,
                nest.then_some(&names),
            );
            let mut stmt = call(name, body, &args, nest);
            if form == PtrForm::Indirect {
                stmt = format!("{{ int *p = &{x}[{i}]; {stmt} }}");
            }
            plain(None, Some(decl), stmt)
        }
        Effect::Boxed { .. } => boxed_parts(x, &i, c.effect.clone()),
        Effect::Method { body, name, arrow } => method_parts(x, &i, body, name, arrow),
        Effect::Holder { body } => holder_parts(x, &i, body),
        Effect::Load(p) => ptx_parts(c, p, None, x, global, offset, shift),
        Effect::Store { ptx, pred } => ptx_parts(c, ptx, Some(pred), x, global, offset, shift),
        Effect::Atomic { red } => atomic_parts(x, &i, global, red),
    }
}

/// Parts whose statement is the same in both twins.
fn plain(head: Option<(String, String)>, decl: Option<(String, String)>, stmt: String) -> Parts {
    Parts {
        head,
        decl,
        stmt: (stmt.clone(), stmt),
        locals: None,
        exact: false,
    }
}

fn same(s: String) -> (String, String) {
    (s.clone(), s)
}

/// `Box b` pointing at `x[i]` (or at `x` with `b.k = i`), passed to a function or an
/// operator.
fn boxed_parts(x: &str, i: &str, effect: Effect) -> Parts {
    let Effect::Boxed {
        body,
        base,
        pass,
        name,
        proto,
        op,
    } = effect
    else {
        unreachable!("boxed_parts is called for Effect::Boxed only")
    };
    let (param, e, arg) = match pass {
        Pass::Value => ("Box b", "b.p[b.k]", "b"),
        Pass::Ref => ("Box &b", "b.p[b.k]", "b"),
        Pass::ConstRef => ("const Box &b", "b.p[b.k]", "b"),
        Pass::Pointer => ("Box *b", "b->p[b->k]", "&b"),
    };
    let params = match body {
        Body::Get => param.to_string(),
        _ => format!("{param}, int v"),
    };
    let setup = match base {
        false => format!("Box b; b.p = &{x}[{i}]; b.k = 0;"),
        true => format!("Box b; b.p = {x}; b.k = {};", rvalue(i)),
    };
    let (name, used) = match (op, body) {
        (false, _) => (name, call(name, body, arg, false)),
        (true, Body::Get) => ("operator~", format!("acc += ~{arg};")),
        (true, _) => ("operator<<", format!("{arg} << (int)gid;")),
    };
    plain(
        Some(same("struct Box { int *p; int k; };".into())),
        Some(function(name, body, &params, &body_of(body, e), proto, None)),
        format!("{{ {setup} {used} }}"),
    )
}

/// A method of `struct Acc` called on `x[i]` (through a pointer when `arrow`).
fn method_parts(x: &str, i: &str, body: Body, name: &str, arrow: bool) -> Parts {
    let (def, decl) = match body {
        Body::Get => (
            format!("__device__ int {name}() const {{ return x; }}"),
            format!("__device__ int {name}() const;"),
        ),
        _ => (
            format!("__device__ void {name}(int v) {}", body_of(body, "x")),
            format!("__device__ void {name}(int v);"),
        ),
    };
    let (setup, obj) = if arrow {
        (format!("Acc *q = &{x}[{i}]; "), "q->".to_string())
    } else {
        (String::new(), format!("{x}[{i}]."))
    };
    let call = match body {
        Body::Get => format!("acc += {obj}{name}();"),
        _ => format!("{obj}{name}((int)gid);"),
    };
    let stmt = if arrow {
        format!("{{ {setup}{call} }}")
    } else {
        call
    };
    plain(
        Some((
            format!("struct Acc {{ int x; int y; {def} }};"),
            format!("struct Acc {{ int x; int y; {decl} }};"),
        )),
        None,
        stmt,
    )
}

/// A `Holder` of `x` (defined, or a library's type) whose method reads or writes `p[i]`.
fn holder_parts(x: &str, i: &str, body: Body) -> Parts {
    let method = match body {
        Body::Get => "__device__ int get(int i) { return p[i]; }".to_string(),
        _ => format!("__device__ void put(int i, int v) {}", body_of(body, "p[i]")),
    };
    let call = match body {
        Body::Get => format!("{{ Holder h({x}); acc += h.get({}); }}", rvalue(i)),
        _ => format!("{{ Holder h({x}); h.put({}, (int)gid); }}", rvalue(i)),
    };
    Parts {
        head: Some((
            format!("struct Holder {{ int *p; __device__ Holder(int *q) : p(q) {{}} {method} }};"),
            "/* `Holder` is a library's type, not defined in this file */".to_string(),
        )),
        decl: None,
        stmt: same(call),
        locals: None,
        exact: false,
    }
}

/// `atomicAdd` on `x[i]`, and its PTX twin (`red` or `atom`).
fn atomic_parts(x: &str, i: &str, global: bool, red: bool) -> Parts {
    let sp = if global { "global" } else { "shared" };
    let (def, ptx) = if red {
        (
            format!("atomicAdd(&{x}[{i}], (int)gid);"),
            format!(
                r#"asm volatile("red.{sp}.add.u32 [%0], %1;" :: "l"(&{x}[{i}]), "r"((int)gid) : "memory");"#
            ),
        )
    } else {
        (
            format!("v = atomicAdd(&{x}[{i}], (int)gid);"),
            format!(
                r#"asm volatile("atom.{sp}.add.u32 %0, [%1], %2;" : "=r"(v) : "l"(&{x}[{i}]), "r"((int)gid) : "memory");"#
            ),
        )
    };
    Parts {
        head: None,
        decl: None,
        stmt: (def, ptx),
        locals: None,
        exact: false,
    }
}

/// Values no two threads of the grid store alike, one per lane of a vector store: no
/// write-write pair of the defined twin is benign (a PTX `st` stores an arbitrary
/// value, not its operand).
const LANE_VALUES: [&str; 4] = ["(int)gid", "-(int)gid - 1", "(int)gid + 1000", "-(int)gid - 1000"];
/// Registers a vector load writes.
const LANE_REGS: [&str; 4] = ["v", "v2", "v3", "v4"];

/// A PTX load (`store: None`) or store (`Some(pred)`) and its plain CUDA twin.
fn ptx_parts(
    c: &Case,
    p: Ptx,
    store: Option<bool>,
    x: &str,
    global: bool,
    offset: bool,
    shift: bool,
) -> Parts {
    let via = if global && p.via == Via::Matrix {
        Via::Cvta
    } else {
        p.via
    };
    let lanes = p.width.lanes();
    // The operand points at element `base`; the access starts at `first`.
    let base = u32::from(p.disp < 0);
    let first = p.disp.max(0) as u32;
    let at = |k: u32| index(c.at, offset, shift, k);
    let pi = at(base);
    // The plain twin.
    let pred = store == Some(true);
    let mut def = String::new();
    for lane in 0..lanes {
        let e = format!("{x}[{}]", at(first + lane));
        let s = match store {
            None => format!("{} = {e};", LANE_REGS[lane as usize]),
            Some(_) => format!("{e} = {};", LANE_VALUES[lane as usize]),
        };
        if !def.is_empty() {
            def.push(' ');
        }
        def.push_str(&s);
    }
    if pred {
        def = format!("if (t % 2 == 0) {def}");
    }
    // The address operand.
    let pointer = match p.operand {
        Operand::AddrOf => format!("&{x}[{pi}]"),
        Operand::Plus if pi.contains('^') && !pi.starts_with('(') => format!("{x} + ({pi})"),
        Operand::Plus => format!("{x} + {pi}"),
        Operand::Local => "p".to_string(),
    };
    let setup = (p.operand == Operand::Local).then(|| format!("int *p = &{x}[{pi}];"));
    let address = match (via, global) {
        (Via::Cvta | Via::Matrix, false) => format!(r#""r"((unsigned)__cvta_generic_to_shared({pointer}))"#),
        (Via::Cvta | Via::Matrix, true) => format!(r#""l"(__cvta_generic_to_global({pointer}))"#),
        _ => format!(r#""l"({pointer})"#),
    };
    let load = store.is_none();
    let op = ptx_opcode(&p, via, global, load, lanes);
    let disp = match p.disp {
        0 => String::new(),
        d if d < 0 => format!("{}", 4 * i32::from(d)),
        d => format!("+{}", 4 * i32::from(d)),
    };
    // Registers: one per lane, except one 64-bit register for `.b64` (and `ldmatrix`,
    // which has one per matrix).
    let regs = if p.width == Width::B64 && via != Via::Matrix {
        1
    } else {
        lanes as usize
    };
    let mut locals = None;
    let ptx = if load {
        let outs = if p.width == Width::B64 && via != Via::Matrix {
            locals = Some("unsigned long long w = 0;".to_string());
            r#""=l"(w)"#.to_string()
        } else {
            (0..regs)
                .map(|k| format!(r#""=r"({})"#, LANE_REGS[k]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let dst = registers(0, regs, via == Via::Matrix);
        let a = regs;
        let code = if p.block {
            format!(r#"{{\n\t.reg .u32 tmp;\n\t{op} tmp, [%{a}{disp}];\n\tmov.u32 %0, tmp;\n}}"#)
        } else {
            format!("{op} {dst}, [%{a}{disp}];")
        };
        format!(r#"asm volatile("{code}" : {outs} : {address});"#)
    } else {
        let vals = if p.width == Width::B64 && via != Via::Matrix {
            r#""l"((unsigned long long)gid)"#.to_string()
        } else {
            (0..regs)
                .map(|k| format!(r#""r"({})"#, LANE_VALUES[k]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let src = registers(1, regs, via == Via::Matrix);
        let code = if pred {
            let q = regs + 1;
            format!(r#"{{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %{q}, 0;\n\t@q {op} [%0{disp}], {src};\n}}"#)
        } else if p.block {
            format!(r#"{{\n\t.reg .u32 tmp;\n\tmov.u32 tmp, %1;\n\t{op} [%0{disp}], tmp;\n}}"#)
        } else {
            format!("{op} [%0{disp}], {src};")
        };
        let pred_in = if pred {
            r#", "r"((unsigned)(t % 2 == 0))"#
        } else {
            ""
        };
        format!(r#"asm volatile("{code}" :: {address}, {vals}{pred_in} : "memory");"#)
    };
    let ptx = match setup {
        Some(s) => format!("{{ {s} {ptx} }}"),
        None => ptx,
    };
    if p.width == Width::V4 && load {
        locals = Some("int v3 = 0, v4 = 0;".to_string());
    }
    Parts {
        head: None,
        decl: None,
        stmt: (def, ptx),
        locals,
        exact: matches!(via, Via::Direct | Via::Generic) && !pred,
    }
}

/// The PTX instruction of a load or store: `ld`/`st` with its ordering, state space,
/// cache operator and type, or `ldmatrix`/`stmatrix` of `lanes` matrices.
fn ptx_opcode(p: &Ptx, via: Via, global: bool, load: bool, lanes: u32) -> String {
    let order = match (p.order, load) {
        (1, _) => ".volatile",
        (2, _) => ".relaxed.gpu",
        (3, true) => ".acquire.gpu",
        (3, false) => ".release.gpu",
        _ => "",
    };
    let space = match (via, global) {
        (Via::Generic, _) => "",
        (_, true) => ".global",
        (_, false) if p.cta => ".shared::cta",
        (_, false) => ".shared",
    };
    let cache = match (p.cache && global && via != Via::Generic, load) {
        (true, true) => ".cg",
        (true, false) => ".wb",
        (false, _) => "",
    };
    let ty = match p.width {
        Width::U32 => ".u32",
        Width::V2 => ".v2.u32",
        Width::B64 => ".b64",
        Width::V4 => ".v4.u32",
    };
    match via {
        Via::Matrix => {
            let m = if load { "ldmatrix" } else { "stmatrix" };
            let x = match lanes {
                1 => "x1",
                2 => "x2",
                _ => "x4",
            };
            format!("{m}.sync.aligned.m8n8.{x}.shared.b16")
        }
        _ => format!("{}{order}{space}{cache}{ty}", if load { "ld" } else { "st" }),
    }
}

/// PTX registers `%first`.. as an instruction's operand: `%1`, or `{%1, %2}` (always
/// braced for `ldmatrix`/`stmatrix`).
fn registers(first: usize, n: usize, braced: bool) -> String {
    if n == 1 && !braced {
        return format!("%{first}");
    }
    let rs: Vec<String> = (first..first + n).map(|k| format!("%{k}")).collect();
    format!("{{{}}}", rs.join(", "))
}

fn render(c: &Case) -> Twin {
    let p = parts(c);
    let global = matches!(c.space, Space::Global { .. });
    let offset = matches!(c.space, Space::Global { offset: true, .. });
    let grid = if matches!(c.space, Space::Global { grid2: true, .. }) {
        2
    } else {
        1
    };
    let acc_type = matches!(c.effect, Effect::Method { .. });
    let x = match (global, acc_type) {
        (true, _) => "g",
        (false, true) => "a",
        (false, false) => "s",
    };
    let elem = |o: &Other| {
        let i = index(o.at, offset, false, 0);
        match (acc_type, o.field_y) {
            (false, _) => format!("{x}[{i}]"),
            (true, false) => format!("{x}[{i}].x"),
            (true, true) => format!("{x}[{i}].y"),
        }
    };
    let other = |o: &Other| {
        if o.write {
            format!("{} = (int)gid;", elem(o))
        } else {
            format!("acc += {};", elem(o))
        }
    };
    let mut twins = [String::new(), String::new()];
    for (k, text) in twins.iter_mut().enumerate() {
        let pick = |pair: &(String, String)| if k == 0 { pair.0.clone() } else { pair.1.clone() };
        let barrier = match c.ptx_barrier {
            Some(b) if k == 1 => PTX_BARRIERS[b],
            _ => "__syncthreads();",
        };
        let mut lines: Vec<(usize, String)> = Vec::new();
        let mut depth = 1;
        lines.push((0, format!("//--blockDim=64 --gridDim={grid}")));
        if let Some(h) = &p.head {
            lines.push((0, pick(h)));
        }
        if let Some(d) = &p.decl {
            lines.push((0, pick(d)));
        }
        let elem_ty = if acc_type { "Acc" } else { "int" };
        lines.push((0, format!("__global__ void k(int *out, {elem_ty} *g) {{")));
        if !global {
            lines.push((1, format!("__shared__ {elem_ty} {x}[136];")));
        }
        lines.push((1, "const unsigned t = threadIdx.x;".into()));
        lines.push((1, "const unsigned gid = 64 * blockIdx.x + t;".into()));
        lines.push((1, "int acc = 0, v = 0, v2 = 0;".into()));
        if let Some(l) = &p.locals {
            lines.push((1, l.clone()));
        }
        if let Some(o) = &c.pre {
            lines.push((1, other(o)));
        }
        if c.barrier_before {
            lines.push((1, barrier.into()));
        }
        if c.looped.is_some() {
            lines.push((depth, "for (int r = 0; r < 2; ++r) {".into()));
            depth += 1;
        }
        if let Some(g) = c.guard {
            let cond = match g {
                Guard::Lt(k) => format!("t < {k}"),
                Guard::Even => "t % 2 == 0".into(),
                Guard::Upper => "t >= 32".into(),
            };
            lines.push((depth, format!("if ({cond}) {{")));
            lines.push((depth + 1, pick(&p.stmt)));
            lines.push((depth, "}".into()));
        } else {
            lines.push((depth, pick(&p.stmt)));
        }
        if let Some(l) = c.looped {
            if l.barrier {
                lines.push((depth, barrier.into()));
            }
            depth -= 1;
            lines.push((depth, "}".into()));
        }
        if c.barrier_after {
            lines.push((1, barrier.into()));
        }
        if let Some(o) = &c.post {
            lines.push((1, other(o)));
        }
        lines.push((1, "out[gid] = acc + v + v2;".into()));
        lines.push((0, "}".into()));
        for (d, l) in lines {
            writeln!(text, "{}{l}", "  ".repeat(d)).unwrap();
        }
    }
    let [defined, opaque] = twins;
    Twin {
        defined,
        opaque,
        exact: p.exact,
    }
}

// ---- the property --------------------------------------------------------------------

/// How many cases had each combination of (defined racy, opaque racy).
static TALLY: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];
static EXACT: AtomicUsize = AtomicUsize::new(0);

fn compare(c: &Case) -> Result<(), TestCaseError> {
    let twin = render(c);
    let show = |why: String| {
        TestCaseError::fail(format!(
            "{why}\n--- defined ---\n{}--- opaque ---\n{}",
            twin.defined, twin.opaque
        ))
    };
    let a = check(&twin.defined).map_err(|e| show(format!("defined twin: {e}")))?;
    let b = check(&twin.opaque).map_err(|e| show(format!("opaque twin: {e}")))?;
    if std::env::var_os("AUTOSYNC_OPAQUE_SHOW").is_some() {
        eprintln!(
            "--- defined: {} ---\n{}--- opaque: {} ---\n{}",
            a.verdict.word(),
            twin.defined,
            b.verdict.word(),
            twin.opaque
        );
    }
    for (which, o) in [("defined", &a), ("opaque", &b)] {
        if !matches!(o.verdict, Verdict::Verified | Verdict::Race) {
            return Err(show(format!(
                "the {which} twin is {} ({})",
                o.verdict.word(),
                o.error.as_deref().unwrap_or("no error")
            )));
        }
    }
    if a.racy() && !b.racy() {
        return Err(show(format!(
            "the opaque twin is verified, the defined one races: {:?}",
            a.pairs
        )));
    }
    if !a.arrays.is_subset(&b.arrays) {
        return Err(show(format!(
            "the defined twin races on {:?}, the opaque one only on {:?}",
            a.arrays, b.arrays
        )));
    }
    if twin.exact {
        EXACT.fetch_add(1, Ordering::Relaxed);
        if a.verdict != b.verdict || a.pairs != b.pairs {
            return Err(show(format!(
                "an exact PTX access: the defined twin is {} with {:?}, the opaque one {} with {:?}",
                a.verdict.word(),
                a.pairs,
                b.verdict.word(),
                b.pairs
            )));
        }
    }
    TALLY[usize::from(a.racy()) * 2 + usize::from(b.racy())].fetch_add(1, Ordering::Relaxed);
    Ok(())
}

fn run(cases: u32, default_seed: u64) {
    let seed = match std::env::var("AUTOSYNC_OPAQUE_SEED").ok().as_deref() {
        None => default_seed,
        Some("random") => {
            let s = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            eprintln!("AUTOSYNC_OPAQUE_SEED={s}");
            s
        }
        Some(n) => n
            .parse()
            .unwrap_or_else(|_| panic!("AUTOSYNC_OPAQUE_SEED={n}: not a number")),
    };
    let cases = std::env::var("AUTOSYNC_OPAQUE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    let algorithm = RngAlgorithm::ChaCha;
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            rng_algorithm: algorithm,
            // Each shrinking step checks two files.
            max_shrink_iters: 256,
            ..Config::default()
        },
        TestRng::from_seed(algorithm, &bytes),
    );
    let result = runner.run(&case(), |c| compare(&c));
    let t: Vec<usize> = TALLY.iter().map(|n| n.load(Ordering::Relaxed)).collect();
    eprintln!(
        "opaque_effects: {cases} cases (defined/opaque): verified/verified {}, verified/race {}, \
         race/verified {}, race/race {}; {} exact PTX cases",
        t[0],
        t[1],
        t[2],
        t[3],
        EXACT.load(Ordering::Relaxed)
    );
    if let Err(e) = result {
        panic!("seed {seed}: {e}");
    }
}

#[test]
fn opaque_effects_over_approximate_defined_ones() {
    run(128, 7);
}

// ---- fixed examples ------------------------------------------------------------------

/// The verdict of a file, with its error and races for the assertion's message.
fn verdict(text: &str) -> Outcome {
    check(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[track_caller]
fn assert_verdict(text: &str, want: Verdict) -> Outcome {
    let o = verdict(text);
    assert_eq!(o.verdict, want, "{o:?}\n{text}");
    o
}

#[test]
fn a_reference_parameter_of_a_prototype_is_written() {
    let o = assert_verdict(
        "//--blockDim=64 --gridDim=1
void bump(int &);
__global__ void k(int *out) {
  __shared__ int s[65];
  s[threadIdx.x] = 0;
  bump(s[threadIdx.x + 1]);
  out[threadIdx.x] = 0;
}
",
        Verdict::Race,
    );
    assert!(
        o.pairs.contains(&("s".into(), "write-write".into(), 5, 6)),
        "{o:?}"
    );
}

#[test]
fn a_const_reference_parameter_is_only_read() {
    let text = "//--blockDim=64 --gridDim=1
void bump(const int &);
__global__ void k(int *out) {
  __shared__ int s[65];
  s[threadIdx.x] = (int)threadIdx.x;
  __syncthreads();
  bump(s[threadIdx.x + 1]);
  bump(s[threadIdx.x ^ 1]);
  out[threadIdx.x] = s[threadIdx.x];
}
";
    assert_verdict(text, Verdict::Verified);
    // The same calls through a non-const reference write the neighbours' elements.
    assert_verdict(&text.replace("const int &", "int &"), Verdict::Race);
    // With no prototype at all, the function may take it by reference.
    assert_verdict(&text.replace("void bump(const int &);", ""), Verdict::Race);
}

#[test]
fn a_by_value_parameter_is_only_read() {
    let text = "//--blockDim=64 --gridDim=1
__device__ int twice(int x);
__global__ void k(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = (int)threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = twice(s[threadIdx.x ^ 1]);
}
";
    assert_verdict(text, Verdict::Verified);
    // Without the barrier the neighbour's element is read while it is written.
    assert_verdict(&text.replace("__syncthreads();", ""), Verdict::Race);
}

#[test]
fn reserved_names_take_non_pointers_by_value_unless_a_prototype_says_otherwise() {
    let text = "//--blockDim=64 --gridDim=1
PROTO
__global__ void k(int *out) {
  __shared__ int s[65];
  s[threadIdx.x] = (int)threadIdx.x;
  __syncthreads();
  __bump(s[threadIdx.x + 1]);
  out[threadIdx.x] = s[threadIdx.x];
}
";
    assert_verdict(&text.replace("PROTO", ""), Verdict::Verified);
    assert_verdict(
        &text.replace("PROTO", "__device__ void __bump(int &r);"),
        Verdict::Race,
    );
}

#[test]
fn a_pointer_inside_a_struct_argument_reaches_its_whole_array() {
    let text = "//--blockDim=64 --gridDim=1
struct Box { int *p; };
__device__ void store(Box b, int v);
__global__ void k(int *out) {
  __shared__ int s[64];
  __shared__ int u[64];
  s[threadIdx.x] = 0;
  u[threadIdx.x] = 0;
  __syncthreads();
  Box b;
  b.p = &s[threadIdx.x];
  CALL
  out[threadIdx.x] = s[threadIdx.x] + u[threadIdx.x];
}
";
    // Some element of `s`, whichever thread's (every thread's call may write the same
    // one): `s` races, `u` (not reachable) does not.
    let o = assert_verdict(&text.replace("CALL", "store(b, 1);"), Verdict::Race);
    assert_eq!(o.arrays, BTreeSet::from(["s".to_string()]), "{o:?}");
    // One thread's call, then a barrier: ordered.
    assert_verdict(
        &text.replace("CALL", "if (threadIdx.x == 0) store(b, 1);\n  __syncthreads();"),
        Verdict::Verified,
    );
    // Without the barrier, the element it writes may be any thread's.
    assert_verdict(
        &text.replace("CALL", "if (threadIdx.x == 0) store(b, 1);"),
        Verdict::Race,
    );
}

#[test]
fn a_declared_method_touches_exactly_its_object() {
    let text = "//--blockDim=64 --gridDim=1
struct Acc { int x; int y; __device__ void add(int v); };
__global__ void k(int *out) {
  __shared__ Acc acc[64];
  acc[threadIdx.x].x = 0;
  acc[threadIdx.x].add(1);
  out[threadIdx.x] = acc[INDEX].y;
}
";
    assert_verdict(&text.replace("INDEX", "threadIdx.x"), Verdict::Verified);
    // The method may write the whole object, `y` too.
    assert_verdict(&text.replace("INDEX", "threadIdx.x ^ 1"), Verdict::Race);
}

/// A method only declared in its struct (defined out of line or in another file): a
/// `const` one only reads its object, and a `const int &` parameter of its prototype is
/// only read.
#[test]
fn a_declared_const_method_only_reads_its_object() {
    let text = "//--blockDim=64 --gridDim=1
struct Acc { int x; int y; __device__ int get(const int &q) const; };
__global__ void k(int *out) {
  __shared__ Acc acc[64];
  acc[threadIdx.x].x = 0;
  __syncthreads();
  out[threadIdx.x] = acc[threadIdx.x].get(acc[threadIdx.x ^ 1].y);
  out[threadIdx.x] = acc[threadIdx.x ^ 1].x;
}
";
    assert_verdict(text, Verdict::Verified);
    // Not `const`: the object is written while the neighbour reads it.
    assert_verdict(&text.replace(") const;", ");"), Verdict::Race);
}

#[test]
fn an_object_of_an_unknown_type_holds_what_it_was_constructed_from() {
    let text = "//--blockDim=64 --gridDim=1
__global__ void k(int *out) {
  __shared__ int temp[64];
  temp[threadIdx.x] = (int)threadIdx.x;
  BARRIER
  if (threadIdx.x == 0) {
    BlockReduce r(temp);
    out[0] = r.Sum((int)threadIdx.x);
  }
}
";
    assert_verdict(&text.replace("BARRIER", ""), Verdict::Race);
    assert_verdict(&text.replace("BARRIER", "__syncthreads();"), Verdict::Verified);
    // Every thread's constructor and method may write some element of `temp`: they
    // race with each other.
    assert_verdict(
        &text
            .replace("BARRIER", "__syncthreads();")
            .replace("if (threadIdx.x == 0) {", "{"),
        Verdict::Race,
    );
}

/// A function with no prototype may take a pointer variable by reference: the pointer
/// may change (within its array), and what it points to is read and written. The kernel
/// must not be unsupported.
#[test]
fn an_unknown_call_may_take_a_pointer_variable_by_reference() {
    for call in [
        "poke(g, 1);",
        "Holder h(g); h.put(1);",
        "Holder h = Holder(g); h.put(1);",
        "int *q = g; poke(q, 1);",
    ] {
        let text = format!(
            "//--blockDim=64 --gridDim=1
__global__ void k(int *g) {{
  if (threadIdx.x == 0) {{ {call} }}
  g[threadIdx.x + 1] = 0;
}}
"
        );
        assert_verdict(&text, Verdict::Race);
    }
}

#[test]
fn a_function_of_the_file_named_like_a_builtin_is_the_files() {
    for name in ["sync", "tiled_partition"] {
        let text = format!(
            "//--blockDim=64 --gridDim=1
__device__ void {name}(int *p) {{ }}
__global__ void k(int *out) {{
  __shared__ int s[64];
  s[threadIdx.x] = (int)threadIdx.x;
  {name}(s);
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}}
"
        );
        // Not a barrier: the neighbour's element is read unordered.
        assert_verdict(&text, Verdict::Race);
    }
    // A function of the file called `tex1Dlookup` is no texture fetch: it writes.
    assert_verdict(
        "//--blockDim=64 --gridDim=1
__device__ void tex1Dlookup(int *p, int i) { p[i] = i; }
__global__ void k(int *out) {
  __shared__ int s[64];
  tex1Dlookup(s, (int)threadIdx.x ^ 1);
  out[threadIdx.x] = s[threadIdx.x];
}
",
        Verdict::Race,
    );
}

const TILE: &str = r#"//--blockDim=64 --gridDim=1
__global__ void k(int *out) {
  __shared__ int tile[64];
  tile[threadIdx.x] = (int)threadIdx.x;
  BARRIER
  unsigned r;
  unsigned a = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(a));
  out[threadIdx.x] = (int)r;
}
"#;

#[test]
fn ldmatrix_reads_the_tile() {
    assert_verdict(&TILE.replace("BARRIER", ""), Verdict::Race);
    assert_verdict(&TILE.replace("BARRIER", "__syncthreads();"), Verdict::Verified);
    assert_verdict(
        &TILE.replace("BARRIER", r#"asm volatile("bar.sync 0;");"#),
        Verdict::Verified,
    );
    assert_verdict(
        &TILE.replace("BARRIER", r#"asm volatile("barrier.sync 0;");"#),
        Verdict::Verified,
    );
}

#[test]
fn a_ptx_store_through_a_pointer_writes_exactly_its_cells() {
    let text = r#"//--blockDim=64 --gridDim=1
__global__ void k(int *out) {
  __shared__ int s[128];
  asm volatile("st.shared.v2.u32 [%0], {%1, %2};" :: "l"(&s[2 * threadIdx.x]), "r"(1), "r"(2) : "memory");
  BARRIER
  out[threadIdx.x] = s[INDEX];
}
"#;
    assert_verdict(
        &text
            .replace("BARRIER", "")
            .replace("INDEX", "2 * threadIdx.x + 1"),
        Verdict::Verified,
    );
    assert_verdict(
        &text
            .replace("BARRIER", "")
            .replace("INDEX", "2 * threadIdx.x + 2"),
        Verdict::Race,
    );
    assert_verdict(
        &text
            .replace("BARRIER", "__syncthreads();")
            .replace("INDEX", "2 * threadIdx.x + 2"),
        Verdict::Verified,
    );
}

#[test]
fn an_integer_address_reaches_every_array_of_its_space() {
    let text = r#"//--blockDim=64 --gridDim=1
__global__ void k(int *out) {
  __shared__ int s[64];
  __shared__ int u[64];
  u[threadIdx.x] = 0;
  unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
  asm volatile("st.SPACE.u32 [%0], %1;" :: "r"(a), "r"(1) : "memory");
  out[threadIdx.x] = u[threadIdx.x];
}
"#;
    let o = assert_verdict(&text.replace("SPACE", "shared"), Verdict::Race);
    assert!(o.arrays.contains("u"), "{o:?}");
    // A global store through an integer address reaches the global arrays, not `u`.
    let o = assert_verdict(&text.replace("SPACE", "global"), Verdict::Race);
    assert!(!o.arrays.contains("u") && o.arrays.contains("out"), "{o:?}");
}

#[test]
fn ptx_that_cannot_be_modelled_is_unsupported_with_its_opcode() {
    for (asm, opcode) in [
        (
            r#"asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(a), "l"(g));"#,
            "cp.async.ca.shared.global",
        ),
        (
            r#"asm volatile("mbarrier.arrive.shared.b64 _, [%0];" :: "r"(a));"#,
            "mbarrier.arrive.shared.b64",
        ),
        (
            r#"asm volatile("frobnicate.u32 %0, %1;" : "=r"(v) : "r"(a));"#,
            "frobnicate.u32",
        ),
        (r#"asm volatile("bar.sync 0, 32;");"#, "bar.sync"),
    ] {
        let text = format!(
            "//--blockDim=64 --gridDim=1
__global__ void k(int *g) {{
  __shared__ int s[64];
  unsigned v;
  unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
  {asm}
  g[threadIdx.x] = s[threadIdx.x];
}}
"
        );
        let o = assert_verdict(&text, Verdict::Unsupported);
        let error = o.error.unwrap_or_default();
        assert!(error.contains(opcode), "`{opcode}` not named in: {error}");
    }
}

/// A pointer to a local variable that holds pointers (a struct with a pointer field, a
/// pointer variable) reaches what those pointers point to, and the variable itself may
/// change: its scalars become arbitrary, its pointers may move within their arrays.
#[test]
fn an_unknown_call_reaches_through_a_pointer_to_a_local() {
    for (decl, body) in [
        // A struct holding a pointer, passed by address: `b->p[...]` may be written.
        (
            "struct Box { int *p; };\n__device__ void put(Box *b);",
            "Box b;\n  b.p = s;\n  put(&b);\n  out[threadIdx.x] = s[threadIdx.x];",
        ),
        // A pointer passed by address: `(*pp)[...]` may be written.
        (
            "__device__ void put(int **pp);",
            "int *p = s;\n  put(&p);\n  out[threadIdx.x] = s[threadIdx.x];",
        ),
        // The pointer may be moved: `*p` may be a neighbour's element.
        (
            "__device__ void advance(int **pp);",
            "int *p = &s[threadIdx.x];\n  s[threadIdx.x] = 0;\n  advance(&p);\n  *p = 1;",
        ),
        // The struct's scalar field may change too.
        (
            "struct Box { int *p; int k; };\n__device__ void put(Box *b);",
            "Box b;\n  b.p = out;\n  b.k = threadIdx.x;\n  put(&b);\n  s[b.k] = threadIdx.x;",
        ),
    ] {
        for declared in [true, false] {
            let decl = if declared {
                decl.to_string()
            } else {
                // No prototype: the struct stays, the function is declared nowhere.
                decl.lines()
                    .filter(|l| !l.contains('('))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let text = format!(
                "//--blockDim=64 --gridDim=1
{decl}
__global__ void k(int *out) {{
  __shared__ int s[65];
  {body}
}}
"
            );
            assert_verdict(&text, Verdict::Race);
        }
    }
}
