//! Values as KPL expressions and C's conversions: a value as a truth test, an index or
//! stored data, launch-uniform unknowns as kernel parameters, casts, `sizeof`, and the
//! usual arithmetic conversions that decide where `Expr::Cast`s go.

use tree_sitter::Node;

use super::{Ref, arbitrary, boolean, strip_parens};
use crate::lower::{ArraySpace, LVal, Lowerer, Ptr, R, Target, V, Value};
use crate::lower::{float, fold};
use crate::types::{Binding, Ty};
use kpl::ir::{BinOp, Builtin, Expr, StmtKind, UnOp};

/// The type of `a op b` for arithmetic operators: C's usual arithmetic conversions
/// (floating point wins; integers are promoted, then brought to a common type); for
/// shifts, the promoted left operand.
pub(super) fn arith_type(a: &Ty, b: &Ty, op: &str) -> Ty {
    match (a, b) {
        (Ty::Float { bytes: x }, Ty::Float { bytes: y }) => Ty::Float { bytes: (*x).max(*y) },
        (Ty::Float { .. }, _) => a.clone(),
        (_, Ty::Float { .. }) if op != "<<" && op != ">>" => b.clone(),
        _ if a.is_int() && (op == "<<" || op == ">>") => promoted(a),
        _ if a.is_int() && b.is_int() => common_type(a, b),
        _ if a.is_int() => promoted(a),
        _ if b.is_int() => promoted(b),
        _ => Ty::Opaque("?".into()),
    }
}

/// The type of `c ? a : b` for integer operands: the common type (two `bool`s stay
/// `bool`).
pub(super) fn conditional_type(a: &Ty, b: &Ty) -> Ty {
    if *a == Ty::Bool && *b == Ty::Bool {
        Ty::Bool
    } else {
        common_type(a, b)
    }
}

/// C's integer promotion: `bool`, `char` and `short` become `int`.
pub(super) fn promoted(t: &Ty) -> Ty {
    match t {
        Ty::Bool => Ty::INT,
        Ty::Int { bytes, .. } if *bytes < 4 => Ty::INT,
        _ => t.clone(),
    }
}

/// The common type of two integer operands (C's usual arithmetic conversions).
pub(super) fn common_type(a: &Ty, b: &Ty) -> Ty {
    let (Ty::Int { bytes: x, signed: s }, Ty::Int { bytes: y, signed: t }) = (promoted(a), promoted(b))
    else {
        return promoted(a);
    };
    if s == t {
        return Ty::Int {
            bytes: x.max(y),
            signed: s,
        };
    }
    let (ubytes, sbytes) = if s { (y, x) } else { (x, y) };
    if ubytes >= sbytes {
        // The unsigned type's rank is at least the signed one's.
        Ty::Int {
            bytes: ubytes,
            signed: false,
        }
    } else {
        // The signed type is wider, so it holds every value of the unsigned one.
        Ty::Int {
            bytes: sbytes,
            signed: true,
        }
    }
}

/// `e`, a value of type `from`, converted to the integer type `to`: the identity when
/// every value of `from` is one of `to`, else an exact conversion ([`Expr::Cast`]).
pub(super) fn convert_int(e: Expr, from: &Ty, to: &Ty) -> Expr {
    let Some(t) = to.int_ty() else {
        return e;
    };
    if *to == Ty::Bool {
        return boolean(e);
    }
    // Thread and block ids and sizes are below 2^31 (CUDA's launch limits).
    let fits = match from {
        Ty::Bool => true,
        _ if matches!(e, Expr::Builtin(_)) => t.bits >= 32,
        _ => from.int_ty().is_some_and(|f| f.fits_in(t)),
    };
    if fits {
        return e;
    }
    cast_to(t, e)
}

/// The type an integer element is read through (`_t = u32(A[i]);`). Memory is untyped
/// for the oracles (it holds any integer), so the read converts the value to the
/// lvalue's type, as C does: exact for memory written through the type (stores convert
/// to it), and the verifier knows the value is in the type's range without a
/// wrap-around unknown: counts and slots read from unsigned elements are never
/// negative (repetition-free counters `atomicAdd(&n, count[i])`, histogram bins
/// `data[i] % BINS`). `unsigned long long` stays untyped: the interpreter computes in
/// 64-bit signed integers, where its upper half does not fit.
pub(crate) fn element_type(ty: &Ty) -> Option<kpl::IntTy> {
    ty.int_ty().filter(|t| t.bits <= 32 || t.signed)
}

/// `e` converted to `t`: folded for a constant, else an [`Expr::Cast`].
pub(crate) fn cast_to(t: kpl::IntTy, e: Expr) -> Expr {
    match fold::int(&e).and_then(|c| i64::try_from(t.convert(i128::from(c))).ok()) {
        Some(c) => Expr::Int(c),
        None => Expr::cast(t, e),
    }
}

/// `e` of type `ty` brought into the type's range when it is an unsigned value that a
/// subtraction may have taken below zero (`tid - 2`), which the no-overflow assumption
/// otherwise leaves negative. Sums and products of unsigned values stay as they are.
pub(super) fn normalized(e: Expr, ty: &Ty) -> Expr {
    fn may_go_negative(e: &Expr) -> bool {
        match e {
            Expr::Binary(BinOp::Sub, ..) | Expr::Unary(UnOp::Neg, _) => true,
            Expr::Binary(BinOp::Add | BinOp::Mul | BinOp::Shl, a, b) => {
                may_go_negative(a) || may_go_negative(b)
            }
            _ => false,
        }
    }
    if matches!(ty, Ty::Int { signed: false, .. }) && may_go_negative(&e) {
        wrap_int(e, ty)
    } else {
        e
    }
}

/// The result `e` of an operation done in type `ty`, wrapped into it (`--wrap`).
pub(super) fn wrap_int(e: Expr, ty: &Ty) -> Expr {
    match ty.int_ty() {
        Some(t) => cast_to(t, e),
        None => e,
    }
}

impl<'p, 't> Lowerer<'p, 't> {
    /// The value of a truth test: the expression, or a fresh arbitrary local (one
    /// value for the launch when the value is launch-uniform: `if (mean)` of a pointer
    /// parameter).
    pub fn truth(&mut self, v: Value, n: Node<'t>) -> Expr {
        let uniform = self.launch_uniform(&v);
        if let V::Float(e) = &v.v
            && let Some(c) = float::truth(e.clone(), &v.ty)
        {
            return c;
        }
        match v.v {
            V::Int(e) => e,
            V::Ptr(p) if p.target == Target::Null => Expr::Int(0),
            _ if uniform => self.uniform_param(kpl::IntTy::U8, Some((0, 1))),
            _ => Expr::Var(self.local("_c", None, self.span(n)).to_string()),
        }
    }

    /// An index expression (arbitrary values become a fresh arbitrary local).
    pub fn index(&mut self, v: Value, n: Node<'t>) -> Expr {
        match v.v {
            V::Int(e) => e,
            V::Uniform => self.uniform_param(kpl::IntTy::I64, None),
            _ => Expr::Var(self.local("_i", None, self.span(n))),
        }
    }

    /// The expression to store for a value: itself (a floating-point value's term), one
    /// unknown for the launch for a launch-uniform value, or a havocked scratch local.
    pub fn data(&mut self, v: &Value, n: Node<'t>) -> Expr {
        match &v.v {
            V::Int(e) | V::Float(e) => e.clone(),
            V::Uniform => self.uniform_value(),
            _ => {
                let s = self.scratch();
                self.emit(StmtKind::havoc(s.clone()), self.span(n));
                Expr::Var(s)
            }
        }
    }

    /// A fresh scalar parameter of the kernel named after `hint`, of type `ty` (and within
    /// `range`, as a precondition): one value per launch. Kernel parameters, and untracked
    /// launch-uniform values where they become integers, are such parameters.
    pub fn scalar_param(&mut self, hint: &str, ty: kpl::IntTy, range: Option<(i64, i64)>) -> String {
        let name = self.fresh(hint);
        let v = Expr::Var(name.clone());
        if let Some((lo, hi)) = range {
            self.requires.push(Expr::bin(
                BinOp::And,
                Expr::bin(BinOp::Le, Expr::Int(lo), v.clone()),
                Expr::bin(BinOp::Le, v.clone(), Expr::Int(hi)),
            ));
        }
        self.params.push(kpl::ir::Param::Scalar {
            name: name.clone(),
            ty,
        });
        name
    }

    /// [`Lowerer::scalar_param`] as a value: an untracked launch-uniform value seen as an
    /// integer.
    pub(super) fn uniform_param(&mut self, ty: kpl::IntTy, range: Option<(i64, i64)>) -> Expr {
        Expr::Var(self.scalar_param("_u", ty, range))
    }

    /// Whether a value is the same in every thread of the launch and every evaluation:
    /// launch-uniform untracked values, and integers over constants, launch sizes and
    /// kernel parameters.
    pub(super) fn launch_uniform(&self, v: &Value) -> bool {
        match &v.v {
            V::Uniform => true,
            V::Int(e) | V::Float(e) => self.launch_uniform_int(e),
            // The null pointer, and a global or constant array (a pointer parameter) at
            // an offset all threads agree on: `mean != nullptr` is one truth for the
            // launch.
            V::Ptr(p) => {
                let global = match p.target {
                    Target::Null => true,
                    Target::Array(i) => self
                        .arrays
                        .get(i)
                        .is_some_and(|a| matches!(a.space, ArraySpace::Global | ArraySpace::Constant)),
                    _ => false,
                };
                global && self.launch_uniform_int(&p.off)
            }
            _ => false,
        }
    }

    fn launch_uniform_int(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.for_each_builtin(&mut |b| ok &= matches!(b, Builtin::Bdim(_) | Builtin::Gdim(_)));
        e.for_each_var(&mut |x| {
            ok &= self
                .params
                .iter()
                .any(|p| matches!(p, kpl::ir::Param::Scalar { name, .. } if name == x))
        });
        ok
    }

    /// A value converted to type `to` (casts, initialization, assignment).
    pub fn convert(&mut self, v: Value, to: &Ty, n: Node<'t>) -> R<Value> {
        if let Some(out) = self.float_conversion(&v, to) {
            return Ok(out);
        }
        let from = v.ty.clone();
        Ok(match (v.v, to) {
            (_, Ty::Void) => Value::void(),
            (x, Ty::Opaque(name)) if name == "auto" => Value { v: x, ty: from },
            (V::Uniform, Ty::Bool) => Value::int(self.uniform_param(kpl::IntTy::U8, Some((0, 1))), Ty::Bool),
            (V::Uniform, Ty::Int { .. }) => {
                let t = to.int_ty().unwrap_or_default();
                Value::int(self.uniform_param(t, None), to.clone())
            }
            (V::Uniform, Ty::Float { .. }) => Value::uniform(to.clone()),
            (V::Int(e), Ty::Float { .. }) if self.launch_uniform_int(&e) => Value::uniform(to.clone()),
            (V::Int(e), Ty::Bool) if from == Ty::Bool => Value::int(e, Ty::Bool),
            (V::Int(e), Ty::Bool) => Value::int(boolean(e), Ty::Bool),
            (V::Int(e), Ty::Int { .. }) => Value::int(convert_int(e, &from, to), to.clone()),
            (V::Int(e), Ty::Ptr(_)) => Value {
                v: V::Ptr(Ptr {
                    target: if fold::int(&e) == Some(0) {
                        Target::Null
                    } else {
                        Target::Unknown
                    },
                    off: Expr::Int(0),
                    unit: 1,
                }),
                ty: to.clone(),
            },
            (V::Ptr(p), Ty::Ptr(_)) => Value {
                v: V::Ptr(p),
                ty: to.clone(),
            },
            (V::Struct(vals), Ty::Struct(s)) => {
                if from == *to {
                    Value {
                        v: V::Struct(vals),
                        ty: to.clone(),
                    }
                } else if vals.len() == s.fields.len() {
                    // An initializer list, or a struct of the same shape.
                    let mut out = Vec::new();
                    for (v, (_, f)) in vals.into_iter().zip(&s.fields) {
                        out.push(self.convert(v, f, n)?);
                    }
                    Value {
                        v: V::Struct(out),
                        ty: to.clone(),
                    }
                } else {
                    arbitrary(to)
                }
            }
            (V::Struct(_), Ty::Ptr(_)) if from.as_struct().is_some() => {
                return self.conversion_operator(from, to, n);
            }
            (x @ V::Ptr(_), Ty::Array(..)) => Value { v: x, ty: from },
            (_, t) => arbitrary(t),
        })
    }

    /// `(T) e`: the operand's value converted to `T`.
    pub(super) fn cast(&mut self, n: Node<'t>) -> R<Value> {
        let ty_node = n
            .child_by_field_name("type")
            .ok_or_else(|| self.unsupported(n, "cast", ""))?;
        let to = self.type_descriptor(ty_node)?;
        let value = n
            .child_by_field_name("value")
            .ok_or_else(|| self.unsupported(n, "cast", ""))?;
        let v = self.rvalue(value)?;
        self.convert(v, &to, n)
    }

    /// `sizeof` and `alignof` (of a type, or of an expression's type without its
    /// effects): a constant `size_t`.
    pub(super) fn size_of(&mut self, n: Node<'t>) -> R<Value> {
        let ty = if let Some(tn) = n.child_by_field_name("type") {
            self.type_descriptor(tn)?
        } else if let Some(v) = n.child_by_field_name("value") {
            self.in_block(|l| l.type_of(v))?.0
        } else {
            Ty::Opaque("?".into())
        };
        let (size, align) = ty.layout();
        let value = if n.kind() == "sizeof_expression" {
            size
        } else {
            align
        };
        Ok(Value::int(
            Expr::Int(value as i64),
            Ty::Int {
                bytes: 8,
                signed: false,
            },
        ))
    }

    /// The type of the operand of `sizeof`/`alignof`: an expression's type without array
    /// decay (`sizeof(a)` of `int a[10]` is 40), or the type a name denotes when the
    /// parser took a type name for a value (`sizeof(float4)`, `sizeof(P3)`).
    fn type_of(&mut self, v: Node<'t>) -> R<Ty> {
        let inner = strip_parens(v);
        if matches!(inner.kind(), "identifier" | "type_identifier") {
            let name = self.text(inner);
            if self.lookup(name).is_none()
                && !matches!(self.binding(name), Some(Binding::Value(_)))
                && self.member(name, inner)?.is_none()
                && self.enumerator(name, 0).is_none()
                && self.global(name, inner)?.is_none()
            {
                let t = self.named_type_of_text(name)?;
                if !matches!(&t, Ty::Opaque(o) if crate::types::opaque_scalar_bytes(o).is_none()) {
                    return Ok(t);
                }
            }
        }
        Ok(match self.expr(v)? {
            Ref::V(v) => v.ty,
            Ref::L(LVal::Var(id)) => self.vars[id].ty.clone(),
            Ref::L(LVal::Mem(_, t) | LVal::Private(t)) => t,
        })
    }
}
