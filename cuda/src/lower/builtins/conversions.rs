//! Conversions spelled as calls: `static_cast<T>(x)` and friends, and the vector
//! constructors `make_float4(...)` and friends.

use super::Call;
use crate::lower::{Lowerer, R, V, Value};
use crate::program::named_children;
use crate::types::{Ty, vector_type};

/// `static_cast`, `reinterpret_cast`, `const_cast`, `dynamic_cast`.
pub(super) fn cast<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    if !matches!(
        c.name,
        "static_cast" | "reinterpret_cast" | "const_cast" | "dynamic_cast"
    ) {
        return Ok(None);
    }
    let to = match c.targs.and_then(|t| named_children(t).into_iter().next()) {
        Some(t) => l.type_descriptor(t)?,
        None => Ty::Opaque("?".into()),
    };
    let v = match c.args.first() {
        Some(a) => l.rvalue(*a)?,
        None => Value::void(),
    };
    l.convert(v, &to, c.n).map(Some)
}

/// `make_<vector type>(fields...)`.
pub(super) fn make_vector<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let Some(ty) = c.name.strip_prefix("make_").and_then(vector_type) else {
        return Ok(None);
    };
    let vals = l.eval_args(c.args)?;
    let v = Value {
        v: V::Struct(vals),
        ty: Ty::Opaque("initializer list".into()),
    };
    l.convert(v, &ty, c.n).map(Some)
}
