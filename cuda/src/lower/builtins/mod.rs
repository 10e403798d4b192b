//! CUDA builtins, one module per family: a call by name is offered to each step of
//! [`STEPS`] in turn, and the first that says "mine" lowers it.
//!
//! - [`annotations`]: GPUVerify's `__requires`/`__assume` (they constrain), its other
//!   annotations (ignored: they only add proof obligations or hints), its specification
//!   functions (arbitrary), `__builtin_expect`/`__builtin_assume`.
//! - [`sync`]: `__syncthreads()` and friends (barriers), `__syncwarp()` (a warp
//!   barrier when the mask is the full warp), fences (vanish), cooperative groups.
//! - [`memory`]: cache-hinted loads (`__ldg`), texture and surface fetches, dynamic
//!   allocation (unsupported).
//! - [`surface`]: surface writes and reads, accesses of one global array of all
//!   surfaces at the texel's coordinates.
//! - [`atomics`]: `atomicAdd` and friends, KPL atomics on the cells they update.
//! - [`conversions`]: `static_cast` and friends, `make_float4` and friends.
//! - [`math`]: `min`/`max`/`abs`/`__mul24`, tracked exactly on integers; other math
//!   and bit functions, arbitrary results.
//! - [`random`]: cuRAND's device API, which reads and writes the state it is given.
//! - [`warp`]: shuffles and votes, arbitrary results.
//! - [`bulk`]: `memcpy`/`memmove`/`memset`, loops over the cells of the ranges they
//!   read and write.
//! - [`misc`]: `printf`, `assert`, `__trap`, ...: arguments evaluated, nothing else.
//!
//! Adding a builtin touches its family's file (and its test). A new family is a module
//! with a step, put in [`STEPS`] where its names should be tried. The order matters
//! only where names could meet: builtins before `call::own_function` are reserved
//! (the file cannot redefine them); those after it yield to the file's own functions
//! of the same name. Inlining the file's functions stays in `super::call`.

pub(super) mod annotations;
mod atomics;
mod bulk;
mod conversions;
mod math;
mod memory;
mod misc;
mod random;
mod surface;
mod sync;
mod warp;

use tree_sitter::Node;

use super::call;
use super::{Lowerer, R, Value};
use crate::types::Ty;

/// A call of a function by name, as every step sees it.
pub(super) struct Call<'a, 't> {
    /// The function's name without scope (`sync` for `cg::sync`).
    pub name: &'a str,
    /// The callee as written (`cg::sync`).
    pub scope: &'a str,
    /// Explicit template arguments (`static_cast<int>`, `tex1Dfetch<float>`).
    pub targs: Option<Node<'t>>,
    pub args: &'a [Node<'t>],
    /// The whole call expression.
    pub n: Node<'t>,
    /// Whether the result is unused (an atomic then needs no result variable).
    pub discard: bool,
}

/// One step of the dispatch: `Ok(None)` when the call is not its own ("not mine"),
/// else the call's value (or why it cannot be lowered).
pub(super) type Step = for<'a, 'p, 't> fn(&mut Lowerer<'p, 't>, &Call<'a, 't>) -> R<Option<Value>>;

/// Every step a call by name goes through, in order. `call::*` steps are the file's
/// own code (function objects, functions inlined, constructors of its types); a family
/// appears twice where some of its names are reserved and others are not.
pub(super) const STEPS: &[Step] = &[
    conversions::cast,
    annotations::invariant,
    annotations::ignored,
    call::function_object,
    annotations::lower,
    sync::lower,
    surface::lower,
    memory::lower,
    atomics::lower,
    conversions::make_vector,
    call::own_function,
    call::constructor,
    bulk::lower,
    math::lower,
    random::lower,
    warp::lower,
    misc::lower,
    memory::allocation,
    annotations::obligations,
];

/// Lowers a call by the first step of [`STEPS`] that takes it; `Ok(None)` when none
/// does (a function the file does not define).
pub(super) fn dispatch<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    for step in STEPS {
        if let Some(v) = step(l, c)? {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

/// [`opaque`] if the call's name is one of `names`, else "not mine".
fn opaque_if<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>, names: &[&str], int: bool) -> R<Option<Value>> {
    if names.contains(&c.name) {
        opaque(l, c, int)
    } else {
        Ok(None)
    }
}

/// A builtin without a memory effect the lowering does not compute: its arguments are
/// evaluated (a pointer argument is only read), its result is arbitrary, an integer if
/// `int`, else of the first argument's floating-point or vector type (or `float`).
fn opaque<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>, int: bool) -> R<Option<Value>> {
    let vals = l.eval_args(c.args)?;
    l.pointer_effects(&vals, c.n, true);
    let ty = if int {
        Ty::INT
    } else {
        vals.first()
            .map(|v| v.ty.clone())
            .filter(|t| matches!(t, Ty::Float { .. } | Ty::Struct(_)))
            .unwrap_or(Ty::FLOAT)
    };
    Ok(Some(super::expr::arbitrary(&ty)))
}
