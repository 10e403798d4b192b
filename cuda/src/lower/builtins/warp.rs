//! Warp-level data exchange: shuffles (a value of another lane) and votes, lane
//! masks, matches and reductions have arbitrary results, one per warp when every lane
//! of the warp gets the same one (the warp barrier `__syncwarp()` is in [`super::sync`]).

use super::{Call, opaque_if};
use crate::lower::{Lowerer, R, Value};
use crate::types::Ty;

/// Shuffles: a value of another lane, arbitrary here (like a math result).
const SHUFFLES: &[&str] = &[
    "__shfl_down",
    "__shfl_up",
    "__shfl_xor",
    "__shfl",
    "__shfl_down_sync",
    "__shfl_up_sync",
    "__shfl_xor_sync",
    "__shfl_sync",
];

/// Votes, lane masks, matches and warp reductions: an arbitrary integer.
const VOTES: &[&str] = &[
    "__ballot",
    "__ballot_sync",
    "__any",
    "__all",
    "__any_sync",
    "__all_sync",
    "__activemask",
    "__lanemask_lt",
    "__lanemask_le",
    "__lanemask_eq",
    "__match_any_sync",
    "__match_all_sync",
    "__reduce_add_sync",
    "__reduce_min_sync",
    "__reduce_max_sync",
    "__reduce_and_sync",
    "__reduce_or_sync",
    "__reduce_xor_sync",
];

/// Full-warp operations every lane gets one result of: votes and reductions over the
/// whole warp, and a broadcast from one lane (`__shfl_sync(FULL, v, 0)`).
const WARP_UNIFORM: &[&str] = &[
    "__ballot_sync",
    "__any_sync",
    "__all_sync",
    "__reduce_add_sync",
    "__reduce_min_sync",
    "__reduce_max_sync",
    "__reduce_and_sync",
    "__reduce_or_sync",
    "__reduce_xor_sync",
    "__shfl_sync",
];

pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    if let Some(v) = warp_uniform(l, c)? {
        return Ok(Some(v));
    }
    match opaque_if(l, c, SHUFFLES, false)? {
        Some(v) => Ok(Some(v)),
        None => opaque_if(l, c, VOTES, true),
    }
}

/// A [`WARP_UNIFORM`] operation over the full warp (a constant mask of all 32 lanes; for
/// `__shfl_sync` a constant source lane, a width of 32, and no `return` in the kernel):
/// one value per warp
/// (`warp_havoc`, [`Lowerer::warp_uniform_value`]). CUDA requires every lane the mask
/// names to take part, which is assumed. `None` for anything else.
fn warp_uniform<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    if !WARP_UNIFORM.contains(&c.name) {
        return Ok(None);
    }
    let full = c
        .args
        .first()
        .and_then(|m| l.const_eval(*m))
        .is_some_and(crate::lower::fold::full_warp_mask);
    let broadcast = match (c.name, c.args) {
        ("__shfl_sync", [_, _, lane]) => l.const_eval(*lane).is_some(),
        ("__shfl_sync", [_, _, lane, width]) => {
            l.const_eval(*lane).is_some() && l.const_eval(*width) == Some(32)
        }
        ("__shfl_sync", _) => false,
        (_, [_, _]) => true,
        _ => false,
    };
    // A broadcast reads the source lane, undefined if that lane has exited; a vote or
    // reduction is one value for the lanes that take part.
    let exits = c.name == "__shfl_sync" && l.kernel_may_exit();
    if !full || !broadcast || exits {
        return Ok(None);
    }
    let vals = l.eval_args(c.args)?;
    let ty = match c.name {
        "__any_sync" | "__all_sync" => Ty::INT,
        "__ballot_sync" => Ty::UINT,
        _ => vals.get(1).map(|v| v.ty.clone()).unwrap_or(Ty::UINT),
    };
    let span = l.span(c.n);
    Ok(Some(l.warp_uniform_value(ty, span)))
}
