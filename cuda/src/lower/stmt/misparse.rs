//! Declarations tree-sitter-cuda reads as expressions: `cg::thread_block_tile<32> t = ...;`
//! (a qualified template type) parses as `(cg::thread_block_tile < 32) > (t = ...)`.

use tree_sitter::Node;

use crate::lower::{Lowerer, R, VarKind};
use crate::program::last_name;
use crate::types::Ty;

/// Template types of the cooperative groups API that are declared with a scope
/// (`cg::`, `cooperative_groups::`) in real code.
const TEMPLATE_TYPES: &[&str] = &["thread_block_tile"];

impl<'t> Lowerer<'_, 't> {
    /// Lowers `e` as the declaration it stands for if it is the misparse of
    /// `ns::thread_block_tile<N> name = init;` (true), else does nothing (false).
    pub(in crate::lower) fn misparsed_declaration(&mut self, e: Node<'t>) -> R<bool> {
        let field = |n: Node<'t>, f: &str| n.child_by_field_name(f);
        let op = |n: Node<'t>| field(n, "operator").map(|o| self.text(o));
        if e.kind() != "binary_expression" || op(e) != Some(">") {
            return Ok(false);
        }
        let (Some(lt), Some(rest)) = (field(e, "left"), field(e, "right")) else {
            return Ok(false);
        };
        if lt.kind() != "binary_expression" || op(lt) != Some("<") {
            return Ok(false);
        }
        let Some(ty_name) = field(lt, "left") else {
            return Ok(false);
        };
        if ty_name.kind() != "qualified_identifier"
            || !TEMPLATE_TYPES.contains(&last_name(ty_name, self.prog.src).as_str())
        {
            return Ok(false);
        }
        let (var, init) = match rest.kind() {
            "identifier" => (rest, None),
            "assignment_expression" if op(rest) == Some("=") => match field(rest, "left") {
                Some(v) if v.kind() == "identifier" => (v, field(rest, "right")),
                _ => return Ok(false),
            },
            _ => return Ok(false),
        };
        let name = self.text(var).to_string();
        if self.lookup(&name).is_some() {
            return Ok(false); // a comparison after all
        }
        // The type as written, from the scope to the closing `>`.
        let ty_text = self
            .prog
            .src
            .get(ty_name.start_byte()..rest.start_byte())
            .unwrap_or_default()
            .trim();
        let declared = Ty::Opaque(ty_text.to_string());
        let assigned = self.assigned_besides(&name, rest);
        let ty = match self.init_value(init, &declared)? {
            Some(v) if !assigned => crate::lower::builtins::refine_group(&declared, &v.ty),
            _ => declared,
        };
        self.add_var(&name, ty, VarKind::Arb);
        Ok(true)
    }

    /// Whether the current function assigns `name` other than in the misparsed
    /// declaration `decl` (which tree-sitter reads as an assignment).
    fn assigned_besides(&self, name: &str, decl: Node<'t>) -> bool {
        let Some(body) = self.frame().func.and_then(|f| self.prog.funcs[f].body) else {
            return true;
        };
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(crate::program::named_children(n));
            if n.id() == decl.id() {
                continue;
            }
            let target = match n.kind() {
                "assignment_expression" | "update_expression" => n
                    .child_by_field_name("left")
                    .or_else(|| n.child_by_field_name("argument")),
                "pointer_expression" if self.text(n).trim_start().starts_with('&') => {
                    n.child_by_field_name("argument")
                }
                _ => None,
            };
            if target.is_some_and(|t| self.text(t) == name) {
                return true;
            }
        }
        false
    }
}
