//! Caller contexts: the environments of a host function, one per call of it in the
//! file (directly or through forwarding wrappers), binding its parameters and template
//! parameters to what the call passes, and forks on values copied from constant tables.

use kpl::Expr;
use tree_sitter::Node;

use crate::program::named_children;

use super::launch_layer::fold;
use super::launch_site::template_list;
use super::syntax::{
    address_operand, callee_name, declarations, initializer, is_const, local_key, only_elements_read_besides,
    param_name, table_list, wide_int,
};
use super::{Env, MAX_CONTEXTS, MAX_DEPTH, Reader, TemplateArg, runs_on_host, translation_unit};

impl<'t> Reader<'_, 't> {
    /// Environments of the host function `f`: one per call of it in the file, binding
    /// its parameters to the values passed; one empty one when nothing calls it (or the
    /// calls are too many or too deep).
    pub(super) fn caller_envs(&self, f: usize, depth: usize) -> Vec<Env> {
        self.caller_envs_at(f, depth, None)
    }

    /// [`Reader::caller_envs`], from the call at byte `only` alone when it is given (the
    /// call that passes a callback, [`Reader::callback_calls`]).
    fn caller_envs_at(&self, f: usize, depth: usize, only: Option<usize>) -> Vec<Env> {
        let def = &self.prog.funcs[f];
        let params: Vec<String> = def
            .params()
            .into_iter()
            .filter_map(|p| param_name(self.prog, p))
            .collect();
        let takes_nothing = params.is_empty() && def.template.is_none();
        if depth >= MAX_DEPTH || def.name == "main" || takes_nothing || self.escapes(&def.name) {
            return vec![Env::default()];
        }
        let mut out = Vec::new();
        for Call {
            at,
            caller,
            args,
            template_args,
            via,
        } in self.calls_of(&def.name)
        {
            if only.is_some_and(|o| o != at) {
                continue;
            }
            // A call with more arguments than `f` takes, or fewer than it needs, calls
            // an overload of the same name.
            let needed = def
                .params()
                .into_iter()
                .filter(|d| d.child_by_field_name("default_value").is_none())
                .count();
            if args.len() > params.len() || args.len() < needed {
                continue;
            }
            // A call through a callback parameter happens in the contexts of the call
            // that passed the callback.
            let outers = self.caller_envs_at(caller, depth + 1, via);
            let read = args.iter().copied().chain(template_args);
            for outer in outers
                .iter()
                .flat_map(|o| self.fork(caller, &read.clone().collect::<Vec<_>>(), o))
            {
                let mut env = Env::default();
                if let (Some(params), Some(list)) = (def.template, template_args) {
                    self.bind_template_parameters(params, caller, list, &outer, &mut env);
                }
                for (p, a) in params.iter().zip(&args) {
                    self.bind_argument(&mut env, f, p, caller, *a, &outer);
                }
                // `stage(sizes[j])`: one context per value of the table, as for a
                // local copied from it ([`Reader::fork`]).
                let mut tables = Vec::new();
                for ((p, a), decl) in params.iter().zip(&args).zip(def.params()) {
                    if let Some(values) = self.table_values(caller, *a).filter(|_| wide_int(self, decl)) {
                        tables.push((p, values));
                    }
                }
                // Too many for one call are too many for `f`: the limit below would
                // give up the same way, after making them all.
                let Some(mut envs) = product(&env, &tables, |e, p, v| {
                    // An integer converts to `dim3(v, 1, 1)`.
                    for (x, v) in [("", v), (".x", v), (".y", 1), (".z", 1)] {
                        e.bindings.insert(format!("{p}{x}"), Some(Expr::Int(v)));
                    }
                }) else {
                    return vec![Env::default()];
                };
                // Parameters the call leaves out take their default argument, evaluated
                // where the function is defined.
                for decl in def.params().into_iter().skip(args.len()) {
                    let (Some(p), Some(v)) = (
                        param_name(self.prog, decl),
                        decl.child_by_field_name("default_value"),
                    ) else {
                        continue;
                    };
                    for env in &mut envs {
                        self.bind_argument(env, f, &p, f, v, &Env::default());
                    }
                }
                // Calls that pass the same values make one context (a dispatcher's
                // cases that differ only in the callback they pass).
                for env in envs {
                    if !out.contains(&env) {
                        out.push(env);
                    }
                }
                if out.len() >= MAX_CONTEXTS {
                    return vec![Env::default()];
                }
            }
        }
        if out.is_empty() {
            out.push(Env::default());
        }
        out
    }

    /// Binds parameter `p` of `f` to the argument `a`, an expression of function `g`
    /// evaluated in `outer`: its value and its `dim3` components. A reference parameter
    /// is bound only when it is `const` and the argument is an object nothing else can
    /// change ([`Reader::unaliased_argument`]).
    fn bind_argument(&self, env: &mut Env, f: usize, p: &str, g: usize, a: Node<'t>, outer: &Env) {
        if self.reference_parameter(f, p)
            && !(self.const_reference_parameter(f, p) && self.unaliased_argument(g, a))
        {
            return;
        }
        env.bindings.insert(p.to_string(), self.scalar(g, a, outer));
        let d = self.dim3(g, a, outer);
        for (i, c) in ["x", "y", "z"].iter().enumerate() {
            env.bindings.insert(format!("{p}.{c}"), d[i].clone());
        }
    }

    /// Binds a host function template's parameters `params` to the template arguments
    /// `list` of a call in function `caller`, evaluated in `outer`: a type parameter to
    /// its type's text, a value parameter to its value. Parameters the call does not
    /// give (deduced, defaulted) stay unbound, so unknown.
    fn bind_template_parameters(
        &self,
        params: Node<'t>,
        caller: usize,
        list: Node<'t>,
        outer: &Env,
        env: &mut Env,
    ) {
        let args = named_children(list).into_iter().filter(|a| a.kind() != "comment");
        let params = named_children(params)
            .into_iter()
            .filter(|p| p.kind() != "comment");
        for (p, a) in params.zip(args) {
            let arg = self.template_arg(caller, a, outer);
            match p.kind() {
                "type_parameter_declaration" | "optional_type_parameter_declaration" => {
                    let name = named_children(p)
                        .into_iter()
                        .find(|c| c.kind() == "type_identifier")
                        .or_else(|| p.child_by_field_name("name"));
                    if let (Some(n), Some(TemplateArg::Type(t))) = (name, arg) {
                        env.types.push((self.text(n).to_string(), t));
                    }
                }
                "parameter_declaration" | "optional_parameter_declaration" => {
                    let name = p
                        .child_by_field_name("declarator")
                        .and_then(|d| crate::program::declarator_name(d, self.prog.src));
                    match (name, arg) {
                        (Some(n), Some(TemplateArg::Value(v))) => {
                            env.bindings.insert(n, Some(Expr::Int(v)));
                        }
                        // A function of the file for a function-pointer parameter.
                        (Some(n), Some(TemplateArg::Type(t) | TemplateArg::Written(t)))
                            if self
                                .prog
                                .funcs
                                .iter()
                                .any(|g| g.name == t.trim_start_matches('&')) =>
                        {
                            env.functions.push((n, t.trim_start_matches('&').to_string()));
                        }
                        _ => {}
                    }
                }
                _ => {} // a variadic pack: nothing after it is bound by position
            }
        }
    }

    /// `env` once per combination of the values of the *table locals* the host
    /// expressions `nodes` of function `f` use, directly or through the initializers of
    /// the locals they use ([`Reader::table_choices`]): `int bs = sizes[j];` in a loop
    /// over `int sizes[] = {32, 64, 128};` makes three environments, `bs` bound to each
    /// size. Just `env` when there is none, or more than [`MAX_CONTEXTS`] combinations.
    pub(super) fn fork(&self, f: usize, nodes: &[Node<'t>], env: &Env) -> Vec<Env> {
        let mut tables: Vec<(String, Vec<i64>)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<(Node<'t>, usize)> = nodes.iter().map(|n| (*n, 0)).collect();
        while let Some((n, depth)) = stack.pop() {
            if n.kind() == "identifier" {
                let x = self.text(n);
                // Locals are bound by their declaration (`local_key`): a name declared
                // twice names two variables.
                let local = self.local_declaration(f, n, x);
                // `for (int bs : sizes)` (nearer than any declaration): one environment
                // per element.
                if let Some(l) = self.range_for_in_scope(f, n, x, local) {
                    let key = local_key(x, l);
                    if !env.bindings.contains_key(&key)
                        && seen.insert(key.clone())
                        && let Some(values) = self.range_for_values(f, l, x)
                    {
                        tables.push((key, values));
                    }
                    continue;
                }
                let Some(decl) = local else {
                    continue;
                };
                let key = local_key(x, decl);
                if env.bindings.contains_key(&key) || !seen.insert(key.clone()) {
                    continue;
                }
                if let Some(values) = self.table_choices(f, n, x) {
                    tables.push((key, values));
                } else if depth < MAX_DEPTH && !self.assigned(f, x) {
                    stack.extend(named_children(decl).into_iter().map(|c| (c, depth + 1)));
                }
                continue;
            }
            stack.extend(named_children(n).into_iter().map(|c| (c, depth)));
        }
        product(env, &tables, |e, x, v| {
            e.bindings.insert(x.clone(), Some(Expr::Int(v)));
        })
        .unwrap_or_else(|| vec![env.clone()])
    }

    /// The values local `x` of function `f` (in scope at `at`) may hold when it is a
    /// never-assigned copy of an element of a *table*: an array, never assigned, whose
    /// initializer lists integer constants, local to `f` or a `const` global
    /// (`int bs = sizes[j];`, whatever `j` is: one of the table's values, an index out
    /// of its bounds being undefined behaviour).
    fn table_choices(&self, f: usize, at: Node<'t>, x: &str) -> Option<Vec<i64>> {
        let decl = self.local_declaration(f, at, x)?;
        if self.assigned(f, x) || self.is_param(f, x) || !wide_int(self, decl) {
            return None;
        }
        self.table_values(f, initializer(self.prog, decl, x)?)
    }

    /// The values `table[i]` may have, an expression of function `f`, when `table` is a
    /// *table* (see [`Reader::table_choices`]).
    fn table_values(&self, f: usize, mut init: Node<'t>) -> Option<Vec<i64>> {
        while init.kind() == "parenthesized_expression" {
            init = *named_children(init).first()?;
        }
        if init.kind() != "subscript_expression" {
            return None;
        }
        self.table_elements(f, init.child_by_field_name("argument")?, None)
    }

    /// The range-`for` loop of function `f` around `at` whose variable is the `x` seen
    /// at `at`: the nearest such loop, when `local`, the declaration of `x` in scope
    /// there ([`Reader::local_declaration`], which does not see loop variables), is
    /// none or comes before the loop. One rule for every reader of a name (its value,
    /// its `dim3` components, its forks), so they agree on which variable it is.
    pub(super) fn range_for_in_scope(
        &self,
        f: usize,
        at: Node<'t>,
        x: &str,
        local: Option<Node<'t>>,
    ) -> Option<Node<'t>> {
        self.range_for_variable(f, at, x)
            .filter(|l| local.is_none_or(|d| d.start_byte() < l.start_byte()))
    }

    /// The range-`for` loop of function `f` around `at` whose variable is `x`.
    fn range_for_variable(&self, f: usize, at: Node<'t>, x: &str) -> Option<Node<'t>> {
        let body = self.prog.funcs[f].body?;
        let mut up = at.parent();
        while let Some(p) = up {
            if p.id() == body.id() {
                return None;
            }
            if p.kind() == "for_range_loop"
                && p.child_by_field_name("body")
                    .is_some_and(|b| b.start_byte() <= at.start_byte() && at.end_byte() <= b.end_byte())
                && let Some(d) = p.child_by_field_name("declarator")
                && crate::program::declarator_name(d, self.prog.src).as_deref() == Some(x)
            {
                return Some(p);
            }
            up = p.parent();
        }
        None
    }

    /// The values the variable `x` of range-`for` loop `l` takes when it is a copy
    /// (`for (int bs : sizes)`, not a reference) of a wide integer type, its range is a
    /// *table*, and the function never assigns it.
    fn range_for_values(&self, f: usize, l: Node<'t>, x: &str) -> Option<Vec<i64>> {
        let copy = l
            .child_by_field_name("declarator")
            .is_some_and(|d| d.kind() == "identifier");
        if !copy || !wide_int(self, l) || self.assigned(f, x) {
            return None;
        }
        let range = l.child_by_field_name("right")?;
        self.table_elements(f, range, Some(range))
    }

    /// The values of the elements of `table`, an identifier of function `f`, when it
    /// names a *table* ([`Reader::table_choices`]); `range`: its mention as the range
    /// of a range-`for` loop over copies, which reads its elements.
    fn table_elements(&self, f: usize, table: Node<'t>, range: Option<Node<'t>>) -> Option<Vec<i64>> {
        let body = self.prog.funcs[f].body?;
        if table.kind() != "identifier" {
            return None;
        }
        let init = table;
        let name = self.text(table);
        // The table: one declaration in the function (or none there and one in the
        // file, `const`), of a wide integer type, every other use of its name a read
        // of an element or its size (no pointer to it, no call that could write it).
        let root = translation_unit(self.prog)?;
        let (decl, scope) = match self.local_declaration(f, init, name) {
            Some(d) => (d, body),
            None => {
                let g = self.prog.globals.get(name)?;
                (declarations(self.prog, body, name) == 0
                    && !self.is_param(f, name)
                    && is_const(self, g.decl))
                .then_some(())?;
                (g.decl, root)
            }
        };
        if declarations(self.prog, scope, name) != 1
            || !only_elements_read_besides(self, scope, name, range)
            || !wide_int(self, decl)
        {
            return None;
        }
        let (list, size) = table_list(self.prog, decl, name)?;
        let mut values = Vec::new();
        let items: Vec<Node> = named_children(list)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        for item in &items {
            let Some(Expr::Int(v)) = self.scalar(f, *item, &Env::default()).map(|e| fold(&e)) else {
                return None;
            };
            if !values.contains(&v) {
                values.push(v);
            }
        }
        // `int t[4] = {32, 64};`: the elements not listed are zero.
        if let Some(size) = size {
            let Some(Expr::Int(n)) = self.scalar(f, size, &Env::default()).map(|e| fold(&e)) else {
                return None;
            };
            if usize::try_from(n).ok()? > items.len() && !values.contains(&0) {
                values.push(0);
            }
        }
        (!values.is_empty()).then_some(values)
    }

    pub(super) fn is_param(&self, f: usize, x: &str) -> bool {
        self.prog.funcs[f]
            .params()
            .into_iter()
            .any(|p| param_name(self.prog, p).as_deref() == Some(x))
    }

    /// Whether function `name` is used other than by calling it (a function pointer):
    /// then its callers are not all known and its parameters stay atoms.
    fn escapes(&self, name: &str) -> bool {
        let Some(root) = translation_unit(self.prog) else {
            return false;
        };
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() != "identifier" || self.text(n) != name {
                continue;
            }
            let Some(mut p) = n.parent() else { continue };
            let declared = matches!(p.kind(), "function_declarator");
            // `f(...)`, or `f<128>(...)` with the template arguments around the name.
            let mut callee = n;
            if p.kind() == "template_function" {
                callee = p;
                let Some(up) = p.parent() else { continue };
                p = up;
            }
            // A call in a namespace-scope initializer is no caller context.
            let in_function =
                std::iter::successors(p.parent(), |a| a.parent()).any(|a| a.kind() == "function_definition");
            let called = p.kind() == "call_expression"
                && in_function
                && p.child_by_field_name("function")
                    .is_some_and(|f| f.id() == callee.id());
            if !declared && !called && self.forwarded_args(n).is_none() && self.callback_calls(n).is_none() {
                return true;
            }
        }
        false
    }

    /// `f` passed to a forwarder of the file, `g(x, f, a, b)` where
    /// `template <class F, class... A> T g(X x, F f, A&&... a) { ... f(std::forward<A>(a)...); ... }`
    /// (a benchmark or launch wrapper): the arguments `f` is called with, `a, b`.
    pub(super) fn forwarded_args(&self, id: Node<'t>) -> Option<Vec<Node<'t>>> {
        let list = id.parent().filter(|p| p.kind() == "argument_list")?;
        let call = list.parent().filter(|c| c.kind() == "call_expression")?;
        let callee = callee_name(self.prog, call.child_by_field_name("function")?)?;
        let args: Vec<Node> = named_children(list)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        let at = args.iter().position(|a| a.id() == id.id())?;
        let g = self.prog.functions(&callee, None).into_iter().find(|&g| {
            let d = &self.prog.funcs[g];
            // `f` is the last named parameter, a pack follows.
            let pack = d.declarator.child_by_field_name("parameters").is_some_and(|l| {
                named_children(l)
                    .iter()
                    .any(|c| c.kind() == "variadic_parameter_declaration")
            });
            d.body.is_some() && runs_on_host(d) && d.params().len() == at + 1 && pack
        })?;
        let def = &self.prog.funcs[g];
        let params = def.params();
        // The body calls `f` with the pack only, and uses the pack nowhere else (so it
        // passes the caller's values on unchanged).
        let f_name = param_name(self.prog, params[at])?;
        let pack = def
            .declarator
            .child_by_field_name("parameters")
            .and_then(|l| {
                named_children(l)
                    .into_iter()
                    .find(|c| c.kind() == "variadic_parameter_declaration")
            })
            .and_then(|p| p.child_by_field_name("declarator"))
            .map(|d| self.text(d).replace(['&', '.', ' '], ""))?;
        let forwarded = |arg: &str| {
            let arg: String = arg.split_whitespace().collect();
            arg == format!("{pack}...")
                || (arg.starts_with("std::forward<") && arg.ends_with(&format!(">({pack})...")))
        };
        let mut pack_uses = 0;
        let mut stack = vec![def.body?];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() == "identifier" && self.text(n) == pack {
                pack_uses += 1;
            }
        }
        let mut stack = vec![def.body?];
        let mut calls = 0;
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() != "identifier" || self.text(n) != f_name {
                continue;
            }
            let c = n.parent()?;
            // A plain call: `f<<<g, b>>>(a...)` would launch a kernel `f` in ways not read.
            let is_call = plain_call_of(n).is_some();
            let passes_pack = c
                .child_by_field_name("arguments")
                .map(named_children)
                .is_some_and(|a| a.len() == 1 && forwarded(self.text(a[0])));
            if !(is_call && passes_pack) {
                return None; // `f` used otherwise: its calls are not known
            }
            calls += 1;
        }
        (calls > 0 && pack_uses == calls).then(|| args[at + 1..].to_vec())
    }

    /// `f` passed as a callback, `g(a, f, b)` or `g(a, &f, b)`, to a host function `g`
    /// of the file (one definition) whose parameter there is used only to be called,
    /// `p(x, y)` (a launcher handed to a dispatcher): those calls of `p`, as calls of
    /// `f` in `g` in the contexts of this call of `g`. `None` when `id` is not such an
    /// argument, or `g` uses the parameter otherwise (stores it, passes it on, takes its
    /// address): then `f` escapes.
    fn callback_calls(&self, id: Node<'t>) -> Option<Vec<Call<'t>>> {
        let arg = match id.parent()? {
            p if p.kind() == "pointer_expression" => p,
            _ => id,
        };
        if self.function_argument(arg).map(|f| f.id()) != Some(id.id()) {
            return None;
        }
        let list = arg.parent().filter(|p| p.kind() == "argument_list")?;
        let call = list.parent().filter(|c| c.kind() == "call_expression")?;
        if named_children(call)
            .iter()
            .any(|c| c.kind() == "kernel_call_syntax")
        {
            return None;
        }
        let callee = callee_name(self.prog, call.child_by_field_name("function")?)?;
        let at = named_children(list)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .position(|a| a.id() == arg.id())?;
        let [g] = self.prog.functions(&callee, None)[..] else {
            return None; // overloads: which one takes `f` is not read
        };
        let def = &self.prog.funcs[g];
        let body = def.body.filter(|_| runs_on_host(def))?;
        let p = param_name(self.prog, *def.params().get(at)?)?;
        let mut calls = Vec::new();
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() != "identifier" || self.text(n) != p {
                continue;
            }
            let c = plain_call_of(n)?;
            let args = named_children(c.child_by_field_name("arguments")?)
                .into_iter()
                .filter(|a| a.kind() != "comment")
                .collect();
            calls.push(Call {
                at: c.start_byte(),
                caller: g,
                args,
                template_args: None,
                via: Some(call.start_byte()),
            });
        }
        Some(calls)
    }

    /// Whether a call `p(...)` through the callback parameter `p` of host function `g`
    /// only reads its argument `i` of `n`: every call of `g` in the file (which has no
    /// other callers: it does not escape) passes for `p` a function of the file whose
    /// parameter there only reads ([`Reader::parameter_reads`]).
    pub(super) fn callback_reads(&self, g: usize, p: &str, i: usize, n: usize) -> bool {
        let def = &self.prog.funcs[g];
        let Some(at) = def
            .params()
            .into_iter()
            .position(|d| param_name(self.prog, d).as_deref() == Some(p))
        else {
            return false;
        };
        let calls = self.calls_of(&def.name);
        !self.escapes(&def.name)
            && !calls.is_empty()
            && calls.iter().all(|c| {
                c.args
                    .get(at)
                    .and_then(|a| self.function_argument(*a))
                    .is_some_and(|f| self.parameter_reads(self.text(f), i, n))
            })
    }

    /// The function named by a callback argument, `f` or `&f`: its identifier.
    fn function_argument(&self, arg: Node<'t>) -> Option<Node<'t>> {
        let f = address_operand(self.prog, arg);
        (f.kind() == "identifier").then_some(f)
    }

    /// The calls of `name` in the bodies of the file's host functions, with the caller
    /// and the arguments: direct calls `name(...)` and calls through a forwarder
    /// ([`Reader::forwarded_args`]).
    fn calls_of(&self, name: &str) -> Vec<Call<'t>> {
        let mut out = Vec::new();
        for (i, f) in self.prog.funcs.iter().enumerate() {
            let Some(body) = f.body.filter(|_| runs_on_host(f)) else {
                continue;
            };
            let mut stack = vec![body];
            while let Some(n) = stack.pop() {
                // A launch `name<<<...>>>(...)` calls the kernel, not a host overload.
                let launch = named_children(n).iter().any(|c| c.kind() == "kernel_call_syntax");
                if n.kind() == "call_expression"
                    && !launch
                    && let Some(fun) = n.child_by_field_name("function")
                    && callee_name(self.prog, fun).is_some_and(|c| c == name)
                    && let Some(args) = n.child_by_field_name("arguments")
                {
                    let args = named_children(args)
                        .into_iter()
                        .filter(|c| c.kind() != "comment")
                        .collect();
                    out.push(Call {
                        at: n.start_byte(),
                        caller: i,
                        args,
                        template_args: template_list(fun),
                        via: None,
                    });
                } else if n.kind() == "identifier"
                    && self.text(n) == name
                    && let Some(args) = self.forwarded_args(n)
                {
                    out.push(Call {
                        at: n.start_byte(),
                        caller: i,
                        args,
                        template_args: None,
                        via: None,
                    });
                } else if n.kind() == "identifier"
                    && self.text(n) == name
                    && let Some(calls) = self.callback_calls(n)
                {
                    out.extend(calls);
                }
                stack.extend(named_children(n));
            }
        }
        out.sort_by_key(|c| c.at);
        out
    }
}

/// `env` once per combination of one value of each of `tables`, `bind` setting a
/// table's value in a copy; the first table varies slowest. `None` when that would be
/// more than [`MAX_CONTEXTS`] environments, known before any is made: each caller
/// decides what too many means for it ([`Reader::fork`], [`Reader::caller_envs`]).
fn product<K>(env: &Env, tables: &[(K, Vec<i64>)], bind: impl Fn(&mut Env, &K, i64)) -> Option<Vec<Env>> {
    let combinations = tables
        .iter()
        .try_fold(1usize, |acc, (_, v)| acc.checked_mul(v.len()))?;
    if combinations > MAX_CONTEXTS {
        return None;
    }
    let mut out = vec![env.clone()];
    for (key, values) in tables {
        out = out
            .iter()
            .flat_map(|e| {
                values.iter().map(|v| {
                    let mut e = e.clone();
                    bind(&mut e, key, *v);
                    e
                })
            })
            .collect();
    }
    Some(out)
}

/// The call `n(...)` whose callee is the name `n`, when it is a plain call (not a
/// launch `n<<<...>>>(...)`).
fn plain_call_of(n: Node<'_>) -> Option<Node<'_>> {
    let c = n.parent().filter(|c| c.kind() == "call_expression")?;
    let callee = c
        .child_by_field_name("function")
        .is_some_and(|x| x.id() == n.id());
    let launch = named_children(c).iter().any(|x| x.kind() == "kernel_call_syntax");
    (callee && !launch).then_some(c)
}

/// A call of a host function in the file.
struct Call<'t> {
    at: usize,
    caller: usize,
    args: Vec<Node<'t>>,
    /// Its template argument list (`run<128>(...)`).
    template_args: Option<Node<'t>>,
    /// For a call through a callback parameter, the byte at which the call that
    /// passed the callback starts: the caller's contexts are those of that call.
    via: Option<usize>,
}
