//! Places in memory: `this`, `*p` and `&x`, subscripts and fields (of places and of
//! values), and static members.

use tree_sitter::Node;

use super::{Ref, arbitrary, strip_parens};
use crate::lower::{LVal, Lowerer, Ptr, R, Target, V, Value, VarKind};
use crate::program::{last_name, named_children};
use crate::types::Ty;
use kpl::ir::Expr;

impl<'p, 't> Lowerer<'p, 't> {
    /// `this`: a pointer to the object a method was called on (to an unknown place
    /// when the object is a private array element).
    pub(super) fn this_ptr(&mut self, n: Node<'t>) -> R<Value> {
        let Some(this) = self.frame().this.clone() else {
            return Err(self.unsupported(n, "`this` outside a method", ""));
        };
        let ty = self
            .frame()
            .this_ty
            .clone()
            .map(Ty::Struct)
            .unwrap_or(Ty::Opaque("this".into()));
        let p = match this {
            LVal::Var(v) => Ptr {
                target: Target::Var(v),
                off: Expr::Int(0),
                unit: 1,
            },
            LVal::Mem(p, _) => p,
            LVal::Private(_) => Ptr {
                target: Target::Unknown,
                off: Expr::Int(0),
                unit: 1,
            },
        };
        Ok(Value {
            v: V::Ptr(p),
            ty: Ty::ptr(ty),
        })
    }

    /// `&e` (an address, a value) or `*e` (the place it points to).
    pub(super) fn pointer_expr(&mut self, n: Node<'t>) -> R<Ref> {
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "expression", ""))?;
        Ok(if self.text(n).trim_start().starts_with('&') {
            let inner = strip_parens(arg);
            if inner.kind() == "identifier"
                && self.lookup(self.text(inner)).is_none()
                && let Some(f) = self.function_value(self.text(inner))
            {
                return Ok(Ref::V(f)); // `&f`: a function pointer (`call::fnptr`)
            }
            let lv = self.lvalue(arg)?;
            Ref::V(self.address_of(lv))
        } else {
            let pv = self.rvalue(arg)?;
            Ref::L(self.deref_value(pv, n)?)
        })
    }

    pub(super) fn address_of(&self, lv: LVal) -> Value {
        match lv {
            LVal::Var(v) if matches!(self.vars[v].kind, VarKind::Ref(_)) => match self.vars[v].kind.clone() {
                VarKind::Ref(inner) => self.address_of(inner),
                _ => unreachable!("matched a reference"),
            },
            LVal::Var(v) => {
                let ty = self.vars[v].ty.clone();
                Value {
                    v: V::Ptr(Ptr {
                        target: Target::Var(v),
                        off: Expr::Int(0),
                        unit: ty.size_of().max(1) as u32,
                    }),
                    ty: Ty::ptr(ty),
                }
            }
            LVal::Mem(p, ty) => Value {
                v: V::Ptr(p),
                ty: Ty::ptr(ty),
            },
            LVal::Private(ty) => Value {
                v: V::Ptr(Ptr {
                    target: Target::Unknown,
                    off: Expr::Int(0),
                    unit: 1,
                }),
                ty: Ty::ptr(ty),
            },
        }
    }

    /// `*v` for a pointer value.
    pub(in crate::lower) fn deref_value(&mut self, v: Value, n: Node<'t>) -> R<LVal> {
        let pointee = v.ty.pointee().cloned().unwrap_or(Ty::Opaque("?".into()));
        match v.v {
            V::Ptr(p) => self.deref(&p, pointee, n),
            _ => Err(self.unsupported(n, "dereferencing something that is not a known pointer", "")),
        }
    }

    pub(super) fn subscript(&mut self, n: Node<'t>) -> R<LVal> {
        let base = n
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "subscript", ""))?;
        let idx = n
            .child_by_field_name("indices")
            .and_then(|l| named_children(l).into_iter().find(|c| c.kind() != "comment"))
            .or_else(|| n.child_by_field_name("index"))
            .ok_or_else(|| self.unsupported(n, "subscript", ""))?;
        let base_ref = self.expr(base)?;
        let base_ref = match self.subscript_operator(base_ref, idx, n)? {
            Ok(place) => return Ok(place),
            Err(base_ref) => base_ref,
        };
        let bv = match base_ref {
            Ref::V(v) => v,
            Ref::L(lv) => {
                let union = match &lv {
                    LVal::Var(id) => self.vars[*id].ty.is_union(),
                    LVal::Mem(_, ty) | LVal::Private(ty) => ty.is_union(),
                };
                if union {
                    // An array member of a union: part of the union's one cell.
                    self.rvalue(idx)?;
                    return Ok(lv);
                }
                if let LVal::Private(Ty::Array(elem, _)) = &lv {
                    // A row of an array in thread-private memory (`q.p[4][i]` of a
                    // struct passed by value): private too.
                    let elem = (**elem).clone();
                    self.rvalue(idx)?;
                    return Ok(LVal::Private(elem));
                }
                self.read(&lv, base)?
            }
        };
        let iv = self.rvalue(idx)?;
        if !bv.ty.is_pointer_like() {
            if let V::Ptr(_) = bv.v {
            } else {
                return Err(self.unsupported(
                    n,
                    "subscript of something that is not an array or pointer",
                    "",
                ));
            }
        }
        let elem = bv.ty.pointee().cloned().unwrap_or(Ty::Opaque("?".into()));
        let i = self.index(iv, idx);
        let V::Ptr(p) = bv.v else {
            return Err(self.unsupported(n, "subscript of something that is not a known pointer", ""));
        };
        let q = self.advance(&p, i, elem.size_of());
        self.deref(&q, elem, n)
    }

    pub(super) fn field_expr(&mut self, n: Node<'t>) -> R<Ref> {
        let arg = n
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "field", ""))?;
        let field = n
            .child_by_field_name("field")
            .ok_or_else(|| self.unsupported(n, "field", ""))?;
        let name = last_name(field, self.prog.src);
        let arrow = n
            .child_by_field_name("operator")
            .is_some_and(|o| self.text(o) == "->");
        let base = if arrow {
            let pv = self.rvalue(arg)?;
            Ref::L(self.deref_value(pv, n)?)
        } else {
            self.expr(arg)?
        };
        match base {
            Ref::L(lv) => Ok(Ref::L(self.field_of(lv, &name, n)?)),
            Ref::V(v) => Ok(Ref::V(self.field_of_value(v, &name, n)?)),
        }
    }

    pub(super) fn field_of(&mut self, lv: LVal, name: &str, n: Node<'t>) -> R<LVal> {
        match lv {
            LVal::Var(id) => match self.vars[id].kind.clone() {
                VarKind::Struct(fields) => {
                    let ty = self.vars[id].ty.clone();
                    match ty.field(name) {
                        Some((i, _, _)) if i < fields.len() => Ok(LVal::Var(fields[i])),
                        _ => self.static_member(&ty, name, n),
                    }
                }
                VarKind::Ref(inner) => self.field_of(inner, name, n),
                _ => Ok(LVal::Private(Ty::Opaque(name.to_string()))),
            },
            LVal::Mem(p, ty) => match &ty {
                Ty::Struct(_) => {
                    let Some((_, off, fty)) = ty.field(name) else {
                        return self.static_member(&ty, name, n);
                    };
                    let fty = fty.clone();
                    let q = self.advance(&p, Expr::Int(off as i64), ty.cell_bytes() as u64);
                    Ok(LVal::Mem(q, fty))
                }
                // A field of an element whose type is unknown: the whole element.
                _ => Ok(LVal::Mem(p, ty)),
            },
            LVal::Private(ty) => Ok(LVal::Private(
                ty.field(name)
                    .map(|(_, _, t)| t.clone())
                    .unwrap_or(Ty::Opaque(name.into())),
            )),
        }
    }

    fn field_of_value(&mut self, v: Value, name: &str, n: Node<'t>) -> R<Value> {
        match (v.v, v.ty.field(name)) {
            (V::Struct(vals), Some((i, _, _))) if i < vals.len() => Ok(vals[i].clone()),
            (_, Some((_, _, t))) => Ok(arbitrary(t)),
            _ if v.ty.as_struct().is_some() => self
                .static_member(&v.ty, name, n)
                .and_then(|lv| self.read(&lv, n)),
            _ => Ok(Value::arb(Ty::Opaque(name.to_string()))),
        }
    }

    /// `obj.size` naming a static constant of the struct (`static constexpr int size`):
    /// its value, a constant place.
    fn static_member(&mut self, ty: &Ty, name: &str, n: Node<'t>) -> R<LVal> {
        match ty.as_struct().and_then(|s| s.constant(name)) {
            Some(k) => Ok(LVal::Var(self.hidden_var(
                name,
                Ty::INT,
                VarKind::Fixed(Expr::Int(k)),
            ))),
            None => Err(self.no_field(ty, name, n)),
        }
    }

    fn no_field(&self, ty: &Ty, name: &str, n: Node<'t>) -> crate::CudaError {
        self.prog.error(
            crate::ErrorKind::Unsupported,
            n,
            format!("`{ty}` has no field `{name}`"),
        )
    }
}
