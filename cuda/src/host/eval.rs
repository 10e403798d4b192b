//! The evaluator of host expressions: scalars, names, template arguments, struct
//! constants and inlined host helpers to KPL expressions over atoms, and the `if`,
//! `switch` and `assert` conditions around a launch.

use kpl::{BinOp, Expr, UnOp};
use tree_sitter::Node;

use crate::lower::expr::binop;
use crate::preprocess::int_literal;
use crate::program::named_children;

use super::launch_layer::{atom, fold};
use super::scope::{Reaching, plain_condition};
use super::syntax::{
    callee_name, declares_node, declares_reference, function_key, has_jump_into_branches, initializer,
    integer_type, is_const, local_key, narrow_or_floating, param_name, size_of, split_template_args,
};
use super::{
    Env, MAX_DEPTH, Reader, TemplateArg, Val, host_template_parameters, mentions_host_template_parameter,
};

impl<'t> Reader<'_, 't> {
    /// The conditions of the `if`s around `at` inside function `f` (negated in an else
    /// branch) and the `assert(c)`s before it in the blocks around it.
    pub(super) fn path_conditions(&self, f: usize, at: Node<'t>, env: &Env) -> Vec<Expr> {
        let mut out = Vec::new();
        // A jump into a branch (`goto`, a `case` label nested in another case's
        // statements) reaches the launch without its conditions.
        if self.prog.funcs[f].body.is_some_and(|b| has_jump_into_branches(b)) {
            return out;
        }
        let mut child = at;
        let mut up = at.parent();
        while let Some(p) = up {
            if p.kind() == "function_definition" {
                break;
            }
            if p.kind() == "if_statement"
                && let Some(cond) = p.child_by_field_name("condition")
            {
                let inside_then = p
                    .child_by_field_name("consequence")
                    .is_some_and(|c| c.id() == child.id());
                let inside_else = p
                    .child_by_field_name("alternative")
                    .is_some_and(|c| c.id() == child.id());
                if inside_then || inside_else {
                    let cond = named_children(cond).into_iter().last().unwrap_or(cond);
                    if let Some(e) = self.scalar(f, cond, env) {
                        out.push(if inside_then {
                            e
                        } else {
                            Expr::Unary(UnOp::Not, Box::new(e))
                        });
                    }
                }
            }
            if p.kind() == "case_statement"
                && p.child_by_field_name("value")
                    .is_none_or(|v| v.id() != child.id())
                && let Some(e) = self.case_condition(f, p, env)
            {
                out.push(e);
            }
            if p.kind() == "compound_statement" {
                for s in named_children(p) {
                    if s.start_byte() >= child.start_byte() {
                        break;
                    }
                    if let Some(e) = self.assertion(f, s, env) {
                        out.push(e);
                    }
                }
            }
            child = p;
            up = p.parent();
        }
        out
    }

    /// What holds in the statements of `case` of a `switch`: the switch's value is the
    /// case's, or the value of a case before it that falls through into it (one whose
    /// statements do not end in `break`, `return`, `continue` or a `throw`). Nothing
    /// when a `default:` falls through into it, or the value is not read.
    fn case_condition(&self, f: usize, case: Node<'t>, env: &Env) -> Val {
        let body = case.parent()?;
        let switch = body.parent().filter(|s| s.kind() == "switch_statement")?;
        let cond = switch.child_by_field_name("condition")?;
        let cond = named_children(cond).into_iter().last().unwrap_or(cond);
        let v = self.scalar(f, cond, env)?;
        let cases: Vec<Node<'t>> = named_children(body)
            .into_iter()
            .filter(|c| c.kind() == "case_statement" && c.start_byte() <= case.start_byte())
            .collect();
        let mut values = Vec::new();
        for (i, c) in cases.iter().enumerate().rev() {
            let falls_through = |c: &Node<'t>| {
                let last = named_children(*c).into_iter().rfind(|s| {
                    s.kind() != "comment" && Some(s.id()) != c.child_by_field_name("value").map(|v| v.id())
                });
                !last.is_some_and(|s| {
                    matches!(
                        s.kind(),
                        "break_statement" | "return_statement" | "continue_statement" | "throw_statement"
                    ) || (s.kind() == "expression_statement"
                        && named_children(s)
                            .first()
                            .is_some_and(|e| e.kind() == "throw_expression"))
                })
            };
            if i + 1 < cases.len() && !falls_through(c) {
                break;
            }
            let value = c.child_by_field_name("value")?; // `default:` reaches it
            values.push(Expr::bin(BinOp::Eq, v.clone(), self.scalar(f, value, env)?));
        }
        values.into_iter().reduce(|a, b| Expr::bin(BinOp::Or, a, b))
    }

    /// `assert(c);` as a statement: `c`.
    fn assertion(&self, f: usize, s: Node<'t>, env: &Env) -> Val {
        let call = named_children(s)
            .into_iter()
            .next()
            .filter(|_| s.kind() == "expression_statement")?;
        if call.kind() != "call_expression" {
            return None;
        }
        let fun = call.child_by_field_name("function")?;
        if self.text(fun) != "assert" {
            return None;
        }
        let arg = *named_children(call.child_by_field_name("arguments")?).first()?;
        self.scalar(f, arg, env)
    }

    /// Template arguments `<...>` in function `f`, when every one is known in `env`.
    pub(super) fn template_args(&self, f: usize, list: Node<'t>, env: &Env) -> Option<Vec<TemplateArg>> {
        named_children(list)
            .into_iter()
            .filter(|a| a.kind() != "comment")
            .map(|a| self.template_arg(f, a, env))
            .collect()
    }

    /// One template argument: a constant, or a type or an expression that names no
    /// template parameter of the host code left unbound in `env`.
    pub(super) fn template_arg(&self, f: usize, a: Node<'t>, env: &Env) -> Option<TemplateArg> {
        // As written, for the front end to read at namespace scope: only when it names
        // no template parameter, local or parameter of the host code (which the front
        // end would not see, or would take for a global of the same name).
        let written = || {
            let mut stack = vec![a];
            while let Some(n) = stack.pop() {
                stack.extend(named_children(n));
                let x = self.text(n);
                if matches!(n.kind(), "identifier" | "type_identifier")
                    && (self.local_declaration(f, n, x).is_some()
                        || self.is_param(f, x)
                        || env.bindings.contains_key(x)
                        || self.declared_in_a_scope_not_followed(f, n, x))
                {
                    return None;
                }
            }
            (!mentions_host_template_parameter(self.prog, a))
                .then(|| self.text(a).split_whitespace().collect::<Vec<_>>().join(" "))
        };
        if a.kind() != "type_descriptor" {
            // `true`/`false` as written (the instance's name keeps them).
            if matches!(a.kind(), "true" | "false") {
                return written().map(TemplateArg::Written);
            }
            // As written only when it names no value the host code knows (`&maxOf`):
            // the front end would read such a name at namespace scope.
            let mut stack = vec![a];
            let mut names_value = self.text(a).contains("::");
            while let Some(n) = stack.pop() {
                stack.extend(named_children(n));
                let x = self.text(n);
                names_value |= n.kind() == "identifier"
                    && (self.prog.globals.contains_key(x)
                        || self.prog.enumerators.contains_key(x)
                        || self.defined_more_than_once(x));
            }
            return match self.scalar(f, a, env).map(|v| fold(&v)) {
                Some(Expr::Int(v)) => Some(TemplateArg::Value(v)),
                _ if names_value => None,
                _ => written().map(TemplateArg::Written),
            };
        }
        // `bs` alone parses as a type: it is a value when the host code has one by
        // that name (a local, a parameter, an enumerator, a global, a bound template
        // parameter).
        let plain = a
            .child_by_field_name("type")
            .filter(|t| t.kind() == "type_identifier" && a.child_by_field_name("declarator").is_none());
        if let Some(t) = plain {
            let x = self.text(t);
            // A template parameter of the host code's bound to a function of the file
            // (other templates may have a parameter of the same name).
            if host_template_parameters(self.prog, a).contains(x)
                && let Some((_, g)) = env.functions.iter().find(|(p, _)| p == x)
            {
                return Some(TemplateArg::Written(g.clone()));
            }
            let value = env.bindings.contains_key(x)
                || self.local_declaration(f, t, x).is_some()
                || self.is_param(f, x)
                || self.prog.enumerators.contains_key(x)
                || self.prog.globals.contains_key(x);
            if value || self.defined_more_than_once(x) {
                return match self.name(f, t, x, env).map(|v| fold(&v)) {
                    Some(Expr::Int(v)) => Some(TemplateArg::Value(v)),
                    _ => None,
                };
            }
            if let Some((_, ty)) = env.types.iter().find(|(p, _)| p == x) {
                return Some(TemplateArg::Type(ty.clone()));
            }
        }
        // `P::W`, `T::value` parse as types: a class's constant when the host code
        // evaluates one, else unknown (the front end would look the last name up at
        // namespace scope).
        if self.text(a).contains("::") {
            let inner = a.child_by_field_name("type").unwrap_or(a);
            return match self.scoped_constant(f, inner, env).map(|v| fold(&v)) {
                Some(Expr::Int(v)) => Some(TemplateArg::Value(v)),
                _ => None,
            };
        }
        // A type of the host template's is unknown unless bound above.
        written().map(TemplateArg::Type)
    }

    // ---- values --------------------------------------------------------------------

    /// An integer value of host expression `e` in function `f`.
    pub(super) fn scalar(&self, f: usize, e: Node<'t>, env: &Env) -> Val {
        if env.depth > 3 * MAX_DEPTH {
            return None;
        }
        let deeper = Env {
            depth: env.depth + 1,
            ..env.clone()
        };
        let r = |n: Node<'t>| self.scalar(f, n, &deeper);
        match e.kind() {
            "number_literal" => int_literal(self.text(e)).map(Expr::Int),
            "true" => Some(Expr::Int(1)),
            "false" => Some(Expr::Int(0)),
            "parenthesized_expression" => r(*named_children(e).first()?),
            "identifier" => self.name(f, e, self.text(e), env),
            "field_expression" => {
                let base = e.child_by_field_name("argument")?;
                let field = self.text(e.child_by_field_name("field")?);
                let i = ["x", "y", "z"].iter().position(|c| *c == field)?;
                self.dim3(f, base, &deeper)[i].clone()
            }
            "binary_expression" => {
                let op = binop(self.text(e.child_by_field_name("operator")?))?;
                let a = r(e.child_by_field_name("left")?)?;
                let b = r(e.child_by_field_name("right")?)?;
                Some(fold(&Expr::bin(op, a, b)))
            }
            "unary_expression" => {
                let op = match self.text(e.child_by_field_name("operator")?) {
                    "-" => UnOp::Neg,
                    "!" => UnOp::Not,
                    "~" => UnOp::BitNot,
                    "+" => return r(e.child_by_field_name("argument")?),
                    _ => return None,
                };
                Some(fold(&Expr::Unary(
                    op,
                    Box::new(r(e.child_by_field_name("argument")?)?),
                )))
            }
            "conditional_expression" => {
                let c = fold(&r(e.child_by_field_name("condition")?)?);
                match c {
                    Expr::Int(0) => r(e.child_by_field_name("alternative")?),
                    Expr::Int(_) => r(e.child_by_field_name("consequence")?),
                    _ => None,
                }
            }
            "cast_expression" => {
                let ty = self.text(e.child_by_field_name("type")?);
                // A `short` may not hold the value: not followed.
                (integer_type(ty) && !ty.contains("short")).then_some(())?;
                r(e.child_by_field_name("value")?)
            }
            "sizeof_expression" => {
                // A type parameter of a host template that no call binds is unknown,
                // whatever else of its name the file declares.
                let params = host_template_parameters(self.prog, e);
                let mut stack = vec![e];
                while let Some(n) = stack.pop() {
                    let t = self.text(n);
                    if matches!(n.kind(), "identifier" | "type_identifier")
                        && params.contains(t)
                        && !env.types.iter().any(|(p, _)| p == t)
                    {
                        return None;
                    }
                    stack.extend(named_children(n));
                }
                let ty = match (e.child_by_field_name("type"), e.child_by_field_name("value")) {
                    (Some(t), _) => self.resolve_type(self.text(t), env),
                    // `sizeof(E)` read as an expression: a type only when it is a
                    // template parameter being bound or a typedef of the file.
                    (None, Some(v)) => {
                        let mut v = v;
                        while v.kind() == "parenthesized_expression" {
                            v = *named_children(v).first()?;
                        }
                        let t = self.text(v);
                        // ... or a CUDA type (`sizeof(int4)`) that no variable in scope names.
                        let variable = self.local_declaration(f, v, t).is_some()
                            || self.is_param(f, t)
                            || self.prog.globals.contains_key(t);
                        let is_type = !variable
                            && (env.types.iter().any(|(p, _)| p == t)
                                || self.prog.aliases.contains_key(t)
                                || size_of(t).is_some());
                        (v.kind() == "identifier" && is_type).then(|| self.resolve_type(t, env))?
                    }
                    _ => return None,
                };
                size_of(&ty).map(Expr::Int)
            }
            "qualified_identifier" => self.scoped_constant(f, e, env),
            "call_expression" => self.call_value(f, e, &deeper),
            _ => None,
        }
    }

    /// A type's text with template parameters being bound and the file's plain
    /// typedefs replaced (`x128` → `Packed128<floatX>`; `floatX` → `float`).
    pub(super) fn resolve_type(&self, t: &str, env: &Env) -> String {
        let mut t: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
        for _ in 0..16 {
            if let Some((_, u)) = env.types.iter().find(|(p, _)| *p == t) {
                t = u.clone();
                continue;
            }
            match self.prog.aliases.get(t.as_str()) {
                // A name declared as an alias more than once (in a function, in two
                // namespaces) is left as it is: which one applies is not resolved.
                Some(a)
                    if a.declarator.is_none_or(|d| d.kind() == "type_identifier")
                        && self.prog.alias_is_unique(&t) =>
                {
                    t = self.text(a.ty).split_whitespace().collect::<Vec<_>>().join(" ");
                }
                _ => break,
            }
        }
        t
    }

    /// `T::c` for a struct `T` of the file (through typedefs, with template arguments)
    /// whose `static const`/`constexpr` member `c` has an initializer that evaluates
    /// with those arguments: `x128::size` of `typedef Packed128<float> x128;` with
    /// `static constexpr int size = sizeof(int4) / sizeof(ElementType);` is 4.
    fn scoped_constant(&self, f: usize, e: Node<'t>, env: &Env) -> Val {
        let scope = e.child_by_field_name("scope")?;
        let member = self.text(e.child_by_field_name("name")?);
        let ty = self.resolve_type(self.text(scope), env);
        let (name, args) = match ty.split_once('<') {
            Some((name, rest)) => (name.trim(), split_template_args(rest.strip_suffix('>')?)),
            None => (ty.as_str(), Vec::new()),
        };
        let defs = self.prog.structs_by_name.get(name)?;
        // With specializations (explicit or partial), which definition applies is not
        // matched here: no value.
        if defs.iter().any(|&i| self.prog.structs[i].spec_args.is_some()) {
            return None;
        }
        let def = defs
            .iter()
            .map(|&i| &self.prog.structs[i])
            .find(|d| d.spec_args.is_none() && d.template.is_some() != args.is_empty())?;
        let params: Vec<String> = match def.template {
            Some(tp) => named_children(tp)
                .into_iter()
                .map(|p| {
                    let d = p.child_by_field_name("name").or_else(|| p.named_child(0))?;
                    Some(self.text(d).to_string())
                })
                .collect::<Option<_>>()?,
            None => Vec::new(),
        };
        if params.len() != args.len() {
            return None;
        }
        let inner = Env {
            depth: env.depth + 1,
            types: params
                .into_iter()
                .zip(args.iter().map(|a| self.resolve_type(a, env)))
                .collect(),
            ..Env::default()
        };
        let body = def.node.child_by_field_name("body")?;
        named_children(body).into_iter().find_map(|c| {
            let constant = named_children(c)
                .iter()
                .any(|q| q.kind() == "type_qualifier" && matches!(self.text(*q), "const" | "constexpr"));
            let is_static = named_children(c)
                .iter()
                .any(|q| q.kind() == "storage_class_specifier" && self.text(*q) == "static");
            if c.kind() != "field_declaration" || !constant || !is_static {
                return None;
            }
            let ty = self.resolve_type(self.text(c.child_by_field_name("type")?), &inner);
            // A narrow member would convert its initializer.
            (integer_type(&ty) && !ty.contains("short") && !ty.contains("char")).then_some(())?;
            let d = c.child_by_field_name("declarator")?;
            (crate::program::declarator_name(d, self.prog.src)? == member).then_some(())?;
            let value = c
                .child_by_field_name("default_value")
                .or_else(|| d.child_by_field_name("value"))?;
            self.scalar(f, value, &inner)
        })
    }

    /// The value of a call: `static_cast<int>(x)`, `min`/`max` of constants, or a file
    /// function whose body is `return e;`, inlined.
    fn call_value(&self, f: usize, call: Node<'t>, env: &Env) -> Val {
        let fun = call.child_by_field_name("function")?;
        let args: Vec<Node> = named_children(call.child_by_field_name("arguments")?)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        let name = self.text(fun);
        if let Some(ty) = name
            .strip_prefix("static_cast<")
            .and_then(|t| t.strip_suffix('>'))
        {
            integer_type(ty).then_some(())?;
            return self.scalar(f, *args.first()?, env);
        }
        let callee = callee_name(self.prog, fun)?;
        if matches!(
            callee.as_str(),
            "min" | "max" | "std::min" | "std::max" | "MIN" | "MAX"
        ) && args.len() == 2
        {
            let a = fold(&self.scalar(f, args[0], env)?);
            let b = fold(&self.scalar(f, args[1], env)?);
            return match (a, b) {
                (Expr::Int(x), Expr::Int(y)) if callee.ends_with("min") || callee == "MIN" => {
                    Some(Expr::Int(x.min(y)))
                }
                (Expr::Int(x), Expr::Int(y)) => Some(Expr::Int(x.max(y))),
                _ => None,
            };
        }
        let g = self.prog.functions(&callee, None).into_iter().find(|&g| {
            let d = &self.prog.funcs[g];
            d.body.is_some() && !d.global && d.params().len() == args.len()
        })?;
        let def = &self.prog.funcs[g];
        let body = def.body?;
        let stmts: Vec<Node> = named_children(body)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        let [ret] = stmts.as_slice() else {
            return None;
        };
        if ret.kind() != "return_statement" {
            return None;
        }
        let value = *named_children(*ret).first()?;
        let mut inner = Env {
            depth: env.depth + 1,
            ..Env::default()
        };
        for (p, a) in def.params().into_iter().zip(&args) {
            let p = param_name(self.prog, p)?;
            inner.bindings.insert(p, self.scalar(f, *a, env));
        }
        self.scalar(g, value, &inner)
    }

    /// For parameter `x` of function `f`: `Some(None)` when the caller's value reaches
    /// `at` unchanged, `Some(Some(r))` when the assignment `r` of the body's top block
    /// last before `at` may ([`Reader::reaching_assignment`]), `None` when it may change
    /// otherwise (or is a reference, or narrower than its values).
    fn parameter_assignment(&self, f: usize, at: Node<'t>, x: &str) -> Option<Option<Reaching<'t>>> {
        if !self.assigned(f, x) {
            return Some(None);
        }
        let decl = self.prog.funcs[f]
            .params()
            .into_iter()
            .find(|p| param_name(self.prog, *p).as_deref() == Some(x))?;
        if narrow_or_floating(self, decl) || self.reference_parameter(f, x) {
            return None;
        }
        self.reaching_assignment(f, decl, at, x)
    }

    /// The value an assignment leaves in `x`: a guarded one's value when its condition
    /// holds, what `x` held before its `if` when it does not, unknown when the
    /// condition is.
    fn reaching_value(&self, f: usize, r: Reaching<'t>, x: &str, env: &Env) -> Val {
        match r {
            Reaching::Plain(value) => self.scalar(f, value, env),
            Reaching::Guarded { guard, value } => {
                match fold(&self.scalar(f, plain_condition(guard)?, env)?) {
                    Expr::Int(0) => self.name(f, guard, x, env),
                    Expr::Int(_) => self.scalar(f, value, env),
                    _ => None,
                }
            }
        }
    }

    /// What name `x` holds at `at` in function `f`: a caller's binding, an atom for a
    /// parameter, a never-assigned local's initializer (or an atom for it), a global
    /// constant or an enumerator.
    pub(super) fn name(&self, f: usize, at: Node<'t>, x: &str, env: &Env) -> Val {
        // A template parameter of the host code names nothing else, bound or not.
        let template_parameter = host_template_parameters(self.prog, at).contains(x);
        // A reference may change through whatever it is bound to.
        if self.unbound_reference(f, x, env) {
            return None;
        }
        let local = self.local_declaration(f, at, x);
        // A range-`for` variable (nearer than any declaration): one table element per
        // environment ([`Reader::fork`]), else unknown.
        if let Some(l) = self.range_for_in_scope(f, at, x, local) {
            return env.bindings.get(&local_key(x, l)).cloned().flatten();
        }
        if let Some(v) = env.bindings.get(x).filter(|_| local.is_none()) {
            if self.declared_in_a_scope_not_followed(f, at, x) {
                return None;
            }
            // A parameter the function assigns holds the caller's value until then.
            return match self.parameter_assignment(f, at, x) {
                Some(None) => v.clone(),
                Some(Some(r)) => self.reaching_value(f, r, x, env),
                None => None,
            };
        }
        if template_parameter || self.declared_in_a_scope_not_followed(f, at, x) {
            return None;
        }
        let key = function_key(self.prog, f);
        if let Some(decl) = local {
            if let Some(v) = env.bindings.get(&local_key(x, decl)) {
                return v.clone(); // a table value ([`Reader::fork`])
            }
            if declares_reference(self.prog, decl, x) {
                return None;
            }
            // A `static` keeps the value of its first initialization: a constant only.
            if self.is_static(decl) {
                return match initializer(self.prog, decl, x).and_then(|i| self.scalar(f, i, &Env::default()))
                {
                    Some(Expr::Int(v)) if !narrow_or_floating(self, decl) && !self.assigned(f, x) => {
                        Some(Expr::Int(v))
                    }
                    _ => None,
                };
            }
            // A `const` integer (not a reference) keeps its initializer.
            let constant = is_const(self, decl)
                && named_children(decl)
                    .iter()
                    .filter(|d| declares_node(self.prog, **d, x))
                    .all(|d| {
                        matches!(d.kind(), "init_declarator")
                            && d.child_by_field_name("declarator")
                                .is_some_and(|n| n.kind() == "identifier")
                    });
            if !constant && self.assigned(f, x) {
                // The last assignment before `at`, or none (the initializer reaches).
                if let Some(r) = self.reaching_assignment(f, decl, at, x)? {
                    return (!narrow_or_floating(self, decl)).then(|| self.reaching_value(f, r, x, env))?;
                }
            }
            let fixed = || Some(atom(&key, &format!("{x}@{}", decl.start_byte())));
            return match initializer(self.prog, decl, x) {
                // `unsigned char bs = 288;` holds 32, `float f = 2.5;` no integer: the
                // initializer is not the value, which is still fixed.
                Some(_) if narrow_or_floating(self, decl) => fixed(),
                Some(init) => self.scalar(f, init, env).or_else(fixed),
                None => None,
            };
        }
        if self.is_param(f, x) {
            return match self.parameter_assignment(f, at, x)? {
                None => Some(atom(&key, x)),
                Some(r) => self.reaching_value(f, r, x, env),
            };
        }
        if self.defined_more_than_once(x) {
            return None; // which one a scope sees is not followed
        }
        if let Some((Some(v), _)) = self.prog.enumerators.get(x) {
            return self.scalar(f, *v, env);
        }
        if let Some(g) = self.prog.globals.get(x) {
            // Only a `const`/`constexpr` global of a wide integer type holds its
            // initializer (a non-const one may be assigned anywhere in the program).
            (is_const(self, g.decl) && !narrow_or_floating(self, g.decl)).then_some(())?;
            let init = (g.declarator.kind() == "init_declarator")
                .then(|| g.declarator.child_by_field_name("value"))
                .flatten()?;
            return self.scalar(f, init, env);
        }
        None
    }
}
