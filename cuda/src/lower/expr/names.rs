//! What a name denotes: a variable, a struct member of `this`, an enumerator, a scoped
//! constant, or a constant of the C and CUDA headers autosync does not read.

use tree_sitter::Node;

use super::{Ref, null};
use crate::lower::{LVal, Lowerer, R, V, Value};
use crate::program::named_children;
use crate::types::{Binding, Ty, vector_type};
use kpl::ir::{Builtin, Dim, Expr};

/// Whether an `enumerator` named `name` is declared inside `n` (an enum in a struct).
fn declares_enumerator(n: Node, name: &str, src: &str) -> bool {
    (n.kind() == "enumerator"
        && n.child_by_field_name("name")
            .and_then(|x| src.get(x.byte_range()))
            == Some(name))
        || named_children(n)
            .into_iter()
            .any(|c| declares_enumerator(c, name, src))
}

/// Constants of the C and CUDA headers autosync does not read.
fn known_constant(name: &str) -> Option<Value> {
    let int = |v: i64| Some(Value::int(Expr::Int(v), Ty::INT));
    match name {
        "INT_MAX" => int(i32::MAX as i64),
        "INT_MIN" => int(i32::MIN as i64),
        "UINT_MAX" => Some(Value::int(Expr::Int(u32::MAX as i64), Ty::UINT)),
        "CHAR_BIT" => int(8),
        "SHRT_MAX" => int(i16::MAX as i64),
        "USHRT_MAX" => int(u16::MAX as i64),
        "UCHAR_MAX" => int(255),
        "EXIT_SUCCESS" => int(0),
        "EXIT_FAILURE" => int(1),
        "FLT_MAX" | "FLT_MIN" | "FLT_EPSILON" | "DBL_MAX" | "DBL_MIN" | "DBL_EPSILON" | "M_PI" | "M_E"
        | "INFINITY" | "NAN" | "HUGE_VALF" => Some(Value::arb(Ty::FLOAT)),
        _ if name.starts_with("CUDART_") => Some(Value::arb(Ty::FLOAT)),
        _ => None,
    }
}

/// `threadIdx`, `blockIdx`, ... as a `uint3` of the builtin `b` in each dimension.
pub(in crate::lower) fn dim3(b: fn(Dim) -> Builtin) -> Value {
    let ty = vector_type("uint3").expect("uint3 is a vector type");
    Value {
        v: V::Struct(
            Dim::ALL
                .iter()
                .map(|d| Value::int(Expr::Builtin(b(*d)), Ty::UINT))
                .collect(),
        ),
        ty,
    }
}

impl<'p, 't> Lowerer<'p, 't> {
    /// Whether `name` means nothing the front end knows here (no variable, constant,
    /// enumerator or function: a macro of a header that was not read?).
    pub(in crate::lower) fn names_nothing(&mut self, name: &str, n: Node<'t>) -> R<bool> {
        Ok(matches!(self.name(name, n)?, Ref::V(Value { ty: Ty::Opaque(t), .. }) if t == name))
    }

    /// What a name means here.
    pub(super) fn name(&mut self, name: &str, n: Node<'t>) -> R<Ref> {
        if self.visible_lambda(name).is_some() {
            return Err(self.unsupported(
                n,
                "a lambda used other than by calling it",
                "call it where it is defined",
            ));
        }
        if let Some(v) = self.lookup(name) {
            return Ok(Ref::L(LVal::Var(v)));
        }
        if let Some(Binding::Value(e)) = self.binding(name) {
            return Ok(Ref::V(Value::int(e, Ty::INT)));
        }
        if let Some(lv) = self.member(name, n)? {
            return Ok(Ref::L(lv));
        }
        let builtin = dim3;
        let v = match name {
            "threadIdx" => builtin(Builtin::Tid),
            "blockIdx" => builtin(Builtin::Bid),
            "blockDim" => builtin(Builtin::Bdim),
            "gridDim" => builtin(Builtin::Gdim),
            "warpSize" => Value::int(Expr::Int(32), Ty::INT),
            "NULL" => null(),
            _ => {
                if let Some(v) = self.enumerator(name, 0) {
                    return Ok(Ref::V(Value::int(Expr::Int(v), Ty::INT)));
                }
                if let Some(lv) = self.global(name, n)? {
                    return Ok(Ref::L(lv));
                }
                if let Some(f) = self.function_value(name) {
                    return Ok(Ref::V(f)); // a function pointer (`call::fnptr`)
                }
                if let Some(c) = known_constant(name) {
                    return Ok(Ref::V(c));
                }
                self.undeclared_in_incomplete_file(name, n)?;
                self.note(format!(
                    "`{name}` is not defined in this file (a macro or constant from a header that was not \
                     read?): its value is taken as arbitrary"
                ));
                Value::arb(Ty::Opaque(name.to_string()))
            }
        };
        Ok(Ref::V(v))
    }

    /// The value of an enumerator.
    /// The value of the enumerator `name`, when the front end can evaluate it.
    pub fn enumerator_value(&mut self, name: &str) -> Option<i64> {
        self.enumerator(name, 0)
    }

    pub(super) fn enumerator(&mut self, name: &str, depth: usize) -> Option<i64> {
        let (value, prev) = self.prog.enumerators.get(name).cloned()?;
        if depth > 64 {
            return None;
        }
        match value {
            Some(v) => self.const_eval(v),
            None => match prev {
                Some(p) => self.enumerator(&p, depth + 1).map(|x| x + 1),
                None => Some(0),
            },
        }
    }

    /// A field of `this` inside a method.
    pub(super) fn member(&mut self, name: &str, n: Node<'t>) -> R<Option<LVal>> {
        let (Some(this), Some(ty)) = (self.frame().this.clone(), self.frame().this_ty.clone()) else {
            return Ok(None);
        };
        if !ty.fields.iter().any(|(f, _)| f == name) {
            return Ok(None);
        }
        self.field_of(this, name, n).map(Some)
    }

    /// `T::name` for a struct type `T` with a static constant `name` (`x128::size`,
    /// `Packed128<float>::size`).
    pub(super) fn scoped_constant(&mut self, n: Node<'t>) -> Option<Value> {
        let scope = n.child_by_field_name("scope")?;
        let name = n.child_by_field_name("name")?;
        if name.kind() != "identifier" {
            return None;
        }
        let ty: Ty = match scope.kind() {
            "template_type" => self.base_type(scope).ok()?,
            // The parser reads `x128::size` with a namespace as scope: a type only if
            // the file (or the template being instantiated) names one so.
            "namespace_identifier" | "type_identifier" => {
                let t = self.text(scope);
                if self.prog.aliases.contains_key(t) && !self.prog.alias_is_unique(t) {
                    // Declared more than once (in a function, in namespaces): which one
                    // this is, autosync does not resolve.
                    return Some(Value::arb(Ty::INT));
                }
                let known = self.prog.aliases.contains_key(t)
                    || self.prog.structs_by_name.contains_key(t)
                    || self.lookup_alias(t).is_some()
                    || matches!(self.binding(t), Some(Binding::Type(_)));
                if !known {
                    return None;
                }
                match self.binding(t) {
                    Some(Binding::Type(ty)) => ty,
                    _ => self.named_type_of_text(t).ok()?,
                }
            }
            _ => return None,
        };
        // A struct's member that is not one of its constants (inherited, not evaluable,
        // not `const`): arbitrary, never another variable of that name.
        let st = ty.as_struct()?;
        let k = st.constant(self.text(name));
        let own_enumerator = st
            .def
            .is_some_and(|d| declares_enumerator(self.prog.structs[d].node, self.text(name), self.prog.src));
        if k.is_none() && own_enumerator {
            return None; // an enumerator of an enum inside the struct
        }
        Some(k.map_or(Value::arb(Ty::INT), |k| Value::int(Expr::Int(k), Ty::INT)))
    }
}
