//! Floating-point values as terms.
//!
//! The verifier does not compute with floating point, but it must know when two threads
//! store the *same* value (GPUVerify's benign write-write races: every thread of a warp
//! storing its warp's sum, all threads storing `1.0f`). So a floating-point value is
//! lowered to a KPL integer term ([`V::Float`]) that names it:
//!
//! - a constant is its IEEE 754 bit pattern (`1.0f` is `1065353216`): literals, and
//!   integer constants converted to a floating-point type, folded exactly as C does;
//! - a kernel parameter is `@arg_<name>()`, one unknown for the launch;
//! - a value read from memory is the value the read returns (memory holds bit
//!   patterns), and a variable holds the term last assigned to it (a KPL local);
//! - an operation is an uninterpreted function of its operands' terms (KPL's
//!   [`Expr::Apply`]): `@f32_lt(x, y)`, `@cvt_i32_f32(i)`, `@expf_f32(x)`.
//!
//! Two terms that are equal mean equal values because each function is a function: the
//! same operation on the same operands gives the same result, in every thread. That holds
//! for IEEE 754 operations (correctly rounded), conversions, comparisons and the math
//! library (one implementation per build), but the compiler may contract `a * b + c` into
//! one fused multiply-add at one place and not at another. So each arithmetic operator
//! (`+ - * /`) gets functions of its own *place* in the lowered code (`@f32_add_3`): two
//! threads that run the same place compute alike, and two places are never assumed to
//! agree. Nothing else is assumed of any function (not `x + 0 = x`, not that distinct
//! operands give distinct results), so a term says no more than "the same computation on
//! the same inputs". Values the lowering cannot name (a shuffle from another lane, an
//! atomic's old value, an unknown call) stay untracked ([`V::Arb`]): each thread's own
//! unknown.

use kpl::ir::{BinOp, Expr};

use super::{Lowerer, V, Value, fold};
use crate::types::Ty;

/// The name of a scalar type in function names (`f32`, `i64`, `bool`); `None` for types
/// the lowering does not name (vectors, structs, `__nv_bfloat16`).
pub(super) fn tag(ty: &Ty) -> Option<String> {
    match ty {
        Ty::Float { bytes: 2 } => Some("f16".into()),
        Ty::Float { bytes: 4 } => Some("f32".into()),
        Ty::Float { bytes: 8 } => Some("f64".into()),
        Ty::Bool => Some("bool".into()),
        t => t.int_ty().map(|i| i.to_string()),
    }
}

/// The bit pattern of a floating-point literal (`1.5f`, `2.0`, `1e-3`) of type `ty`;
/// `None` for what Rust's parser does not read alike (hexadecimal floats) or a `half`.
pub(super) fn literal_bits(text: &str, ty: &Ty) -> Option<i64> {
    let digits = text.trim_end_matches(['f', 'F', 'l', 'L']).replace('\'', "");
    if digits.starts_with("0x") || digits.starts_with("0X") {
        return None;
    }
    match ty {
        // Parsed straight to `f32`: one correct rounding, as C does for a `float` literal.
        Ty::Float { bytes: 4 } => digits.parse::<f32>().ok().map(|f| i64::from(f.to_bits())),
        Ty::Float { bytes: 8 } => digits.parse::<f64>().ok().map(|f| f.to_bits() as i64),
        _ => None,
    }
}

/// A constant of the integer type `from` converted to a floating-point type (round to
/// nearest even, as C). The lowering computes `+ - * << ~` on mathematical integers,
/// which agree with C modulo 2^width: the constant is first brought into its type
/// (`~0u` is 4294967295, `(char)'\xff'` is -1), where its value is what converts.
fn int_to_float_bits(c: i64, from: kpl::IntTy, ty: &Ty) -> Option<i64> {
    let v = from.convert(i128::from(c));
    match ty {
        // Through `f64` would round twice: convert from the integer directly.
        Ty::Float { bytes: 4 } => Some(i64::from((v as f32).to_bits())),
        Ty::Float { bytes: 8 } => Some((v as f64).to_bits() as i64),
        _ => None,
    }
}

/// A constant converted between floating-point types (`float` to `double` is exact,
/// `double` to `float` rounds to nearest even, as C).
fn float_to_float_bits(bits: i64, from: &Ty, to: &Ty) -> Option<i64> {
    match (from, to) {
        (Ty::Float { bytes: 4 }, Ty::Float { bytes: 8 }) => {
            Some((f64::from(f32::from_bits(bits as u32))).to_bits() as i64)
        }
        (Ty::Float { bytes: 8 }, Ty::Float { bytes: 4 }) => {
            Some(i64::from((f64::from_bits(bits as u64) as f32).to_bits()))
        }
        _ => None,
    }
}

/// `-x` of a constant: the sign bit flipped.
fn negated_bits(bits: i64, ty: &Ty) -> Option<i64> {
    match ty {
        Ty::Float { bytes: 4 } => Some(i64::from((bits as u32) ^ 0x8000_0000)),
        Ty::Float { bytes: 8 } => Some(bits ^ i64::MIN),
        _ => None,
    }
}

/// The operator names of arithmetic and comparisons in function names.
fn op_name(op: &str) -> Option<&'static str> {
    Some(match op {
        "+" => "add",
        "-" => "sub",
        "*" => "mul",
        "/" => "div",
        "<" => "lt",
        "<=" => "le",
        ">" => "gt",
        ">=" => "ge",
        "==" => "eq",
        "!=" => "ne",
        _ => return None,
    })
}

fn apply(name: String, args: Vec<Expr>) -> Expr {
    Expr::Apply(name, args)
}

/// `-x` of a floating-point term (exact: the sign bit flips).
pub(super) fn negate(e: Expr, ty: &Ty) -> Option<Value> {
    let t = tag(ty)?;
    let e = match fold::int(&e).and_then(|b| negated_bits(b, ty)) {
        Some(b) => Expr::Int(b),
        None => apply(format!("{t}_neg"), vec![e]),
    };
    Some(Value::float(e, ty.clone()))
}

/// The truth of a floating-point term (`x != 0`, which `-0.0` and NaN make unusual):
/// a 0/1 integer.
pub(super) fn truth(e: Expr, ty: &Ty) -> Option<Expr> {
    let t = tag(ty)?;
    Some(fold::bin(
        BinOp::Ne,
        apply(format!("cvt_{t}_bool"), vec![e]),
        Expr::Int(0),
    ))
}

impl Lowerer<'_, '_> {
    /// The term of `v` as a value of the floating-point type `ty` (C's conversion of an
    /// operand); `None` when the value has none (untracked).
    pub(super) fn float_term(&mut self, v: &Value, ty: &Ty) -> Option<Expr> {
        let to = tag(ty)?;
        match &v.v {
            V::Float(e) if v.ty == *ty => Some(e.clone()),
            V::Float(e) => {
                let from = tag(&v.ty)?;
                Some(
                    match fold::int(e).and_then(|b| float_to_float_bits(b, &v.ty, ty)) {
                        Some(b) => Expr::Int(b),
                        None => apply(format!("cvt_{from}_{to}"), vec![e.clone()]),
                    },
                )
            }
            V::Int(e) if v.ty.is_int() => {
                let from = tag(&v.ty)?;
                let it = v.ty.int_ty()?;
                Some(match fold::int(e).and_then(|c| int_to_float_bits(c, it, ty)) {
                    Some(b) => Expr::Int(b),
                    None => apply(format!("cvt_{from}_{to}"), vec![e.clone()]),
                })
            }
            // One value for the launch, here as anywhere it is used.
            V::Uniform => Some(self.uniform_value()),
            _ => None,
        }
    }

    /// A conversion that involves a floating-point value or type (C's conversions between
    /// integers and floating point, and between floating-point types); `None` for the
    /// others.
    pub(super) fn float_conversion(&mut self, v: &Value, to: &Ty) -> Option<Value> {
        match (&v.v, to) {
            (V::Float(_), Ty::Float { .. }) | (V::Int(_), Ty::Float { .. })
                if v.ty.is_int() || tag(&v.ty).is_some() =>
            {
                let e = self.float_term(v, to)?;
                Some(Value::float(e, to.clone()))
            }
            (V::Float(e), Ty::Int { .. } | Ty::Bool) => self.float_to_int(e.clone(), &v.ty, to),
            _ => None,
        }
    }

    /// A fresh unknown that is the same in every thread and evaluation (a launch-uniform
    /// value the lowering does not name): a scalar parameter of the kernel.
    pub(super) fn uniform_value(&mut self) -> Expr {
        Expr::Var(self.scalar_param("_u", kpl::IntTy::I64, None))
    }

    /// A floating-point value converted to the integer type `to` (truncation, as C; a
    /// `bool` is the value's truth).
    pub(super) fn float_to_int(&mut self, e: Expr, from: &Ty, to: &Ty) -> Option<Value> {
        let f = tag(from)?;
        if *to == Ty::Bool {
            return Some(Value::int(truth(e, from)?, Ty::Bool));
        }
        let it = to.int_ty()?;
        let folded = fold::int(&e).and_then(|b| {
            let x = match from {
                Ty::Float { bytes: 4 } => f64::from(f32::from_bits(b as u32)),
                Ty::Float { bytes: 8 } => f64::from_bits(b as u64),
                _ => return None,
            };
            let t = x.trunc();
            (t.is_finite() && t >= it.min() as f64 && t <= it.max() as f64).then_some(t as i64)
        });
        let v = match folded {
            Some(c) => Expr::Int(c),
            None => Expr::cast(it, apply(format!("cvt_{f}_{it}"), vec![e])),
        };
        Some(Value::int(v, to.clone()))
    }

    /// `a op b` in the floating-point type `ty` (the operands' common type): arithmetic
    /// gets the functions of its place, comparisons (a `bool`) are the same everywhere.
    /// `None` when an operand has no term, or for an operator C does not allow.
    pub(super) fn float_binary(&mut self, op: &str, a: &Value, b: &Value, ty: &Ty) -> Option<Value> {
        let name = op_name(op)?;
        let t = tag(ty)?;
        let x = self.float_term(a, ty)?;
        let y = self.float_term(b, ty)?;
        if matches!(op, "+" | "-" | "*" | "/") {
            self.float_sites += 1;
            let f = format!("{t}_{name}_{}", self.float_sites);
            return Some(Value::float(apply(f, vec![x, y]), ty.clone()));
        }
        let c = fold::bin(BinOp::Ne, apply(format!("{t}_{name}"), vec![x, y]), Expr::Int(0));
        Some(Value::int(c, Ty::BOOL))
    }

    /// A call of a math library function without memory effects (`expf`, `fmaxf`,
    /// `__float_as_int`): one function per name and argument types, of the arguments'
    /// terms; a floating-point result of type `ty`, or (`int`) an `int`. `None` when an
    /// argument has no term.
    pub(super) fn pure_call(&mut self, name: &str, args: &[Value], ty: &Ty, int: bool) -> Option<Value> {
        let mut f = name.to_string();
        let mut terms = Vec::with_capacity(args.len());
        for a in args {
            let t = tag(&a.ty)?;
            let e = match &a.v {
                V::Float(e) => e.clone(),
                V::Int(e) if a.ty.is_int() => e.clone(),
                V::Uniform if matches!(a.ty, Ty::Float { .. }) => self.uniform_value(),
                _ => return None,
            };
            f.push('_');
            f.push_str(&t);
            terms.push(e);
        }
        let call = apply(f, terms);
        if int {
            // Any integer: the functions return `int`, `unsigned`, `long long` or
            // `unsigned long long`, and an unbounded unknown covers each.
            return Some(Value::int(
                call,
                Ty::Int {
                    bytes: 8,
                    signed: true,
                },
            ));
        }
        tag(ty)?;
        Some(Value::float(call, ty.clone()))
    }
}
