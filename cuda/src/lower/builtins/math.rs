//! Math: `min`/`max`/`abs` on integers are tracked exactly (constants folded, else a
//! local set by a conditional), `__mul24` is a product (exact when the operands fit in
//! 24 bits, the no-overflow assumption); other math, conversion and bit functions have
//! no memory effect, and results that are one function of their arguments
//! (`lower::float`): equal arguments, equal results. `clock()` is each call's own unknown.

use tree_sitter::Node;

use super::{Call, opaque};
use crate::lower::{Lowerer, R, V, Value, fold};
use crate::types::Ty;
use kpl::ir::{BinOp, Expr, StmtKind, UnOp};

/// Whether `name` is one of the math functions of [`FLOAT_FUNCTIONS`] (`sqrtf`, `ceil`,
/// ...), plain or `std::`: they take their arguments by value, on the host too.
pub(crate) fn is_float_function(name: &str) -> bool {
    FLOAT_FUNCTIONS.contains(&name.strip_prefix("std::").unwrap_or(name))
}

/// Math functions: no memory effect, arbitrary floating-point result.
const FLOAT_FUNCTIONS: &[&str] = &[
    "sqrtf",
    "sqrt",
    "rsqrtf",
    "rsqrt",
    "cbrtf",
    "cbrt",
    "expf",
    "__expf",
    "exp",
    "exp2f",
    "exp2",
    "exp10f",
    "expm1f",
    "logf",
    "__logf",
    "log",
    "log2f",
    "__log2f",
    "log2",
    "log10f",
    "__log10f",
    "log10",
    "log1pf",
    "powf",
    "__powf",
    "pow",
    "sinf",
    "__sinf",
    "sin",
    "cosf",
    "__cosf",
    "cos",
    "tanf",
    "__tanf",
    "tan",
    "asinf",
    "acosf",
    "atanf",
    "atan2f",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinhf",
    "coshf",
    "tanhf",
    "sinh",
    "cosh",
    "tanh",
    "sinpif",
    "cospif",
    "fabsf",
    "fabs",
    "floorf",
    "floor",
    "ceilf",
    "ceil",
    "roundf",
    "round",
    "rintf",
    "rint",
    "truncf",
    "trunc",
    "nearbyintf",
    "fminf",
    "fmaxf",
    "fmin",
    "fmax",
    "fmodf",
    "fmod",
    "remainderf",
    "fmaf",
    "fma",
    "__fmaf_rn",
    "__fmaf_rz",
    "__fmul_rn",
    "__fmul_rz",
    "__fadd_rn",
    "__fadd_rz",
    "__fsub_rn",
    "__fdiv_rn",
    "__fdividef",
    "fdividef",
    "__frcp_rn",
    "__fsqrt_rn",
    "__frsqrt_rn",
    "__saturatef",
    "saturate",
    "copysignf",
    "erff",
    "erfcf",
    "erf",
    "erfc",
    "erfinvf",
    "lgammaf",
    "tgammaf",
    "hypotf",
    "hypot",
    "normf",
    "norm3df",
    "rnorm3df",
    "ldexpf",
    "frexpf",
    "modff",
    "scalbnf",
    "__int2float_rn",
    "__uint2float_rn",
    "__int_as_float",
    "__uint_as_float",
    "__half2float",
    "__float2half",
    "__double2float_rn",
    "__ll2float_rn",
    "__int2double_rn",
    "__hiloint2double",
    "__longlong_as_double",
    "lerp",
    "smoothstep",
    "dot",
    "length",
    "normalize",
    "cross",
    "clamp",
    "fracf",
];

/// Builtins with an integer result the lowering does not compute.
const INT_FUNCTIONS: &[&str] = &[
    "__float2int_rn",
    "__float2int_rz",
    "__float2int_ru",
    "__float2int_rd",
    "__float2uint_rn",
    "__float2uint_rz",
    "__float2uint_ru",
    "__float2uint_rd",
    "__float_as_int",
    "__float_as_uint",
    "__double2int_rn",
    "__double2int_rz",
    "__double2loint",
    "__double2hiint",
    "__double_as_longlong",
    "__float2ll_rn",
    "__popc",
    "__popcll",
    "__clz",
    "__clzll",
    "__ffs",
    "__ffsll",
    "__brev",
    "__brevll",
    "__byte_perm",
    "__mulhi",
    "__umulhi",
    "__mul64hi",
    "__umul64hi",
    "__sad",
    "__usad",
    "__funnelshift_l",
    "__funnelshift_r",
    "__funnelshift_lc",
    "__funnelshift_rc",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "__isnan",
    "__isinf",
    "__finitef",
    "__signbitf",
    "__hadd",
    "__rhadd",
    "__uhadd",
    "__urhadd",
    "lrintf",
    "lroundf",
    "llrintf",
    "llroundf",
    "ilogbf",
];

pub(super) fn lower<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let (name, n) = (c.name, c.n);
    let span = l.span(n);
    Ok(Some(match name {
        "min" | "max" | "umin" | "umax" | "llmin" | "llmax" | "ullmin" | "ullmax" | "imin" | "imax" => {
            let vals = l.eval_args(c.args)?;
            l.min_max(name.ends_with("min"), vals, n)
        }
        "abs" | "labs" | "llabs" => {
            let vals = l.eval_args(c.args)?;
            match vals.into_iter().next() {
                Some(Value { v: V::Int(e), ty }) => {
                    let t = l.mutable_local("_abs", Some(e), span);
                    let neg = l.made_stmt(
                        StmtKind::Assign {
                            var: t.clone(),
                            value: fold::un(UnOp::Neg, Expr::Var(t.clone())),
                        },
                        span,
                    );
                    let blk = l.made_block(vec![neg], span);
                    l.emit(
                        StmtKind::If {
                            cond: Expr::bin(BinOp::Lt, Expr::Var(t.clone()), Expr::Int(0)),
                            then_blk: blk,
                            else_blk: None,
                        },
                        span,
                    );
                    Value::int(Expr::Var(t), ty)
                }
                Some(v) => Value::arb(v.ty),
                None => Value::arb(Ty::INT),
            }
        }
        "__mul24" | "__umul24" => {
            // Exact when the operands fit in 24 bits (the no-overflow assumption).
            let vals = l.eval_args(c.args)?;
            let mut it = vals.into_iter();
            match (it.next(), it.next()) {
                (Some(a), Some(b)) => l.binary("*", a, b),
                _ => Value::arb(Ty::INT),
            }
        }
        _ if FLOAT_FUNCTIONS.contains(&name) => return pure(l, c, false),
        _ if INT_FUNCTIONS.contains(&name) => return pure(l, c, true),
        // The clock differs between calls: each one's own unknown.
        "clock" | "clock64" => return opaque(l, c, true),
        _ => return Ok(None),
    }))
}

/// A math function without memory effects: a function of its arguments (see
/// `lower::float`), the same in every thread and at every call; its result is an `int`
/// (`int`), else of the first argument's floating-point type (or `float`). Arbitrary
/// when an argument is a value the lowering does not name (a vector, a pointer).
fn pure<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>, int: bool) -> R<Option<Value>> {
    let vals = l.eval_args(c.args)?;
    l.pointer_effects(&vals, c.n, true)?;
    let ty = super::result_type(&vals, int);
    Ok(Some(match l.pure_call(c.name, &vals, &ty, int) {
        Some(v) => v,
        None => crate::lower::expr::arbitrary(&ty),
    }))
}

impl<'t> Lowerer<'_, 't> {
    fn min_max(&mut self, min: bool, vals: Vec<Value>, n: Node<'t>) -> Value {
        let span = self.span(n);
        let mut it = vals.into_iter();
        let (Some(a), Some(b)) = (it.next(), it.next()) else {
            return Value::arb(Ty::INT);
        };
        let ty = if a.ty.is_int() && b.ty.is_int() {
            a.ty.clone()
        } else {
            Ty::FLOAT
        };
        if !ty.is_int() {
            // `min`/`max` of floating-point values: a function of the operands.
            let name = if min { "min" } else { "max" };
            return self
                .pure_call(name, &[a, b], &ty, false)
                .unwrap_or_else(|| Value::arb(ty));
        }
        match (a.v, b.v) {
            (V::Int(x), V::Int(y)) => {
                if let (Some(p), Some(q)) = (fold::int(&x), fold::int(&y)) {
                    return Value::int(Expr::Int(if min { p.min(q) } else { p.max(q) }), ty);
                }
                let t = self.mutable_local(if min { "_min" } else { "_max" }, Some(x), span);
                let set = self.made_stmt(
                    StmtKind::Assign {
                        var: t.clone(),
                        value: y.clone(),
                    },
                    span,
                );
                let blk = self.made_block(vec![set], span);
                let op = if min { BinOp::Lt } else { BinOp::Gt };
                self.emit(
                    StmtKind::If {
                        cond: Expr::bin(op, y, Expr::Var(t.clone())),
                        then_blk: blk,
                        else_blk: None,
                    },
                    span,
                );
                Value::int(Expr::Var(t), ty)
            }
            _ => Value::arb(ty),
        }
    }
}
