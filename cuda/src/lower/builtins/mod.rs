//! CUDA builtins, one module per family: a call by name is offered to each step of
//! [`STEPS`] in turn, and the first that says "mine" lowers it.
//!
//! - [`annotations`]: GPUVerify's `__requires`/`__assume` (they constrain), its other
//!   annotations (ignored: they only add proof obligations or hints), its specification
//!   functions (arbitrary), `__builtin_expect`/`__builtin_assume`.
//! - [`sync`]: `__syncthreads()` and friends (barriers), `__syncwarp()` (a warp
//!   barrier when the mask is the full warp), fences (vanish), cooperative groups.
//! - [`memory`]: cache-hinted loads (`__ldg`) and stores (`__stcs`), texture and surface fetches, `malloc`
//!   and `free` (fresh memory of the thread, `lower::alloc`).
//! - [`async_copy`]: `memcpy_async` (cooperative groups, `cuda::`, `__pipeline_*`),
//!   its batches, pipelines and waits, and `cuda::barrier`: copies in flight from the
//!   call to the wait (`lower::in_flight`).
//! - [`surface`]: surface writes and reads, accesses of one global array of all
//!   surfaces at the texel's coordinates.
//! - [`atomics`]: `atomicAdd` and friends, KPL atomics on the cells they update.
//! - [`wmma`]: tensor-core tiles, `load_matrix_sync`/`store_matrix_sync` as the
//!   warp's reads and writes of the tile, `fill_fragment`/`mma_sync` registers only.
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
//! with a step, put in [`STEPS`] where its names should be tried. Names follow C++
//! lookup ([`call::may_be_builtin`]): a function of the file that the call can name
//! (declared or defined, in a namespace the call sees) hides every builtin of that name,
//! except the names reserved to the implementation (`__syncthreads`); a call qualified
//! by a namespace that is not CUDA's or a library's (`util::sync`) is never a builtin.
//! The order still matters for the reserved names: a definition of one in the file is
//! used only when no builtin step before `call::own_function` takes it. Inlining the
//! file's functions stays in `super::call`.

pub(super) mod annotations;
mod async_copy;
mod atomics;
mod bulk;
mod conversions;
mod math;
pub(crate) use math::is_float_function;
mod memory;
mod misc;
mod random;
mod surface;
mod sync;
mod warp;
mod wmma;

use tree_sitter::Node;

use super::call;
use super::{Lowerer, R, Value};
use crate::types::Ty;
pub(super) use async_copy::is_sync_object;
pub(super) use sync::{is_group, refine as refine_group};

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

/// Whose a dispatch step's names are, which decides when it may take a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Owner {
    /// C++'s keywords (`static_cast`): never a name of the file.
    Language,
    /// CUDA's and its libraries' functions: C++ name lookup finds the file's own
    /// declarations first, so these apply only where the call cannot name a function of
    /// the file ([`call::may_be_builtin`]).
    Builtin,
    /// CUDA's global functions that files overload (`atomicAdd`, `make_float3`): taken
    /// unless the call is qualified by a namespace or struct of the file
    /// ([`call::may_be_overloaded_builtin`]).
    Overloaded,
    /// The file's own code.
    File,
}

/// Every step a call by name goes through, in order. `call::*` steps are the file's
/// own code (function objects, functions inlined, constructors of its types); a family
/// appears twice where some of its names are reserved and others are not.
pub(super) const STEPS: &[(Owner, Step)] = &[
    (Owner::Language, conversions::cast),
    (Owner::Builtin, annotations::invariant),
    (Owner::Builtin, annotations::ignored),
    (Owner::File, call::function_object),
    (Owner::Builtin, annotations::lower),
    (Owner::Builtin, sync::lower),
    (Owner::Builtin, async_copy::lower),
    (Owner::Builtin, surface::lower),
    (Owner::Builtin, memory::lower),
    (Owner::Overloaded, atomics::lower),
    (Owner::Overloaded, conversions::make_vector),
    (Owner::File, call::own_function),
    (Owner::File, call::constructor),
    (Owner::Builtin, bulk::lower),
    (Owner::Builtin, math::lower),
    (Owner::Builtin, random::lower),
    (Owner::Builtin, warp::lower),
    (Owner::Builtin, wmma::lower),
    (Owner::Builtin, misc::lower),
    (Owner::Builtin, memory::allocation),
    (Owner::Builtin, annotations::obligations),
];

/// Lowers a call by the first step of [`STEPS`] that takes it; `Ok(None)` when none
/// does (a function the file does not define). Builtin steps are skipped when the call
/// names one of the file's own functions, or a function of a namespace that is not
/// CUDA's (`util::sync` is not `cooperative_groups::sync`).
pub(super) fn dispatch<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let builtin = call::may_be_builtin(l, c);
    let overloaded = call::may_be_overloaded_builtin(l, c);
    for (owner, step) in STEPS {
        let skip = match owner {
            Owner::Builtin => !builtin,
            Owner::Overloaded => !overloaded,
            Owner::Language | Owner::File => false,
        };
        if skip {
            continue;
        }
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
    l.pointer_effects(&vals, c.n, true)?;
    Ok(Some(super::expr::arbitrary(&result_type(&vals, int))))
}

/// The type of a math builtin's result: `int` (`int`), else the first argument's
/// floating-point or vector type (or `float`).
fn result_type(vals: &[Value], int: bool) -> Ty {
    if int {
        return Ty::INT;
    }
    vals.first()
        .map(|v| v.ty.clone())
        .filter(|t| matches!(t, Ty::Float { .. } | Ty::Struct(_)))
        .unwrap_or(Ty::FLOAT)
}
