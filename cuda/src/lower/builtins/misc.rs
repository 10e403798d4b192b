//! Builtins with no effect the model sees: `printf`, `assert`, `__trap`, ...

use super::{Call, opaque_if};
use crate::lower::{Lowerer, R, Value};

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

pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    opaque_if(l, c, NO_EFFECT_FUNCTIONS, true)
}
