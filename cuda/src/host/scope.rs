//! Whether a host name's value is the one the reader sees: declarations, reaching
//! assignments, references, reads that cannot change it and scopes the reader does not
//! follow; the whole-function and whole-file walks are memoized ([`Reader::memo`]).

use std::collections::HashMap;

use tree_sitter::Node;

use crate::program::named_children;

use super::syntax::{
    callee_name, declared_name, declares, declares_node_exact, declares_reference, has_operator, in_lambda,
    is_dim3_declaration, param_name, plain_assignment_to,
};
use super::{Env, Memo, Reader, runs_on_host, translation_unit};

impl<'t> Reader<'_, 't> {
    /// The declaration of local `x` in scope at `at` (the nearest one before it in the
    /// blocks around it, or a `for` initializer around it).
    pub(super) fn local_declaration(&self, f: usize, at: Node<'t>, x: &str) -> Option<Node<'t>> {
        let body = self.prog.funcs[f].body?;
        // Only inside the body: a default argument's names are not locals.
        if !(body.start_byte() <= at.start_byte() && at.end_byte() <= body.end_byte()) {
            return None;
        }
        let mut up = at.parent();
        while let Some(p) = up {
            for s in named_children(p) {
                if s.start_byte() >= at.start_byte() {
                    break;
                }
                if s.kind() == "declaration" && declares(self.prog, s, x) {
                    return Some(s);
                }
            }
            if p.id() == body.id() {
                break;
            }
            up = p.parent();
        }
        None
    }

    /// The assignment to local or parameter `x` (declared by `decl`) last before `at`,
    /// when every change of `x` in function `f` is a plain `x = e;` statement of the
    /// block that declares `x` (the function's body for a parameter), or such a statement
    /// alone under an `if` without `else` of that block (straight-line code:
    /// `n = B * T * NH; grid = ceil_div(n, bs);` reassigned between two launches,
    /// `block_size = 16;` overriding the caller's value, `if (bs < 256) bs = 256;`
    /// clamping it). Then the last such statement before the one holding `at` is the
    /// only one that may reach `at`, loops inside the block included; `Some(None)` when
    /// there is none (the declaration's initializer, or the caller's value, reaches
    /// `at`), `None` when `x` changes any other way.
    pub(super) fn reaching_assignment(
        &self,
        f: usize,
        decl: Node<'t>,
        at: Node<'t>,
        x: &str,
    ) -> Option<Option<Reaching<'t>>> {
        let body = self.prog.funcs[f].body?;
        // A parameter is "declared" in the function's body block.
        let parameter = matches!(
            decl.kind(),
            "parameter_declaration" | "optional_parameter_declaration"
        );
        let block = if parameter { body } else { decl.parent()? };
        if block.kind() != "compound_statement"
            || !(block.start_byte() <= at.start_byte() && at.end_byte() <= block.end_byte())
        {
            return None;
        }
        // A `static` keeps the last call's value; a lambda runs later than it is written;
        // `longjmp` goes back.
        let storage_static = self.is_static(decl);
        let in_lambda = in_lambda(at, body);
        if storage_static
            || in_lambda
            || self.text(body).contains("setjmp")
            || !self.only_read_besides(body, decl, x)
        {
            return None;
        }
        let mut stack = vec![body];
        let mut last: Option<(Node, Reaching)> = None;
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() == "goto_statement" {
                return None; // a jump back could bring a later assignment
            }
            let Some((t, base)) = self.changed(n) else {
                continue;
            };
            if self.text(base) != x {
                continue;
            }
            let plain = n.kind() == "assignment_expression"
                && t.kind() == "identifier"
                && has_operator(self.prog, n, "=");
            let stmt = n
                .parent()
                .filter(|p| plain && p.kind() == "expression_statement")?;
            let value = n.child_by_field_name("right")?;
            let (top, reaching) = if stmt.parent().is_some_and(|b| b.id() == block.id()) {
                (stmt, Reaching::Plain(value))
            } else {
                let guard = guarding_if(stmt)?;
                guard.parent().filter(|b| b.id() == block.id())?;
                (guard, Reaching::Guarded { guard, value })
            };
            if top.end_byte() <= at.start_byte()
                && last
                    .as_ref()
                    .is_none_or(|(l, _)| l.start_byte() < top.start_byte())
            {
                last = Some((top, reaching));
            }
        }
        Some(last.map(|(_, r)| r))
    }

    /// Whether every mention of `x` in `body`, besides its declarator in `decl` and the
    /// left sides of plain assignments, reads its value: an operand of arithmetic, a
    /// condition, an initializer of a non-reference, a by-value argument (of a file
    /// function, a kernel launch, `min`/`max`, `printf`). A reference to it, a by-reference
    /// argument, `std::tie(x, ...)`, `cin >> x` or a conditional lvalue could change it
    /// unseen, so they make it unknown.
    fn only_read_besides(&self, body: Node<'t>, decl: Node<'t>, x: &str) -> bool {
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() != "identifier" || self.text(n) != x {
                continue;
            }
            if declares_node_exact(decl, n)
                || plain_assignment_to(self.prog, n).is_some()
                || self.read_only_use(n)
            {
                continue;
            }
            return false;
        }
        true
    }

    /// Whether the expression `n` is only read where it stands (see
    /// [`Reader::only_read_besides`]).
    pub(super) fn read_only_use(&self, mut n: Node<'t>) -> bool {
        // Parentheses, the branches of `?:`, a field and an element pass the use on
        // (`(c ? x : y) = 5`, `t.x = 5`, `f(t.x)` by reference).
        while let Some(p) = n.parent() {
            let branch = p.kind() == "conditional_expression"
                && p.child_by_field_name("condition")
                    .is_none_or(|c| c.id() != n.id());
            let part = matches!(p.kind(), "field_expression" | "subscript_expression")
                && p.child_by_field_name("argument")
                    .is_some_and(|a| a.id() == n.id());
            if p.kind() != "parenthesized_expression" && !branch && !part {
                break;
            }
            n = p;
        }
        let Some(p) = n.parent() else { return false };
        let is = |field: &str| p.child_by_field_name(field).is_some_and(|c| c.id() == n.id());
        match p.kind() {
            // `cin >> x` writes `x`.
            "binary_expression" => !(is("right") && has_operator(self.prog, p, ">>")),
            "unary_expression" | "sizeof_expression" | "cast_expression" | "subscript_argument_list" => true,
            "conditional_expression" | "condition_clause" | "return_statement" => true,
            "subscript_expression" => is("index"),
            "assignment_expression" => is("right"),
            "init_declarator" => {
                is("value")
                    && p.child_by_field_name("declarator")
                        .is_some_and(|d| d.kind() != "reference_declarator")
            }
            "kernel_call_syntax" => true,
            // `dim3 t(x, y)`, `dim3 t = {x, y}`: copied into the `dim3`.
            "argument_list" | "initializer_list"
                if p.parent().is_some_and(|d| {
                    d.kind() == "init_declarator"
                        && d.parent()
                            .is_some_and(|decl| is_dim3_declaration(self.prog, decl))
                }) =>
            {
                true
            }
            "argument_list" => self.by_value_argument(p, n),
            _ => false,
        }
    }

    /// Whether `n`, an argument in `list`, is passed by value: to a kernel launch, to
    /// `min`/`max`/`printf`/`malloc`, to a math function (`sqrtf(hs)`, `ceil`) or a
    /// function of the toolkit's C libraries ([`Reader::c_library_call`]) that the file
    /// does not declare, or to file functions of that name whose parameter there is no
    /// reference.
    pub(super) fn by_value_argument(&self, list: Node<'t>, n: Node<'t>) -> bool {
        let Some(call) = list.parent().filter(|c| c.kind() == "call_expression") else {
            return false;
        };
        if named_children(call)
            .iter()
            .any(|c| c.kind() == "kernel_call_syntax")
        {
            return true;
        }
        let Some(name) = call
            .child_by_field_name("function")
            .and_then(|f| callee_name(self.prog, f))
        else {
            return false;
        };
        if matches!(
            name.as_str(),
            "min" | "max" | "std::min" | "std::max" | "printf" | "fprintf" | "dim3" | "malloc" | "calloc"
        ) || self.library_value_function(&name)
        {
            return true;
        }
        let args: Vec<Node<'t>> = named_children(list)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        // An argument a forwarder passes on (`bench(reps, f, a, b)` calling `f(a, b)`):
        // what `f` does with it.
        for f in args.iter().filter(|a| a.kind() == "identifier") {
            if let Some(fwd) = self.forwarded_args(*f)
                && let Some(k) = fwd.iter().position(|a| a.id() == n.id())
            {
                return self.parameter_reads(self.text(*f), k, fwd.len());
            }
        }
        let Some(i) = args.iter().position(|c| c.id() == n.id()) else {
            return false;
        };
        // A call through a callback parameter (`launch(out, n)` in a dispatcher handed
        // `launch`): what the functions passed for it do.
        if let Some(g) = self.enclosing_function(call)
            && self.is_param(g, &name)
            && call
                .child_by_field_name("function")
                .is_some_and(|f| f.kind() == "identifier" && self.local_declaration(g, f, &name).is_none())
        {
            return self.callback_reads(g, &name, i, args.len());
        }
        self.parameter_reads(&name, i, args.len())
    }

    /// Whether `name`, which the file does not declare, is a library function that
    /// takes its scalar arguments by value: a device math function (`sqrtf`, `std::pow`)
    /// or a function of the toolkit's C libraries: the runtime API (`cudaMemcpy2D`),
    /// cuBLAS, cuSPARSE, cuFFT, cuRAND, cuSOLVER, cuDNN, NCCL, NVTX. Their interfaces are
    /// C, so `cublasSgemm(h, ..., T, T, HS, ...)` leaves `T` as it was; the runtime's C++
    /// overloads take pointers, values and `const` references only. C++ libraries (CUB's
    /// `size_t &temp_storage_bytes`, Thrust) are qualified names (`cub::...`) and do not
    /// match. A function of that name the file declares is read as the file declares it.
    fn library_value_function(&self, name: &str) -> bool {
        const PREFIXES: [&str; 9] = [
            "cuda", "cublas", "cusparse", "cufft", "curand", "cusolver", "cudnn", "nccl", "nvtx",
        ];
        let c_name = |p: &str| {
            name.strip_prefix(p)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|c| c.is_ascii_uppercase())
        };
        (PREFIXES.iter().any(|p| c_name(p)) || crate::lower::is_float_function(name))
            && self.prog.functions(name, None).is_empty()
    }

    /// Whether parameter `i` of every host function named `name` of the file that a call
    /// with `n` arguments may call only reads its argument: by value, or by `const`
    /// reference (`const dim3 &dims`) in a file without a `const_cast` (which may write
    /// through it). A kernel of the same name is not such a function.
    pub(super) fn parameter_reads(&self, name: &str, i: usize, n: usize) -> bool {
        let defs: Vec<_> = self
            .prog
            .funcs
            .iter()
            .filter(|g| g.name == name && runs_on_host(g) && g.params().len() >= n)
            .collect();
        let reads = |p: &Node<'t>| {
            (self.const_reference(*p) || !self.text(*p).contains('&')) && !self.text(*p).contains("...")
        };
        !defs.is_empty() && defs.iter().all(|g| g.params().get(i).is_some_and(reads))
    }

    /// What expression `n` changes or lets be changed, with its variable: the left side
    /// of an assignment, the operand of `++`/`--` or of `&` (through fields, elements
    /// and parentheses: `p.x = 1` changes `p`).
    fn changed(&self, n: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
        let target = match n.kind() {
            "assignment_expression" => n.child_by_field_name("left"),
            "update_expression" => n.child_by_field_name("argument"),
            "pointer_expression" if has_operator(self.prog, n, "&") => n.child_by_field_name("argument"),
            _ => None,
        }?;
        let mut base = target;
        while matches!(
            base.kind(),
            "field_expression" | "subscript_expression" | "parenthesized_expression"
        ) {
            match base
                .child_by_field_name("argument")
                .or_else(|| named_children(base).first().copied())
            {
                Some(b) => base = b,
                None => break,
            }
        }
        Some((target, base))
    }

    /// Whether a declaration is `static` (its value outlives the call).
    pub(super) fn is_static(&self, decl: Node<'t>) -> bool {
        named_children(decl)
            .iter()
            .any(|c| c.kind() == "storage_class_specifier" && self.text(*c) == "static")
    }

    /// Whether parameter `x` of function `f` is a reference (`int &n`, `const int &n`).
    pub(super) fn reference_parameter(&self, f: usize, x: &str) -> bool {
        self.prog.funcs[f].params().into_iter().any(|p| {
            param_name(self.prog, p).as_deref() == Some(x)
                && p.child_by_field_name("declarator")
                    .is_some_and(|d| d.kind() == "reference_declarator")
        })
    }

    /// Whether parameter `x` of `f` is a reference that only its caller's binding
    /// ([`Reader::caller_envs`]) may give a value: a non-`const` one never has one
    /// (the function may write through it), and a `const` one has one only when the
    /// caller passed an object nothing else can change.
    pub(super) fn unbound_reference(&self, f: usize, x: &str, env: &Env) -> bool {
        self.reference_parameter(f, x)
            && !(self.const_reference_parameter(f, x) && env.bindings.contains_key(x))
    }

    /// Whether parameter `x` of `f` is a `const` reference (`const dim3 &dims`) in a
    /// file that casts no `const` away.
    pub(super) fn const_reference_parameter(&self, f: usize, x: &str) -> bool {
        self.prog.funcs[f]
            .params()
            .into_iter()
            .any(|p| param_name(self.prog, p).as_deref() == Some(x) && self.const_reference(p))
    }

    /// Whether the parameter declaration `p` is a named `const` lvalue reference
    /// (`const dim3 &dims`) in a file that casts no `const` away (which may write
    /// through it).
    fn const_reference(&self, p: Node<'t>) -> bool {
        !self.prog.src.contains("const_cast")
            && named_children(p)
                .iter()
                .any(|c| c.kind() == "type_qualifier" && self.text(*c) == "const")
            && p.child_by_field_name("declarator").is_some_and(|d| {
                d.kind() == "reference_declarator"
                    && !self.text(d).starts_with("&&")
                    && named_children(d)
                        .first()
                        .is_some_and(|n| n.kind() == "identifier")
            })
    }

    /// Whether argument `a` of a call in function `caller` is an object that only a
    /// `const` reference may be bound to while the callee runs: a temporary (a
    /// literal, arithmetic, `dim3(...)`), or a local or by-value parameter of the caller
    /// that the caller only reads (so no pointer or other reference to it exists).
    pub(super) fn unaliased_argument(&self, caller: usize, a: Node<'t>) -> bool {
        match a.kind() {
            "identifier" => {
                let x = self.text(a);
                let local = self.local_declaration(caller, a, x);
                (local.is_some_and(|d| !declares_reference(self.prog, d, x) && !self.is_static(d))
                    || (local.is_none() && self.is_param(caller, x) && !self.reference_parameter(caller, x)))
                    && !self.assigned(caller, x)
            }
            "number_literal"
            | "binary_expression"
            | "parenthesized_expression"
            | "call_expression"
            | "initializer_list"
            | "compound_literal_expression" => true,
            _ => false,
        }
    }

    /// Whether function `f` declares `x` somewhere [`Reader::local_declaration`] does
    /// not look (a lambda's parameter, a range-`for` variable, an `if`/`switch` init, a
    /// structured binding, a `catch` parameter, a local enumerator) or in a block that
    /// does not hold `at`: then which declaration a use sees is not followed, and a use
    /// that finds no local declaration is not known to mean the parameter or the global.
    pub(super) fn declared_in_a_scope_not_followed(&self, f: usize, at: Node<'t>, x: &str) -> bool {
        if self.prog.funcs[f].body.is_none() || self.local_declaration(f, at, x).is_some() {
            return false;
        }
        self.memoized(
            |m| &mut m.declared_elsewhere,
            (f, x.to_string()),
            || self.declared_anywhere(f, x),
        )
    }

    /// `compute()`, remembered in the table of [`Reader::memo`] that `table` picks.
    fn memoized<K: Eq + std::hash::Hash>(
        &self,
        table: fn(&mut Memo) -> &mut HashMap<K, bool>,
        key: K,
        compute: impl FnOnce() -> bool,
    ) -> bool {
        if let Some(&v) = table(&mut self.memo.borrow_mut()).get(&key) {
            return v;
        }
        let v = compute();
        table(&mut self.memo.borrow_mut()).insert(key, v);
        v
    }

    /// Whether function `f` declares `x` anywhere (see
    /// [`Reader::declared_in_a_scope_not_followed`]).
    fn declared_anywhere(&self, f: usize, x: &str) -> bool {
        let Some(body) = self.prog.funcs[f].body else {
            return false;
        };
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            let declares = match n.kind() {
                "identifier" => {
                    declared_name(n) || {
                        // `for (auto x : v)`, `[x, y] = ...`, `catch (int x)`, `[](int x)`.
                        n.parent().is_some_and(|p| {
                            matches!(p.kind(), "for_range_loop" | "structured_binding_declarator")
                                && (p.kind() != "for_range_loop"
                                    || p.child_by_field_name("declarator")
                                        .is_some_and(|d| d.id() == n.id()))
                        })
                    }
                }
                "enumerator" => n.child_by_field_name("name").is_some_and(|m| self.text(m) == x),
                _ => false,
            };
            if declares && (n.kind() != "identifier" || self.text(n) == x) {
                return true;
            }
        }
        false
    }

    /// Whether the file defines `x` at namespace or class scope more than once (two
    /// namespaces, a class's static member, an enumerator of a namespace, a `using`):
    /// which one a use sees is not followed.
    pub(super) fn defined_more_than_once(&self, x: &str) -> bool {
        self.memoized(|m| &mut m.defined_twice, x.to_string(), || self.defined_twice(x))
    }

    /// [`Reader::defined_more_than_once`], walking the file.
    fn defined_twice(&self, x: &str) -> bool {
        let Some(root) = translation_unit(self.prog) else {
            return false;
        };
        let mut count = 0;
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.kind() == "function_definition" {
                continue; // locals are found by their function's scopes
            }
            stack.extend(named_children(n));
            let named = match n.kind() {
                "identifier" | "field_identifier" => declared_name(n) && self.text(n) == x,
                "enumerator" => n.child_by_field_name("name").is_some_and(|m| self.text(m) == x),
                "using_declaration" => self.text(n).trim_end_matches(';').ends_with(&format!("::{x}")),
                _ => false,
            };
            if named {
                count += 1;
            }
        }
        count > 1
    }

    /// Whether `x` (or a field or element of it) may change anywhere in function `f`:
    /// some mention of it other than its declaration only reads it ([`Reader::read_only_use`]):
    /// an assignment, `++`, `&x`, a reference bound to it, a by-reference argument,
    /// `cin >> x`, `std::swap(x, y)`.
    pub(super) fn assigned(&self, f: usize, x: &str) -> bool {
        self.memoized(
            |m| &mut m.assigned,
            (f, x.to_string()),
            || self.assigned_in_body(f, x),
        )
    }

    /// [`Reader::assigned`], walking the body.
    fn assigned_in_body(&self, f: usize, x: &str) -> bool {
        let Some(body) = self.prog.funcs[f].body else {
            return true;
        };
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() == "identifier" && self.text(n) == x && !declared_name(n) && !self.read_only_use(n) {
                return true;
            }
        }
        false
    }
}

/// The last change of a variable before a point ([`Reader::reaching_assignment`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum Reaching<'t> {
    /// `x = value;`
    Plain(Node<'t>),
    /// `if (c) x = value;` (or `{ x = value; }`), the `if` statement `guard`: `value`
    /// when `c` holds, else what `x` held before `guard`.
    Guarded { guard: Node<'t>, value: Node<'t> },
}

/// The condition `c` of `if (c)`; `None` for `if (int k = f(); k < n)` and other
/// conditions with a declaration, which the reader does not evaluate.
pub(super) fn plain_condition(guard: Node) -> Option<Node> {
    match named_children(guard.child_by_field_name("condition")?)[..] {
        [c] if c.kind() != "declaration" && c.kind() != "init_statement" => Some(c),
        _ => None,
    }
}

/// The `if` without `else` whose only statement is `stmt`, directly or as the one
/// statement of its braces.
fn guarding_if(stmt: Node) -> Option<Node> {
    let mut then = stmt;
    let mut parent = stmt.parent()?;
    if parent.kind() == "compound_statement" {
        let inner: Vec<Node> = named_children(parent)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        if inner.len() != 1 {
            return None;
        }
        then = parent;
        parent = parent.parent()?;
    }
    (parent.kind() == "if_statement"
        && parent.child_by_field_name("alternative").is_none()
        && parent
            .child_by_field_name("consequence")
            .is_some_and(|c| c.id() == then.id()))
    .then_some(parent)
}
