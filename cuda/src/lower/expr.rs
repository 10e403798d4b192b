//! Expressions: values (with their statements for memory accesses, calls and side
//! effects, in C's evaluation order) and l-values. This module dispatches on the kind
//! of expression; `memory`, `conversions`, `names`, `places`, `operators` and
//! `misread_casts` lower each kind.

mod conversions;
mod memory;
mod misread_casts;
mod names;
mod operators;
mod places;

pub(crate) use conversions::{cast_to, element_type};
pub(super) use names::dim3;
pub(crate) use operators::binop;

use tree_sitter::Node;

use super::float;
use super::{LVal, Lowerer, Ptr, R, Target, V, Value};
use crate::preprocess::int_literal;
use crate::program::{last_name, named_children};
use crate::types::Ty;
use kpl::ir::{BinOp, Expr, UnOp};

/// What a name or an expression denotes: a place, or just a value.
pub(super) enum Ref {
    L(LVal),
    V(Value),
}

/// The child expression of a parenthesized expression or argument list entry.
pub(super) fn strip_parens(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" {
        match named_children(n).into_iter().find(|c| c.kind() != "comment") {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

impl<'p, 't> Lowerer<'p, 't> {
    pub fn rvalue(&mut self, n: Node<'t>) -> R<Value> {
        match self.expr(n)? {
            Ref::V(v) => Ok(v),
            Ref::L(lv) => self.read(&lv, n),
        }
    }

    pub fn lvalue(&mut self, n: Node<'t>) -> R<LVal> {
        let n = strip_parens(n);
        if n.kind() == "identifier"
            && self.lookup(self.text(n)).is_none()
            && self.member(self.text(n), n)?.is_none()
        {
            let name = self.text(n);
            if self.global(name, n)?.is_none() {
                return Err(self.unsupported(
                    n,
                    &format!("`{name}` is not declared in this file"),
                    "declare it, or pass the folder of the header that does with -I",
                ));
            }
        }
        match self.expr(n)? {
            Ref::L(lv) => Ok(lv),
            Ref::V(_) => {
                Err(self.unsupported(n, "assignment to something that is not a variable or memory", ""))
            }
        }
    }

    /// The value of `n`, with a single integer read going straight into `dest` (for
    /// `int x = A[i];`): `Some(Int(dest))` then. `None` when `n` is not a read of memory
    /// (nothing was evaluated).
    pub fn read_into(&mut self, n: Node<'t>, dest: &str) -> R<Option<Value>> {
        let n = strip_parens(n);
        if !matches!(
            n.kind(),
            "subscript_expression" | "field_expression" | "pointer_expression"
        ) {
            return Ok(None);
        }
        if n.kind() == "pointer_expression" && self.text(n).trim_start().starts_with('&') {
            return Ok(None);
        }
        Ok(Some(match self.expr(n)? {
            Ref::L(LVal::Mem(p, ty)) if ty.is_int() => self.read_mem(&p, &ty, n, Some(dest))?,
            Ref::L(lv) => self.read(&lv, n)?,
            Ref::V(v) => v,
        }))
    }

    pub(super) fn expr(&mut self, n: Node<'t>) -> R<Ref> {
        let t = self.text(n);
        Ok(match n.kind() {
            "parenthesized_expression" => return self.expr(strip_parens(n)),
            "number_literal" => Ref::V(number(t)),
            "char_literal" => Ref::V(Value::int(
                Expr::Int(int_literal(t).unwrap_or(0)),
                Ty::Int {
                    bytes: 1,
                    signed: true,
                },
            )),
            "true" => Ref::V(Value::int(Expr::Int(1), Ty::BOOL)),
            "false" => Ref::V(Value::int(Expr::Int(0), Ty::BOOL)),
            "null" | "nullptr" => Ref::V(null()),
            "string_literal" | "concatenated_string" | "raw_string_literal" => Ref::V(Value {
                v: V::Ptr(Ptr {
                    target: Target::Unknown,
                    off: Expr::Int(0),
                    unit: 1,
                }),
                ty: Ty::ptr(Ty::Int {
                    bytes: 1,
                    signed: true,
                }),
            }),
            "identifier" => self.name(t, n)?,
            // A variable's name where the parser expected a type (`T obj(temp);`).
            "type_identifier" if self.lookup(t).is_some() || self.prog.globals.contains_key(t) => {
                self.name(t, n)?
            }
            "qualified_identifier" if let Some(v) = self.scoped_constant(n) => Ref::V(v),
            "qualified_identifier" => {
                let name = last_name(n, self.prog.src);
                self.name(&name, n)?
            }
            "this" => Ref::V(self.this_ptr(n)?),
            "field_expression" => self.field_expr(n)?,
            "subscript_expression" => Ref::L(self.subscript(n)?),
            "pointer_expression" => self.pointer_expr(n)?,
            "unary_expression" => Ref::V(self.unary_expr(n)?),
            "binary_expression" | "cast_expression" if self.has_mistaken_cast(n) => Ref::V(self.reparse(n)?),
            "binary_expression" => Ref::V(self.binary_expr(n)?),
            "assignment_expression" => Ref::V(self.assignment(n)?),
            "update_expression" => Ref::V(self.update(n)?),
            "conditional_expression" => Ref::V(self.conditional(n)?),
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.rvalue(l)?;
                }
                let r = n
                    .child_by_field_name("right")
                    .ok_or_else(|| self.unsupported(n, "expression", ""))?;
                return self.expr(r);
            }
            "cast_expression" => Ref::V(self.cast(n)?),
            "sizeof_expression" | "alignof_expression" => Ref::V(self.size_of(n)?),
            "call_expression" => self.returned_place(n, |l| l.call(n))?,
            "initializer_list" => Ref::V(self.initializer_list(n)?),
            "compound_literal_expression" => Ref::V(self.compound_literal(n)?),
            "user_defined_literal" => Ref::V(Value::arb(Ty::Opaque("literal".into()))),
            "offsetof_expression" => Ref::V(Value::arb(Ty::UINT)),
            "template_function" => {
                return Err(self.unsupported(n, "a function used as a value", "call it instead"));
            }
            "lambda_expression" => return Err(self.unsupported(n, "lambda expressions", "")),
            "new_expression" => Ref::V(self.new_expression(n)?),
            "delete_expression" => Ref::V(self.delete_expression(n)?),
            "throw_expression" => return Err(self.unsupported(n, "exceptions", "")),
            "gnu_asm_expression" => Ref::V(self.inline_asm(n)?),
            other => return Err(self.unsupported(n, &format!("expression `{other}`"), "")),
        })
    }

    /// The result of a call `n` lowered by `call`: the place it names when the function
    /// inlined for `n` returns a reference (so that `v[k] = x` and `T &r = f()` write
    /// where the function points), else its value.
    pub(super) fn returned_place(&mut self, n: Node<'t>, call: impl FnOnce(&mut Self) -> R<Value>) -> R<Ref> {
        let outer = self.ref_call.replace((n.id(), None));
        let v = call(self);
        let got = std::mem::replace(&mut self.ref_call, outer);
        let v = v?;
        Ok(match got {
            Some((id, Some(place))) if id == n.id() => Ref::L(place),
            _ => Ref::V(v),
        })
    }

    /// `{a, b, ...}`: the values of its elements, to be converted by the declaration or
    /// assignment that uses it.
    fn initializer_list(&mut self, n: Node<'t>) -> R<Value> {
        let mut vals = Vec::new();
        for c in named_children(n) {
            if c.kind() != "comment" {
                vals.push(self.rvalue(c)?);
            }
        }
        Ok(Value {
            v: V::Struct(vals),
            ty: Ty::Opaque("initializer list".into()),
        })
    }

    /// `(T){...}`: its value converted to `T`.
    fn compound_literal(&mut self, n: Node<'t>) -> R<Value> {
        let to = match n.child_by_field_name("type") {
            Some(tn) => self.type_descriptor(tn)?,
            None => Ty::Opaque("?".into()),
        };
        let v = match n.child_by_field_name("value") {
            Some(v) => self.rvalue(v)?,
            None => arbitrary(&to),
        };
        self.convert(v, &to, n)
    }

    // ---- `(i) + (j)`: casts that are not casts -----------------------------------

    /// The value of what an expression denotes (a place is read).
    pub(super) fn ref_value(&mut self, r: Ref, n: Node<'t>) -> R<Value> {
        match r {
            Ref::V(v) => Ok(v),
            Ref::L(lv) => self.read(&lv, n),
        }
    }
}

/// An arbitrary value of a type (structs field by field).
pub(super) fn arbitrary(ty: &Ty) -> Value {
    match ty {
        Ty::Struct(s) => Value {
            v: V::Struct(s.fields.iter().map(|(_, f)| arbitrary(f)).collect()),
            ty: ty.clone(),
        },
        Ty::Ptr(_) => Value {
            v: V::Ptr(Ptr {
                target: Target::Unknown,
                off: Expr::Int(0),
                unit: 1,
            }),
            ty: ty.clone(),
        },
        _ => Value::arb(ty.clone()),
    }
}

fn null() -> Value {
    Value {
        v: V::Ptr(Ptr {
            target: Target::Null,
            off: Expr::Int(0),
            unit: 1,
        }),
        ty: Ty::ptr(Ty::Void),
    }
}

/// `e` as 0 or 1.
pub(super) fn boolean(e: Expr) -> Expr {
    use BinOp::*;
    match &e {
        Expr::Binary(Eq | Ne | Lt | Le | Gt | Ge | And | Or, _, _) | Expr::Unary(UnOp::Not, _) => e,
        Expr::Int(v) => Expr::Int((*v != 0) as i64),
        _ => Expr::bin(Ne, e, Expr::Int(0)),
    }
}

fn number(t: &str) -> Value {
    let lower = t.to_ascii_lowercase();
    let hex = lower.starts_with("0x");
    let float = !hex && (lower.contains('.') || lower.contains('e') || lower.ends_with('f'));
    if float {
        let ty = if lower.ends_with('f') {
            Ty::FLOAT
        } else {
            Ty::Float { bytes: 8 }
        };
        return match float::literal_bits(t, &ty) {
            Some(bits) => Value::float(Expr::Int(bits), ty),
            None => Value::uniform(ty),
        };
    }
    let suffix = lower.trim_start_matches(|c: char| c.is_ascii_hexdigit() || c == 'x' || c == '\'');
    let unsigned = suffix.contains('u');
    let long = suffix.contains('l');
    let ty = Ty::Int {
        bytes: if long { 8 } else { 4 },
        signed: !unsigned,
    };
    match int_literal(t) {
        Some(v) => Value::int(Expr::Int(v), ty),
        None => Value::arb(ty),
    }
}
