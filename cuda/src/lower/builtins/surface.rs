//! Surface memory: `surf1Dwrite`/`surf2Dwrite`/`surf3Dwrite` (and the layered and
//! cubemap forms) write, `surf*read` read, the memory of the surface at the given
//! coordinates, so two threads writing one texel race.
//!
//! All surfaces of a kernel are one global array, `surface`, addressed in bytes: a
//! surface object is a handle the kernel receives, and two handles may name one
//! CUDA array (sound: more races, never fewer). The coordinates `(x, y, z)` (x in
//! bytes as CUDA takes it, y and z in rows and slices; a layer or cube face is one
//! more coordinate) become one index `x + 2^20 * (y + 2^20 * z)`. Any function of the
//! coordinates is sound (one texel is always one index); this one keeps distinct
//! texels apart for rows of up to 2^20 bytes, CUDA's largest surface width.
//! Texture fetches (`tex1Dfetch`, `tex2D`, ...) stay arbitrary values without a
//! memory effect (see the deviation table in `oracle/src/verifier/deviations.rs`).

use super::Call;
use crate::lower::{ArrayKey, ArraySpace, LVal, Lowerer, Ptr, R, Target, V, Value};
use crate::program::named_children;
use crate::types::Ty;
use kpl::ir::{BinOp, Expr};

/// Bytes per row (and rows per slice) of the flattened surface index.
const ROW: i64 = 1 << 20;

/// The number of coordinates of a surface function (`surf2DLayeredwrite`: x, y, layer).
fn coordinates(name: &str) -> Option<usize> {
    let shape = name.strip_prefix("surf")?;
    let shape = shape
        .strip_suffix("write")
        .or_else(|| shape.strip_suffix("read"))?;
    Some(match shape {
        "1D" => 1,
        "2D" | "1DLayered" => 2,
        "3D" | "2DLayered" | "Cubemap" | "CubemapLayered" => 3,
        _ => return None,
    })
}

/// `surf*write(value, surface, coordinates..., [boundary mode])` and
/// `surf*read(&out, surface, coordinates..., [mode])` / `v = surf*read<T>(surface, coordinates...)`.
pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let Some(dims) = coordinates(c.name) else {
        return Ok(None);
    };
    let write = c.name.ends_with("write");
    let vals = l.eval_args(c.args)?;
    // The object form of a read returns the texel: `surf2Dread<float>(surf, x, y)`.
    let returns = !write && !vals.first().is_some_and(|v| matches!(v.v, V::Ptr(_)));
    let first = if returns { 1 } else { 2 };
    if vals.len() < first + dims {
        return Err(l.unsupported(
            c.n,
            &format!("`{}` with {} arguments", c.name, vals.len()),
            "pass the value, the surface and every coordinate",
        ));
    }
    let index = surface_index(l, &vals[first..first + dims], c);
    let a = l.array(
        ArrayKey::Global("surface memory".into()),
        "surface",
        ArraySpace::Global,
        1,
    );
    let at = |ty: Ty| {
        LVal::Mem(
            Ptr {
                target: Target::Array(a),
                off: index.clone(),
                unit: 1,
            },
            ty,
        )
    };
    if write {
        let v = vals[0].clone();
        let ty = v.ty.clone();
        l.write(&at(ty), v, c.n)?;
        return Ok(Some(Value::void()));
    }
    if returns {
        let ty = match c.targs.and_then(|t| named_children(t).into_iter().next()) {
            Some(t) => l.type_descriptor(t)?,
            None => Ty::FLOAT,
        };
        return l.noncoherent_read(&at(ty), c.n).map(Some);
    }
    // `surf2Dread(&out, ...)`: the texel is read into `*out`.
    let out = l.deref_value(vals[0].clone(), c.n)?;
    let ty = l.lval_type(&out);
    let texel = l.noncoherent_read(&at(ty), c.n)?;
    l.write(&out, texel, c.n)?;
    Ok(Some(Value::void()))
}

/// `x + ROW * (y + ROW * z)` for the coordinates given.
fn surface_index<'t>(l: &mut Lowerer<'_, 't>, coords: &[Value], c: &Call<'_, 't>) -> Expr {
    let mut index: Option<Expr> = None;
    for v in coords.iter().rev() {
        let e = l.index(v.clone(), c.n);
        index = Some(match index {
            None => e,
            Some(outer) => Expr::bin(BinOp::Add, e, Expr::bin(BinOp::Mul, Expr::Int(ROW), outer)),
        });
    }
    index.unwrap_or(Expr::Int(0))
}
