//! Lambdas in device code: `auto step = [&](int t2) { ... };` and then `step(t2)`,
//! as llm.c's attention kernels write the repeated part of a loop.
//!
//! A lambda that captures by reference (`[&]`, `[&x, &y]`, `this`) or captures
//! nothing (`[]`) is inlined where it is called, in the frame of the function that
//! defines it, with a scope of its own for its parameters and locals: a captured name
//! is the variable itself, which is what a reference capture means. That holds only if
//! each name the body uses still means, at the call, what it meant at the definition
//! (the same variable, lambda and local type: a function's or a global's name means
//! the same everywhere unless one of these hides it); [`Lowerer::call_lambda`] checks
//! it and the call is unsupported otherwise.
//! Unsupported as before: captures by copy (`[=]`, `[x]`, `[x = e]`, whose values are
//! those at the definition), generic lambdas (`auto` parameters), a lambda used other
//! than by calling it (passed to a function, copied, stored), and one defined other
//! than as the initializer of a local.

use tree_sitter::Node;

use super::super::expr::arbitrary;
use super::super::stmt::assigned_names;
use super::super::{Frame, LVal, Lowerer, R, Ret, Value, VarId};
use crate::program::named_children;
use crate::types::Ty;

/// A lambda a local names: where its expression is, and what each name its body uses
/// meant where it was defined.
#[derive(Clone, Debug)]
pub(in crate::lower) struct LambdaDef {
    start: usize,
    end: usize,
    names: Vec<(String, Meaning)>,
}

/// What a name means at one point of a function: the variable, the lambda (by where
/// its expression starts) and the local type alias it names there, if any. A name
/// that is none of these is the same function, global or type everywhere in the
/// function.
#[derive(Clone, Debug, PartialEq)]
struct Meaning {
    var: Option<VarId>,
    lambda: Option<usize>,
    alias: Option<Ty>,
}

impl<'p, 't> Lowerer<'p, 't> {
    /// `auto name = [&](...) { ... };`: records the lambda for the calls of `name` in
    /// this scope, or says why it cannot be followed.
    pub(in crate::lower) fn define_lambda(&mut self, name: &str, lambda: Node<'t>) -> R<()> {
        if let Some(c) = lambda.child_by_field_name("captures") {
            for capture in named_children(c) {
                let t = self.text(capture).trim();
                if !(t.starts_with('&') && !t.contains('=') || t == "this" || capture.kind() == "comment") {
                    return Err(self.unsupported(
                        capture,
                        "a lambda that captures by copy",
                        "capture by reference (`[&]`): autosync inlines the lambda where it is called",
                    ));
                }
            }
            // `[=]` has no named child: the default capture is a token.
            let text = self.text(c);
            let inner = text.trim_start_matches('[').trim_end_matches(']').trim();
            if inner.starts_with('=') {
                return Err(self.unsupported(
                    c,
                    "a lambda that captures by copy",
                    "capture by reference (`[&]`): autosync inlines the lambda where it is called",
                ));
            }
        }
        // Its parameters mean themselves wherever it is called; every other name is
        // checked at each call.
        let params: Vec<String> = lambda
            .child_by_field_name("declarator")
            .and_then(|d| d.child_by_field_name("parameters"))
            .map(named_children)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|p| {
                crate::program::declarator_name(p.child_by_field_name("declarator")?, self.prog.src)
            })
            .collect();
        let mut names = Vec::new();
        let mut stack = vec![lambda];
        while let Some(n) = stack.pop() {
            if matches!(
                n.kind(),
                "identifier" | "type_identifier" | "namespace_identifier"
            ) {
                let x = self.text(n).to_string();
                if !params.contains(&x) && names.iter().all(|(y, _)| *y != x) {
                    let meaning = self.meaning(&x);
                    names.push((x, meaning));
                }
            }
            stack.extend(named_children(n));
        }
        let def = LambdaDef {
            start: lambda.start_byte(),
            end: lambda.end_byte(),
            names,
        };
        self.add_lambda(name, def);
        Ok(())
    }

    /// Inlines a call of the lambda `def`, which local `name` names, with arguments
    /// `args` at `n`.
    pub(in crate::lower) fn call_lambda(
        &mut self,
        name: &str,
        def: LambdaDef,
        args: &[Node<'t>],
        n: Node<'t>,
    ) -> R<Value> {
        let lambda = node_at(n, def.start, def.end, "lambda_expression")
            .ok_or_else(|| self.unsupported(n, "a lambda autosync could not find again", ""))?;
        for (x, meaning) in &def.names {
            if self.meaning(x) != *meaning {
                return Err(self.unsupported(
                    n,
                    &format!("a lambda called where `{x}` means something else than where it is defined"),
                    "rename one of them",
                ));
            }
        }
        let declarator = lambda.child_by_field_name("declarator");
        let params: Vec<Node<'t>> = declarator
            .and_then(|d| d.child_by_field_name("parameters"))
            .map(named_children)
            .unwrap_or_default()
            .into_iter()
            .filter(|p| p.kind().ends_with("parameter_declaration"))
            .collect();
        if params.iter().any(|p| {
            p.child_by_field_name("type")
                .is_some_and(|t| t.kind() == "placeholder_type_specifier" || self.text(t) == "auto")
        }) {
            return Err(self.unsupported(
                n,
                "a generic lambda (`auto` parameters)",
                "give its parameters types",
            ));
        }
        if params.len() != args.len() {
            return Err(self.unsupported(n, "a lambda called with the wrong number of arguments", ""));
        }
        let body = lambda
            .child_by_field_name("body")
            .ok_or_else(|| self.unsupported(n, "a lambda without a body", ""))?;
        // A trailing return type, else the type of what `return` gives.
        let ret_ty = match declarator.and_then(|d| {
            named_children(d)
                .into_iter()
                .find(|c| c.kind() == "trailing_return_type")
        }) {
            Some(t) => {
                let d = named_children(t)
                    .into_iter()
                    .find(|c| c.kind() == "type_descriptor")
                    .ok_or_else(|| self.unsupported(t, "a lambda's return type", ""))?;
                Some(self.type_descriptor(d)?)
            }
            None => None,
        };
        if self.frames.len() > 48 {
            return Err(self.unsupported(n, "calls nested too deeply", ""));
        }
        let argv = self.call_arguments(&params, args)?;
        let several_returns = super::returns_early(body);
        let returns_value = {
            let mut stack = vec![body];
            let mut found = false;
            while let Some(x) = stack.pop() {
                if x.kind() == "return_statement" && !named_children(x).is_empty() {
                    found = true;
                }
                if x.kind() != "lambda_expression" {
                    stack.extend(named_children(x));
                }
            }
            found
        };
        if several_returns && returns_value && ret_ty.is_none() {
            return Err(self.unsupported(
                n,
                "a lambda returning a value from more than one `return`",
                "give it a return type (`-> float`) or return from one place",
            ));
        }
        // The call, for reports: the body's accesses are shown where they are written,
        // "in `step`, called at line N".
        let call = self.record_callee(name.to_string(), n);
        let outer = self.frame();
        let mut assigned = outer.assigned.clone();
        assigned.extend(assigned_names(self.prog, body));
        let frame = Frame {
            func: outer.func,
            bindings: outer.bindings.clone(),
            this: outer.this.clone(),
            this_ty: outer.this_ty.clone(),
            ret: Ret::Last,
            loops: 0,
            assigned,
            // The body sees the defining function's locals: its captures.
            scope_base: outer.scope_base,
            placeable: false,
            ret_value: None,
            ret_place: None,
            returns_ref: false,
            call: Some(call),
        };
        self.frames.push(frame);
        self.push_scope();
        let r = (|| -> R<Value> {
            self.bind_args(&params, argv, n)?;
            if several_returns {
                let span = self.span(n);
                let done = self.mutable_local("lambda_done", Some(kpl::ir::Expr::Int(0)), span);
                let result = match &ret_ty {
                    Some(t) if *t != Ty::Void => Some(self.new_var("lambda_ret", t, span)?),
                    _ => None,
                };
                self.frame_mut().ret = Ret::Flag { done, result };
            }
            self.compound_items(body)?;
            Ok(match self.frame().ret.clone() {
                Ret::Flag { result: Some(r), .. } => self.read(&LVal::Var(r), n)?,
                Ret::Flag { result: None, .. } => Value::void(),
                _ => match (self.frame_mut().ret_value.take(), &ret_ty) {
                    (Some(v), Some(t)) => self.convert(v, t, n)?,
                    (Some(v), None) => v,
                    (None, Some(t)) => arbitrary(t),
                    (None, None) => Value::void(),
                },
            })
        })();
        self.pop_scope();
        self.frames.pop();
        r
    }
}

impl Lowerer<'_, '_> {
    /// What `x` means here ([`Meaning`]).
    fn meaning(&self, x: &str) -> Meaning {
        Meaning {
            var: self.lookup(x),
            lambda: self.visible_lambda(x).map(|d| d.start),
            alias: self.lookup_alias(x),
        }
    }
}

/// The node of `kind` spanning bytes `start..end` of the tree that holds `any`.
fn node_at<'t>(any: Node<'t>, start: usize, end: usize, kind: &str) -> Option<Node<'t>> {
    let mut root = any;
    while let Some(p) = root.parent() {
        root = p;
    }
    let mut cur = root.descendant_for_byte_range(start, end);
    while let Some(x) = cur {
        if x.kind() == kind && x.start_byte() == start && x.end_byte() == end {
            return Some(x);
        }
        cur = x
            .parent()
            .filter(|p| p.start_byte() == start && p.end_byte() == end);
    }
    None
}
