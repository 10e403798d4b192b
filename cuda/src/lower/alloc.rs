//! Dynamic allocation in device code ([modern] class 7): `malloc(n)`, `new T`,
//! `new T[n]` give the thread memory of its own, freshly allocated, and `free`/`delete`
//! give it back.
//!
//! The memory is a private array of the allocation site (`ArrayKey::Heap`): reads of it
//! are arbitrary values and writes to it are no accesses another thread can race with.
//! That is sound because no other thread can reach it: a pointer stays in the thread's
//! own variables (a pointer loaded from memory, the only way to hand it to another
//! thread, is unsupported). What `new` would run besides the allocation is not
//! modelled, so `new` and `delete` of a struct of the file with a constructor or
//! destructor are unsupported, as are placement `new` and the device runtime's
//! `cudaMalloc`.

use tree_sitter::Node;

use super::{ArrayKey, ArraySpace, Lowerer, Ptr, R, Target, V, Value};
use crate::program::named_children;
use crate::types::Ty;

impl<'p, 't> Lowerer<'p, 't> {
    /// A pointer to fresh memory of this thread, of the allocation at `n`, to `ty`.
    fn fresh_memory(&mut self, ty: Ty, n: Node<'t>) -> Value {
        let unit = match &ty {
            // `malloc` memory is aligned for every type: a pointer of any element size
            // may take it.
            Ty::Void => 16,
            t => u32::try_from(t.size_of()).unwrap_or(16).max(1),
        };
        let a = self.array(ArrayKey::Heap(n.start_byte()), "heap", ArraySpace::Private, 1);
        Value {
            v: V::Ptr(Ptr {
                target: Target::Array(a),
                off: kpl::ir::Expr::Int(0),
                unit,
            }),
            ty: Ty::ptr(ty),
        }
    }

    /// `malloc(n)` (its size evaluated for its effects) and `free(p)`.
    pub(super) fn malloc_call(&mut self, name: &str, args: &[Node<'t>], n: Node<'t>) -> R<Value> {
        self.eval_args(args)?;
        Ok(match name {
            "free" => Value::arb(Ty::Void),
            _ => self.fresh_memory(Ty::Void, n),
        })
    }

    /// `new T`, `new T(args)`, `new T{args}`, `new T[n]`.
    pub(super) fn new_expression(&mut self, n: Node<'t>) -> R<Value> {
        if n.child_by_field_name("placement").is_some() {
            return Err(self.unsupported(n, "placement `new`", ""));
        }
        let ty_node = n
            .child_by_field_name("type")
            .ok_or_else(|| self.unsupported(n, "`new` expression", ""))?;
        let ty = self.base_type(ty_node)?;
        self.check_trivial(&ty, "new", n)?;
        // The array size and the initializer, for their effects.
        for part in ["declarator", "arguments"] {
            if let Some(p) = n.child_by_field_name(part) {
                for e in named_children(p) {
                    self.rvalue(e)?;
                }
            }
        }
        Ok(self.fresh_memory(ty, n))
    }

    /// `delete p`, `delete[] p`.
    pub(super) fn delete_expression(&mut self, n: Node<'t>) -> R<Value> {
        if let Some(p) = named_children(n).into_iter().last() {
            let v = self.rvalue(p)?;
            if let Ty::Ptr(t) = &v.ty {
                self.check_trivial(t, "delete", n)?;
            }
        }
        Ok(Value::arb(Ty::Void))
    }

    /// `new`/`delete` of a struct of the file would run its constructor or destructor,
    /// which is not modelled: unsupported when it may have code (its own constructor or
    /// destructor, a default member initializer, a base class), or a member that may.
    fn check_trivial(&mut self, ty: &Ty, what: &str, n: Node<'t>) -> R<()> {
        let mut stack = vec![ty.clone()];
        while let Some(t) = stack.pop() {
            match t {
                Ty::Struct(s) => {
                    if let Some(d) = s.def {
                        let base = self.prog.structs[d].name.clone();
                        let special = [base.clone(), format!("~{base}")]
                            .iter()
                            .any(|m| !self.methods_named(d, m).is_empty())
                            || has_initializers_or_bases(self.prog.structs[d].node);
                        if special {
                            return Err(self.unsupported(
                                n,
                                &format!(
                                    "`{what}` of `{base}`, whose constructor or destructor (or a member \
                                     initializer or base class) is not modelled"
                                ),
                                "",
                            ));
                        }
                    }
                    stack.extend(s.fields.iter().map(|(_, f)| f.clone()));
                }
                Ty::Array(e, _) => stack.push(*e),
                Ty::Opaque(name) => {
                    return Err(self.unsupported(
                        n,
                        &format!("`{what}` of `{name}`, a type the front end does not know"),
                        "",
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Whether a struct definition has a base class or a default member initializer
/// (`int id = next++;`): code its construction runs.
fn has_initializers_or_bases(def: Node) -> bool {
    let body = def.child_by_field_name("body");
    named_children(def)
        .iter()
        .any(|c| c.kind() == "base_class_clause")
        || body.is_some_and(|b| {
            named_children(b).iter().any(|f| {
                f.kind() == "field_declaration"
                    && (f.child_by_field_name("default_value").is_some()
                        || named_children(*f)
                            .iter()
                            .any(|x| matches!(x.kind(), "initializer_list" | "init_declarator")))
            })
        })
}
