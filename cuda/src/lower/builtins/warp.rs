//! Warp-level data exchange: shuffles (a value of another lane) and votes, lane
//! masks, matches and reductions have arbitrary results (the warp barrier
//! `__syncwarp()` is in [`super::sync`]).

use super::{Call, opaque_if};
use crate::lower::{Lowerer, R, Value};

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
];

pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    match opaque_if(l, c, SHUFFLES, false)? {
        Some(v) => Ok(Some(v)),
        None => opaque_if(l, c, VOTES, true),
    }
}
