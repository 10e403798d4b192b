//! Memory builtins: cache-hinted loads (`__ldg` and friends) are reads, cache-hinted
//! stores (`__stcs` and friends) writes; texture
//! fetches read memory autosync does not model (arbitrary values); surface accesses
//! are `super::surface`'s; `malloc`/`free` are `lower::alloc`'s.

use super::Call;
use crate::lower::expr::arbitrary;
use crate::lower::{Lowerer, R, Value};
use crate::program::named_children;
use crate::types::Ty;

/// CUDA's texture fetches by their exact names (a function of the file called
/// `tex1Dlookup` is the file's, not a fetch).
const TEXTURE_FETCHES: &[&str] = &[
    "tex1D",
    "tex1Dfetch",
    "tex1DLod",
    "tex1DGrad",
    "tex1DLayered",
    "tex1DLayeredLod",
    "tex1DLayeredGrad",
    "tex2D",
    "tex2DLod",
    "tex2DGrad",
    "tex2Dgather",
    "tex2DLayered",
    "tex2DLayeredLod",
    "tex2DLayeredGrad",
    "tex3D",
    "tex3DLod",
    "tex3DGrad",
    "texCubemap",
    "texCubemapLod",
    "texCubemapGrad",
    "texCubemapLayered",
    "texCubemapLayeredLod",
    "texCubemapLayeredGrad",
    "texfetch",
];

/// CUDA's surface writes by their exact names (`super::surface` models the ones it knows
/// the shape of first).
const SURFACE_WRITES: &[&str] = &[
    "surf1Dwrite",
    "surf2Dwrite",
    "surf3Dwrite",
    "surf1DLayeredwrite",
    "surf2DLayeredwrite",
    "surfCubemapwrite",
    "surfCubemapLayeredwrite",
];

fn is_texture_fetch(name: &str) -> bool {
    TEXTURE_FETCHES.contains(&name)
}

/// Loads, texture and surface fetches, surface writes.
pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let (name, n) = (c.name, c.n);
    if matches!(
        name,
        "__ldg" | "__ldcg" | "__ldca" | "__ldcs" | "__ldlu" | "__ldcv"
    ) {
        let Some(a) = c.args.first() else {
            return Ok(Some(Value::arb(Ty::INT)));
        };
        let p = l.rvalue(*a)?;
        let lv = l.deref_value(p, n)?;
        let v = if name == "__ldg" {
            // Through the read-only data cache: a last-block ticket does not order it.
            l.noncoherent_read(&lv, n)?
        } else {
            l.read(&lv, n)?
        };
        return Ok(Some(v));
    }
    if matches!(name, "__stcg" | "__stcs" | "__stwb" | "__stwt") {
        // `__stcs(p, v)`: `*p = v` with a cache hint.
        let [p, v] = c.args else {
            return Err(l.unsupported(n, &format!("`{name}` with other than two arguments"), ""));
        };
        let p = l.rvalue(*p)?;
        let v = l.rvalue(*v)?;
        let lv = l.deref_value(p, n)?;
        let ty = l.lval_type(&lv);
        let v = l.convert(v, &ty, n)?;
        l.write(&lv, v, n)?;
        return Ok(Some(Value::void()));
    }
    if is_texture_fetch(name) {
        l.eval_args(c.args)?;
        let ty = match c.targs.and_then(|t| named_children(t).into_iter().next()) {
            Some(t) => l.type_descriptor(t)?,
            None => Ty::FLOAT,
        };
        return Ok(Some(arbitrary(&ty)));
    }
    if SURFACE_WRITES.contains(&name) {
        // A surface write `surface` does not know (its shape): never dropped.
        return Err(l.unsupported(
            n,
            "this surface write",
            "write through surf1Dwrite/surf2Dwrite/surf3Dwrite",
        ));
    }
    Ok(None)
}

/// `malloc` and `free` (fresh memory of the thread, `lower::alloc`), after the file's
/// own functions; the device runtime's `cudaMalloc` is unsupported.
pub(super) fn allocation<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    match c.name {
        "malloc" | "free"
            if c.scope
                .rsplit_once("::")
                .is_none_or(|(q, _)| q.is_empty() || q == "std") =>
        {
            l.malloc_call(c.name, c.args, c.n).map(Some)
        }
        "cudaMalloc" | "cudaFree" => Err(l.unsupported(c.n, "the device runtime's `cudaMalloc`", "")),
        _ => Ok(None),
    }
}
