//! cuRAND's device API: every call reads and advances the generator state it is given
//! (`curand(&s)`, `curand_uniform(state)`, `curand_init(seed, seq, off, &s)`), so it
//! reads and writes that state; threads drawing from one shared state race. Results
//! are arbitrary values (an integer for `curand`, `curand_poisson`, else a float or
//! vector of floats).

use super::Call;
use crate::lower::{LVal, Lowerer, R, V, Value, expr::arbitrary};
use crate::types::Ty;

/// Whether `name` is a cuRAND device function (they all start with `curand`, except
/// the state-skipping ones).
fn is_curand(name: &str) -> bool {
    name == "curand" || name.starts_with("curand_") || name.starts_with("skipahead")
}

pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    if !is_curand(c.name) {
        return Ok(None);
    }
    let vals = l.eval_args(c.args)?;
    for v in &vals {
        if let V::Ptr(_) = v.v {
            // The state: read, then overwritten with its next (arbitrary) value.
            let state =
                v.ty.pointee()
                    .cloned()
                    .unwrap_or(Ty::Opaque("curandState".into()));
            let lv = l.deref_value(v.clone(), c.n)?;
            if let LVal::Mem(p, ty) = &lv {
                l.read_mem(p, ty, c.n, None)?;
            }
            l.write(&lv, arbitrary(&state), c.n)?;
        }
    }
    let int = matches!(c.name, "curand" | "curand_poisson");
    let ty = if int { Ty::UINT } else { Ty::FLOAT };
    Ok(Some(arbitrary(&ty)))
}

#[cfg(test)]
mod tests {
    use super::is_curand;

    #[test]
    fn curand_names() {
        for n in [
            "curand",
            "curand_uniform",
            "curand_normal4",
            "curand_init",
            "skipahead_sequence",
        ] {
            assert!(is_curand(n), "{n}");
        }
        assert!(!is_curand("curandom"));
        assert!(!is_curand("rand"));
    }
}
