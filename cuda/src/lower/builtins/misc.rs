//! Builtins with no effect the model sees: `printf`, `assert`, `__trap`, ...

use super::{Call, opaque_if};
use crate::lower::{Lowerer, R, Value};
use crate::types::Ty;

/// Functions whose arguments are evaluated and nothing else happens.
const NO_EFFECT_FUNCTIONS: &[&str] = &[
    "printf",
    "assert",
    "__assertfail",
    "__trap",
    "__brkpt",
    "__prof_trigger",
    "__nanosleep",
];

/// Address conversions and queries (`__cvta_generic_to_shared(p)`, `__isShared(p)`):
/// they touch no memory; the address they give is an arbitrary integer (inline PTX that
/// uses it as an address accesses some element of every array of its state space,
/// `lower::ptx`).
const ADDRESS_FUNCTIONS: &[&str] = &[
    "__cvta_generic_to_shared",
    "__cvta_generic_to_global",
    "__cvta_generic_to_constant",
    "__cvta_generic_to_local",
    "__cvta_shared_to_generic",
    "__cvta_global_to_generic",
    "__cvta_constant_to_generic",
    "__cvta_local_to_generic",
    "__isShared",
    "__isGlobal",
    "__isConstant",
    "__isLocal",
    "__isGridConstant",
];

pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    if ADDRESS_FUNCTIONS.contains(&c.name) {
        l.eval_args(c.args)?;
        return Ok(Some(Value::arb(Ty::Int {
            bytes: 8,
            signed: false,
        })));
    }
    opaque_if(l, c, NO_EFFECT_FUNCTIONS, true)
}
