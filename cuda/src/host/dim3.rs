//! The three components of a launch's `dim3` sizes: constructors, integers, `dim3`
//! variables and parameters, and the `gridDim`/`blockDim` fields of a
//! `cudaLaunchConfig_t` (with whether it asks for a cooperative launch).

use kpl::Expr;
use tree_sitter::Node;

use crate::preprocess::int_literal;
use crate::program::named_children;

use super::launch_layer::atom;
use super::syntax::{
    declared_name, declares_node, function_key, in_lambda, is_dim3_declaration, param_name,
    plain_assignment_to,
};
use super::{Env, MAX_DEPTH, Reader, Val};

impl<'t> Reader<'_, 't> {
    /// The three components of a `dim3` expression: `dim3(a, b)`, an integer, a `dim3`
    /// variable (`dim3 t(a, b)`, `dim3 t = {a, b}`, `dim3 t = dim3(a, b)`) or parameter.
    pub(super) fn dim3(&self, f: usize, e: Node<'t>, env: &Env) -> [Val; 3] {
        let unknown = [None, None, None];
        if env.depth > 3 * MAX_DEPTH {
            return unknown;
        }
        match e.kind() {
            "parenthesized_expression" => match named_children(e).first() {
                Some(i) => self.dim3(f, *i, env),
                None => unknown,
            },
            "call_expression" | "initializer_list" | "compound_literal_expression"
                if self.is_dim3_constructor(e) =>
            {
                let list = if e.kind() == "initializer_list" {
                    Some(e)
                } else {
                    e.child_by_field_name("arguments")
                        .or_else(|| e.child_by_field_name("value"))
                };
                let parts: Vec<Node> = list
                    .map(named_children)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .collect();
                self.components(f, &parts, env)
            }
            "identifier" => {
                let x = self.text(e);
                let local = self.local_declaration(f, e, x);
                // A range-`for` variable nearer than any declaration: an integer.
                if self.range_for_in_scope(f, e, x, local).is_some() {
                    return self.scalar_dim3(f, e, env);
                }
                if local.is_none()
                    && (self.declared_in_a_scope_not_followed(f, e, x) || self.unbound_reference(f, x, env))
                {
                    return unknown;
                }
                if local.is_none() && env.bindings.contains_key(&format!("{x}.x")) {
                    if self.assigned(f, x) {
                        // An integer parameter may be assigned a value that is
                        // followed ([`Reader::scalar`]); a `dim3` one is not.
                        let dim3 = self.prog.funcs[f]
                            .params()
                            .into_iter()
                            .find(|p| param_name(self.prog, *p).as_deref() == Some(x))
                            .is_none_or(|p| self.text(p).contains("dim3"));
                        if dim3 {
                            return unknown;
                        }
                        return self.scalar_dim3(f, e, env);
                    }
                    return ["x", "y", "z"].map(|c| env.bindings.get(&format!("{x}.{c}")).cloned().flatten());
                }
                if let Some(decl) = local
                    && is_dim3_declaration(self.prog, decl)
                {
                    return self.dim3_variable(f, decl, e, x, env);
                }
                let def = &self.prog.funcs[f];
                if let Some(p) = def
                    .params()
                    .into_iter()
                    .filter(|_| local.is_none())
                    .find(|p| param_name(self.prog, *p).as_deref() == Some(x))
                    && self.text(p).contains("dim3")
                {
                    if self.assigned(f, x) {
                        return unknown;
                    }
                    return ["x", "y", "z"]
                        .map(|c| Some(atom(&function_key(self.prog, f), &format!("{x}.{c}"))));
                }
                self.scalar_dim3(f, e, env)
            }
            _ => self.scalar_dim3(f, e, env),
        }
    }

    /// An integer `e` as a `dim3`: `dim3(e, 1, 1)`, as C++ converts it.
    fn scalar_dim3(&self, f: usize, e: Node<'t>, env: &Env) -> [Val; 3] {
        [self.scalar(f, e, env), Some(Expr::Int(1)), Some(Expr::Int(1))]
    }

    fn is_dim3_constructor(&self, e: Node<'t>) -> bool {
        match e.kind() {
            "initializer_list" => true,
            _ => e
                .child_by_field_name("function")
                .or_else(|| e.child_by_field_name("type"))
                .is_some_and(|t| self.text(t) == "dim3"),
        }
    }

    fn components(&self, f: usize, parts: &[Node<'t>], env: &Env) -> [Val; 3] {
        std::array::from_fn(|i| match parts.get(i) {
            Some(p) => self.scalar(f, *p, env),
            None => Some(Expr::Int(1)),
        })
    }

    /// A `dim3` local: its declaration's components, each replaced by the one
    /// assignment `t.x = e` made to it, if any; unknown when assigned as a whole or
    /// more than once.
    fn dim3_variable(&self, f: usize, decl: Node<'t>, at: Node<'t>, x: &str, env: &Env) -> [Val; 3] {
        let mut d = [Some(Expr::Int(1)), Some(Expr::Int(1)), Some(Expr::Int(1))];
        if let Some(declarator) = named_children(decl)
            .into_iter()
            .find(|c| declares_node(self.prog, *c, x))
        {
            match declarator.kind() {
                // `dim3 t(a, b);` read as a function declaration (C++'s vexing parse):
                // the arguments are names or numbers.
                "function_declarator" => {
                    let params = declarator
                        .child_by_field_name("parameters")
                        .map(named_children)
                        .unwrap_or_default();
                    for (i, p) in params.iter().take(3).enumerate() {
                        let t = self.text(*p).trim();
                        d[i] = match int_literal(t) {
                            Some(v) => Some(Expr::Int(v)),
                            None => self.name(f, *p, t, env),
                        };
                    }
                }
                "init_declarator" => {
                    if let Some(v) = declarator.child_by_field_name("value") {
                        let parts: Vec<Node> = match v.kind() {
                            "argument_list" | "initializer_list" => named_children(v),
                            _ => return self.dim3(f, v, env),
                        };
                        let parts: Vec<Node> = parts.into_iter().filter(|c| c.kind() != "comment").collect();
                        d = self.components(f, &parts, env);
                    }
                }
                _ => {}
            }
        }
        // Field assignments: `t.x = e;` as a statement of the declaration's block,
        // before `at`, the last one for each field. Any other change leaves the
        // components unknown: the whole variable's when it is assigned as a whole or
        // may change unseen (a reference, a by-reference argument), one field's when
        // that field is assigned any other way (`t.x *= 2`, under an `if`).
        let Some(body) = self.prog.funcs[f].body else {
            return [None, None, None];
        };
        // A `static` keeps the last call's value: no assignment is followed there.
        let storage_static = self.is_static(decl);
        // A lambda runs later than it is written: no assignment is followed into it.
        let in_lambda = in_lambda(at, body);
        let block = decl
            .parent()
            .filter(|b| b.kind() == "compound_statement" && !storage_static && !in_lambda);
        let mut last: [Option<usize>; 3] = [None; 3];
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() == "goto_statement" || (n.kind() == "identifier" && self.text(n) == "setjmp") {
                return [None, None, None]; // a jump back could bring a later assignment
            }
            if n.kind() != "identifier" || self.text(n) != x || declared_name(n) || self.read_only_use(n) {
                continue;
            }
            // `t.x = e` (`x`, `y` or `z`), else a change of the whole.
            let field = n.parent().filter(|p| {
                p.kind() == "field_expression"
                    && p.child_by_field_name("argument")
                        .is_some_and(|a| a.id() == n.id())
            });
            let Some((fe, i)) = field.and_then(|fe| {
                let name = self.text(fe.child_by_field_name("field")?);
                Some((fe, ["x", "y", "z"].iter().position(|c| *c == name)?))
            }) else {
                return [None, None, None];
            };
            let assignment = plain_assignment_to(self.prog, fe);
            let stmt = assignment
                .and_then(|a| a.parent())
                .filter(|st| st.kind() == "expression_statement")
                .filter(|st| block.is_some_and(|b| st.parent().is_some_and(|p| p.id() == b.id())));
            match (stmt, assignment.and_then(|a| a.child_by_field_name("right"))) {
                (Some(st), Some(v)) if st.end_byte() <= at.start_byte() => {
                    if last[i].is_none_or(|l| l < st.start_byte()) {
                        last[i] = Some(st.start_byte());
                        d[i] = self.scalar(f, v, env);
                    }
                }
                // After the use, in the declaration's own block: it cannot reach it.
                (Some(st), Some(_)) if st.start_byte() >= at.end_byte() => {}
                _ => {
                    last[i] = Some(usize::MAX);
                    d[i] = None;
                }
            }
        }
        d
    }

    /// `config.gridDim` of a `cudaLaunchConfig_t config` local: its one assignment.
    pub(super) fn struct_field_dim3(
        &self,
        f: usize,
        cfg: Node<'t>,
        field: &str,
        at: Node<'t>,
        env: &Env,
    ) -> [Val; 3] {
        let unknown = [None, None, None];
        let name = self.text(cfg);
        let (Some(body), Some(decl)) = (self.prog.funcs[f].body, self.local_declaration(f, at, name)) else {
            return unknown;
        };
        let Some(block) = decl.parent().filter(|b| b.kind() == "compound_statement") else {
            return unknown;
        };
        // The last `cfg.field = v;` statement of the declaration's block before the
        // launch; any other change of the configuration (a field of the field, a
        // pointer or reference to it, a call that gets it) leaves it unknown.
        let mut value = None;
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() == "goto_statement" || n.kind() == "lambda_expression" {
                return unknown;
            }
            if n.kind() != "identifier" || self.text(n) != name || declared_name(n) {
                continue;
            }
            let Some(p) = n.parent() else { return unknown };
            // `&cfg` given to a launch, which only reads it.
            let launched = p.kind() == "pointer_expression"
                && p.parent()
                    .and_then(|l| l.parent())
                    .and_then(|c| c.child_by_field_name("function"))
                    .is_some_and(|c| self.text(c) == "cudaLaunchKernelEx");
            if launched {
                continue;
            }
            let assigned_field = (p.kind() == "field_expression")
                .then(|| {
                    let fe = p;
                    let fld = self.text(fe.child_by_field_name("field")?);
                    let a = plain_assignment_to(self.prog, fe)?;
                    Some((fld, a))
                })
                .flatten();
            match assigned_field {
                Some((fld, _)) if fld != field => {} // another field
                Some((_, a)) => {
                    let stmt = a.parent().filter(|st| {
                        st.kind() == "expression_statement"
                            && st.parent().is_some_and(|b| b.id() == block.id())
                    });
                    match stmt {
                        Some(st) if st.end_byte() <= at.start_byte() => {
                            if value.is_none_or(|(start, _)| start < st.start_byte()) {
                                value = a.child_by_field_name("right").map(|v| (st.start_byte(), v));
                            }
                        }
                        Some(st) if st.start_byte() >= at.end_byte() => {}
                        _ => return unknown,
                    }
                }
                None if self.read_only_use(n) => {}
                None => return unknown,
            }
        }
        match value {
            Some((_, v)) => self.dim3(f, v, env),
            None => unknown,
        }
    }

    /// Whether a launch configuration gets `cudaLaunchAttributeCooperative`.
    /// Read conservatively (a cooperative launch lets a grid sync order the blocks):
    /// the function makes this one `cudaLaunchKernelEx` call, names
    /// `cudaLaunchAttributeCooperative`, sets `.cooperative` to 1 or `true` and never to
    /// anything else.
    pub(super) fn config_is_cooperative(&self, f: usize, _cfg: Node<'t>) -> bool {
        let Some(body) = self.prog.funcs[f].body else {
            return false;
        };
        let text: String = self.text(body).split_whitespace().collect();
        let sets: Vec<&str> = text
            .split(".cooperative=")
            .skip(1)
            .map(|rest| rest.split([';', ',', '}']).next().unwrap_or(""))
            .collect();
        text.matches("cudaLaunchKernelEx(").count() == 1
            && text.contains("cudaLaunchAttributeCooperative")
            && !sets.is_empty()
            && sets.iter().all(|v| matches!(*v, "1" | "true"))
    }
}
