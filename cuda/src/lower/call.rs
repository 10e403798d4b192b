//! Calls: how a call expression finds what it calls, and the inlining of the file's
//! own `__device__` functions (and methods, function objects, constructors).
//!
//! - A call by name goes through the steps of [`builtins::STEPS`]: the CUDA builtins
//!   by family (barriers, atomics, math, GPUVerify annotations, ...; see
//!   [`builtins`]) and the file's own code ([`function_object`], [`own_function`],
//!   [`constructor`]).
//! - Functions the file does not define have arbitrary results; a pointer argument is
//!   taken as a read and a write of some element of what it points to.

mod fnptr;
mod lambda;
mod overload;
mod unknown;

pub(super) use fnptr::FN_PTR;
pub(super) use lambda::LambdaDef;
pub(super) use unknown::Passing;

use std::rc::Rc;

use tree_sitter::Node;

use super::builtins::{self, Call};
use super::expr::{Ref, arbitrary};
use super::stmt::items;
use super::{Frame, LVal, Lowerer, Offset, R, Ret, V, Value, VarKind, fold};
use crate::program::{last_name, named_children};
use crate::types::{Binding, StructTy, Ty};
use kpl::ir::Expr;

impl<'p, 't> Lowerer<'p, 't> {
    pub fn call(&mut self, n: Node<'t>) -> R<Value> {
        let discard = std::mem::take(&mut self.discard);
        if named_children(n).iter().any(|c| c.kind() == "kernel_call_syntax") {
            return Err(self.unsupported(n, "launching a kernel from device code", ""));
        }
        let fun = n
            .child_by_field_name("function")
            .ok_or_else(|| self.unsupported(n, "call", ""))?;
        let args: Vec<Node> = n.child_by_field_name("arguments").map(items).unwrap_or_default();
        match fun.kind() {
            "identifier" | "qualified_identifier" => {
                let name = last_name(fun, self.prog.src);
                let scope = self.text(fun).to_string();
                // `cg::tiled_partition<32>(...)`: the template arguments of a scoped name.
                let mut inner = fun;
                while let Some(x) = inner
                    .child_by_field_name("name")
                    .filter(|_| inner.kind() == "qualified_identifier")
                {
                    inner = x;
                }
                let targs = (inner.kind() == "template_function")
                    .then(|| inner.child_by_field_name("arguments"))
                    .flatten();
                self.named_call(&name, &scope, targs, &args, n, discard)
            }
            "template_function" => {
                let name = fun
                    .child_by_field_name("name")
                    .map(|x| last_name(x, self.prog.src))
                    .unwrap_or_default();
                let targs = fun.child_by_field_name("arguments");
                self.named_call(&name, &name, targs, &args, n, discard)
            }
            "field_expression" => self.method_call(fun, &args, n),
            "primitive_type" | "sized_type_specifier" | "type_identifier" | "template_type" => {
                let ty = self.base_type(fun)?;
                self.construct(ty, &args, n)
            }
            "parenthesized_expression" => {
                let inner = super::expr::strip_parens(fun);
                if inner.kind() == "identifier" {
                    let name = self.text(inner).to_string();
                    return self.named_call(&name, &name, None, &args, n, discard);
                }
                // `(*f)(x)`: the pointer itself.
                let ptr = match inner.child_by_field_name("argument") {
                    Some(a) if inner.kind() == "pointer_expression" && self.text(inner).starts_with('*') => a,
                    _ => inner,
                };
                let v = self.rvalue(ptr)?;
                self.pointer_call(v, &args, n)
            }
            _ => {
                // `ops[i](x)`, `s.table[k](x)`, ...: a call through a function pointer.
                let v = self.rvalue(fun)?;
                self.pointer_call(v, &args, n)
            }
        }
    }

    pub(super) fn eval_args(&mut self, args: &[Node<'t>]) -> R<Vec<Value>> {
        args.iter().map(|a| self.rvalue(*a)).collect()
    }

    /// A call by name: the first step of [`builtins::STEPS`] that takes it (builtins
    /// by family, and the file's own functions), else a function the file does not
    /// define.
    fn named_call(
        &mut self,
        name: &str,
        scope: &str,
        targs: Option<Node<'t>>,
        args: &[Node<'t>],
        n: Node<'t>,
        discard: bool,
    ) -> R<Value> {
        let call = Call {
            name,
            scope,
            targs,
            args,
            n,
            discard,
        };
        if let Some(v) = builtins::dispatch(self, &call)? {
            return Ok(v);
        }
        // A function the file does not define (perhaps declared: its parameters then
        // say which arguments it takes by reference).
        let declared = self.prog.functions(name, None);
        let passing = match self.overload(&declared, args.len()) {
            Some(f) if self.arity_fits(f, args.len()) => self.passing(f),
            _ if unknown::library_reads_only(&self.prog.resolve_namespace(&qualifier(scope)), name) => {
                vec![Passing::ConstRef; args.len()]
            }
            _ => Vec::new(),
        };
        if declared.is_empty() && scope == name && !name.starts_with("__") {
            self.undeclared_in_incomplete_file(name, n)?;
        }
        let argv = args.iter().map(|a| self.expr(*a)).collect::<R<Vec<_>>>()?;
        if let Some(note) = self.template_member_note(scope) {
            self.note(note);
            return self.unknown_effects(name, argv, &passing, None, n);
        }
        self.unknown_call(name, argv, &passing, None, n)
    }

    /// The note for a call of a member of a type template parameter (`Op::apply(x)` in
    /// a template kernel checked on its own, with `int` for `Op`): it names the
    /// parameter, which is what is unknown here, rather than saying that `apply` is not
    /// defined in this file.
    fn template_member_note(&self, scope: &str) -> Option<String> {
        let param = qualifier(scope);
        if param.is_empty() {
            return None;
        }
        let owner = self.frames.iter().rev().find_map(|fr| {
            let (_, b) = fr.bindings.iter().find(|(n, _)| *n == param)?;
            match b {
                Binding::Type(_) => Some(fr.func.and_then(|f| self.prog.funcs.get(f))),
                Binding::Value(_) => None,
            }
        })?;
        let of = owner.map_or(String::new(), |f| format!(" of `{}`", f.name));
        Some(format!(
            "`{scope}` is a member of `{param}`, a template parameter{of}: what it does is not known in this file (check the file that instantiates the template, where `{param}` is known); \
             the call's result is taken as arbitrary, and it may read and write everything its arguments reach"
        ))
    }

    /// Whether the file declares a function that the unqualified name `name` finds from
    /// here and that takes `nargs` arguments (C++ overload resolution would not pick one
    /// that cannot take them; argument types are not compared): a method of the object
    /// whose method is being inlined (or of its bases), or a free function of the global
    /// namespace, of a namespace around the caller, or of a namespace a `using
    /// namespace` brings in here — and that the arguments fit by type where a parameter
    /// is a struct or a scalar ([`overload`]: `fminf(a.x, b.x)` inside `helper_math.h`'s
    /// `fminf(float3, float3)` is CUDA's).
    fn file_declares(&mut self, name: &str, args: &[Node<'t>]) -> bool {
        let found = self.visible_functions(name, args.len());
        !found.is_empty() && !self.by_argument_types(found, args).is_empty()
    }

    /// The file's functions an unqualified call of `name` with `nargs` arguments finds
    /// (see [`Lowerer::file_declares`]), before argument types are compared.
    fn visible_functions(&self, name: &str, nargs: usize) -> Vec<usize> {
        let mut found = Vec::new();
        if let Some(s) = &self.frame().this_ty
            && let Some(def) = s.def
        {
            let mut defs = vec![def];
            let mut seen = std::collections::HashSet::new();
            while let Some(d) = defs.pop() {
                if !seen.insert(d) {
                    continue;
                }
                found.extend(
                    self.prog.structs[d]
                        .methods
                        .iter()
                        .copied()
                        .filter(|&m| self.prog.funcs[m].name == name && self.arity_fits(m, nargs)),
                );
                defs.extend(self.base_structs(d));
            }
        }
        let caller_ns = self
            .current_function()
            .map(|f| self.prog.funcs[f].namespace.clone())
            .unwrap_or_default();
        found.extend(
            self.prog
                .funcs_by_name
                .get(name)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&f| {
                    let def = &self.prog.funcs[f];
                    def.class.is_none()
                        && self.arity_fits(f, nargs)
                        && (def.namespace.is_empty()
                            || caller_ns == def.namespace
                            || caller_ns.starts_with(&format!("{}::", def.namespace))
                            || self.using_visible(&def.namespace))
                }),
        );
        found
    }

    /// Whether a `using namespace ns;` applies here: at file scope, or in the body of
    /// the function being lowered (the innermost one).
    fn using_visible(&self, ns: &str) -> bool {
        let here = self
            .current_function()
            .map(|f| self.prog.funcs[f].node.byte_range());
        self.prog.using_namespaces.iter().any(|(n, scope)| {
            n == ns
                && match scope {
                    None => true,
                    Some(body) => here
                        .as_ref()
                        .is_some_and(|h| h.start <= body.start && body.end <= h.end),
                }
        })
    }

    fn named_type_of(&mut self, name: &str) -> R<Ty> {
        if let Some(t) = self.lookup_alias(name) {
            return Ok(t);
        }
        if let Some(a) = self.prog.aliases.get(name).cloned() {
            return Ok(self.declared(a.ty, a.declarator)?.ty);
        }
        self.struct_type(name, None)
    }

    /// `T(args)`: a functional cast or a constructor.
    pub(super) fn construct(&mut self, ty: Ty, args: &[Node<'t>], n: Node<'t>) -> R<Value> {
        if let Ty::Opaque(name) = &ty
            && (!args.is_empty() || unknown::is_block_collective(name))
        {
            return self.construct_unknown(name, args, n);
        }
        let vals = self.eval_args(args)?;
        match (&ty, vals.len()) {
            (Ty::Struct(s), k) if k == s.fields.len() && k > 0 => {
                let v = Value {
                    v: V::Struct(vals),
                    ty: Ty::Opaque("initializer list".into()),
                };
                self.convert(v, &ty, n)
            }
            (Ty::Struct(_), _) => Ok(arbitrary(&ty)),
            (_, 1) => {
                let v = vals.into_iter().next().expect("one argument");
                self.convert(v, &ty, n)
            }
            (_, 0) if ty.is_int() => Ok(Value::int(Expr::Int(0), ty)),
            _ => Ok(arbitrary(&ty)),
        }
    }

    fn method_call(&mut self, fun: Node<'t>, args: &[Node<'t>], n: Node<'t>) -> R<Value> {
        let obj = fun
            .child_by_field_name("argument")
            .ok_or_else(|| self.unsupported(n, "call", ""))?;
        let field = fun
            .child_by_field_name("field")
            .ok_or_else(|| self.unsupported(n, "call", ""))?;
        let method = last_name(field, self.prog.src);
        let arrow = fun
            .child_by_field_name("operator")
            .is_some_and(|o| self.text(o) == "->");
        let this = if arrow {
            let p = self.rvalue(obj)?;
            self.deref_value(p, n)?
        } else {
            match self.expr(obj)? {
                Ref::L(lv) => lv,
                Ref::V(v) => {
                    let id = self.new_var("_obj", &v.ty.clone(), self.span(obj))?;
                    self.write(&LVal::Var(id), v, n)?;
                    LVal::Var(id)
                }
            }
        };
        let ty = self.lval_type(&this);
        let Some(s) = ty.as_struct().cloned() else {
            if is_group_type(&ty) {
                return self.group_method(&ty.to_string(), &method, args, n);
            }
            if builtins::is_sync_object(&ty) {
                return self.sync_object_method(&ty, &this, &method, args, n);
            }
            // A method of a type the file does not define (a library's object).
            let argv = args.iter().map(|a| self.expr(*a)).collect::<R<Vec<_>>>()?;
            if let Some(storage) = self.collective_storage(&ty, &this) {
                return self.block_collective(&ty, &method, storage, argv, n);
            }
            return self.unknown_call(&method, argv, &[], Some((this, Passing::Unknown)), n);
        };
        let Some(def) = s.def else {
            let argv = args.iter().map(|a| self.expr(*a)).collect::<R<Vec<_>>>()?;
            return self.unknown_call(&method, argv, &[], Some((this, Passing::Unknown)), n);
        };
        let methods = self.methods_named(def, &method);
        match self.overload(&methods, args.len()) {
            Some(f) if self.prog.funcs[f].body.is_some() => self.inline(f, args, None, Some((this, s)), n),
            // Declared in the struct, defined elsewhere (out of line, another file).
            Some(f) => {
                let passing = self.passing(f);
                let obj = self.object_passing(f);
                let argv = args.iter().map(|a| self.expr(*a)).collect::<R<Vec<_>>>()?;
                self.unknown_call(&method, argv, &passing, Some((this, obj)), n)
            }
            None => {
                let argv = args.iter().map(|a| self.expr(*a)).collect::<R<Vec<_>>>()?;
                self.unknown_call(&method, argv, &[], Some((this, Passing::Unknown)), n)
            }
        }
    }

    /// The methods called `name` of struct `def` (its own, else those of its base
    /// classes, nearest first). Operator names are compared without spaces.
    pub(super) fn methods_named(&self, def: usize, name: &str) -> Vec<usize> {
        let name = name.replace(' ', "");
        let mut methods = Vec::new();
        let mut defs = vec![def];
        let mut seen = std::collections::HashSet::new();
        while methods.is_empty() && !defs.is_empty() {
            let mut next = Vec::new();
            for d in defs {
                if !seen.insert(d) {
                    continue;
                }
                methods.extend(
                    self.prog.structs[d]
                        .methods
                        .iter()
                        .copied()
                        .filter(|&m| self.prog.funcs[m].name.replace(' ', "") == name),
                );
                next.extend(self.base_structs(d));
            }
            defs = next;
        }
        methods
    }

    /// `obj[i]` on a struct with an `operator[]` defined in the file: the method
    /// inlined, and the place it returns (a temporary holding its value when it returns
    /// by value). `Err` gives the object back when it is no struct with such an operator.
    pub(super) fn subscript_operator(
        &mut self,
        obj: Ref,
        index: Node<'t>,
        n: Node<'t>,
    ) -> R<Result<LVal, Ref>> {
        let ty = match &obj {
            Ref::L(lv) => self.lval_type(lv),
            Ref::V(v) => v.ty.clone(),
        };
        let Some((s, def)) = ty.as_struct().and_then(|s| Some((s.clone(), s.def?))) else {
            return Ok(Err(obj));
        };
        let methods = self.methods_named(def, "operator[]");
        let Some(f) = self
            .overload(&methods, 1)
            .filter(|&f| self.prog.funcs[f].body.is_some())
        else {
            return Ok(Err(obj));
        };
        let this = match obj {
            Ref::L(lv) => lv,
            Ref::V(v) => {
                let id = self.new_var("_obj", &v.ty.clone(), self.span(n))?;
                self.write(&LVal::Var(id), v, n)?;
                LVal::Var(id)
            }
        };
        Ok(Ok(
            match self.returned_place(n, |l| l.inline(f, &[index], None, Some((this, s)), n))? {
                Ref::L(place) => place,
                Ref::V(v) => {
                    let id = self.new_var("_elem", &v.ty.clone(), self.span(n))?;
                    self.write(&LVal::Var(id), v, n)?;
                    LVal::Var(id)
                }
            },
        ))
    }

    /// The candidate to call for `args` arguments.
    fn overload(&self, cands: &[usize], nargs: usize) -> Option<usize> {
        let fits = |f: &usize| self.arity_fits(*f, nargs);
        // Explicit specializations are chosen after the primary template's arguments are
        // known (`Lowerer::specialization`), unless there is no primary template.
        let primary = |f: &usize| self.prog.funcs[*f].spec_args.is_none();
        let any_primary = cands.iter().any(primary);
        cands
            .iter()
            .copied()
            .filter(|f| !any_primary || primary(f))
            .filter(fits)
            .max_by_key(|f| self.prog.funcs[*f].body.is_some())
            .or_else(|| cands.first().copied())
    }

    /// Whether function `f` can be called with `nargs` arguments.
    fn arity_fits(&self, f: usize, nargs: usize) -> bool {
        let def = &self.prog.funcs[f];
        let params = def.params();
        let required = params
            .iter()
            .filter(|p| p.kind() != "optional_parameter_declaration")
            .count();
        let void = params.len() == 1 && self.text(params[0]).trim() == "void";
        let total = if void { 0 } else { params.len() };
        (nargs >= required.min(total) && nargs <= total) || def.variadic()
    }

    /// The explicit specialization (`template <> T f<A, B>(...) {...}`) of the function
    /// template `f` whose arguments are the bound ones, if the file has one with a body.
    fn specialization(&mut self, f: usize, bound: &[(String, Binding)]) -> R<Option<usize>> {
        let def = &self.prog.funcs[f];
        if def.spec_args.is_some() {
            return Ok(None);
        }
        let cands: Vec<(usize, Node<'t>)> = self
            .prog
            .funcs_by_name
            .get(&def.name)
            .into_iter()
            .flatten()
            .filter(|&&g| {
                g != f && self.prog.funcs[g].class == def.class && self.prog.funcs[g].body.is_some()
            })
            .filter_map(|&g| self.prog.funcs[g].spec_args.map(|a| (g, a)))
            .collect();
        for (g, args) in cands {
            let Ok(spec) = self.template_args(args) else {
                continue;
            };
            if !spec.is_empty()
                && spec.len() <= bound.len()
                && spec.iter().zip(bound).all(|(s, (_, b))| same_binding(s, b))
            {
                return Ok(Some(g));
            }
        }
        Ok(None)
    }

    /// The conversion operator of a struct value, for `T *p = SharedMemory<T>();`.
    pub fn conversion_operator(&mut self, from: Ty, to: &Ty, n: Node<'t>) -> R<Value> {
        let Some(s) = from.as_struct().cloned() else {
            return Ok(arbitrary(to));
        };
        let Some(def) = s.def else {
            return Ok(arbitrary(to));
        };
        let ops: Vec<usize> = self.prog.structs[def]
            .methods
            .iter()
            .copied()
            .filter(|&m| self.prog.funcs[m].conversion.is_some() && self.prog.funcs[m].body.is_some())
            .collect();
        let Some(&f) = ops.first() else {
            return Err(self.unsupported(n, &format!("converting `{from}` to `{to}`"), ""));
        };
        let id = self.new_var("_obj", &from, self.span(n))?;
        let v = self.inline(f, &[], None, Some((LVal::Var(id), s)), n)?;
        self.convert(v, to, n)
    }

    /// Inlines a call of function `f`.
    fn inline(
        &mut self,
        f: usize,
        args: &[Node<'t>],
        targs: Option<Node<'t>>,
        this: Option<(LVal, Rc<StructTy>)>,
        n: Node<'t>,
    ) -> R<Value> {
        let def = self.prog.funcs[f].clone();
        if def.body.is_none() {
            return Ok(Value::arb(Ty::Opaque(def.name)));
        }
        if self.frames.iter().any(|fr| fr.func == Some(f)) {
            return Err(self.unsupported(
                n,
                &format!("recursive call of `{}`", def.name),
                "autosync inlines device functions: write the recursion as a loop",
            ));
        }
        if self.frames.len() > 48 {
            return Err(self.unsupported(n, "calls nested too deeply", ""));
        }
        let argv = self.call_arguments(&def.params(), args)?;
        self.inline_args(f, argv, targs, this, n)
    }

    /// The arguments of a call to inline, evaluated in the caller: the place for a
    /// reference parameter, else the value.
    fn call_arguments(&mut self, params: &[Node<'t>], args: &[Node<'t>]) -> R<Vec<Ref>> {
        let mut argv: Vec<Ref> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let by_ref = params
                .get(i)
                .and_then(|p| p.child_by_field_name("declarator"))
                .is_some_and(|d| {
                    d.kind() == "reference_declarator" || self.text(d).trim_start().starts_with('&')
                });
            argv.push(if by_ref {
                self.expr(*a)?
            } else {
                Ref::V(self.rvalue(*a)?)
            });
        }
        Ok(argv)
    }

    /// Inlines a call of function `f` whose arguments the caller has evaluated.
    pub(super) fn inline_args(
        &mut self,
        f: usize,
        argv: Vec<Ref>,
        targs: Option<Node<'t>>,
        this: Option<(LVal, Rc<StructTy>)>,
        n: Node<'t>,
    ) -> R<Value> {
        let def = self.prog.funcs[f].clone();
        let Some(body) = def.body else {
            return Ok(Value::arb(Ty::Opaque(def.name)));
        };
        let params = def.params();
        // A method sees its struct's template arguments and static constants.
        let mut bindings: Vec<(String, Binding)> = this
            .as_ref()
            .map(|(_, s)| {
                let constants = s.constants.iter();
                let constants = constants.map(|(c, k)| (c.clone(), Binding::Value(Expr::Int(*k))));
                s.bindings.iter().cloned().chain(constants).collect()
            })
            .unwrap_or_default();
        if let Some(tp) = def.template {
            let mut explicit = self.bind_template(tp, targs)?;
            // Deduce what was not given from the argument types.
            let given = targs.map_or(0, |t| named_children(t).len());
            for (k, (name, b)) in explicit.iter_mut().enumerate() {
                if k < given {
                    continue;
                }
                if let Some(t) = self.deduce(name, &params, &argv) {
                    *b = Binding::Type(t);
                }
            }
            if let Some(spec) = self.specialization(f, &explicit)? {
                // `template <> __device__ double f<double>(...)`: the call's arguments
                // select an explicit specialization, which is inlined instead.
                return self.inline_args(spec, argv, None, this, n);
            }
            bindings.extend(explicit);
        }
        let (ret_ty, returns_ref) = {
            let saved = std::mem::replace(&mut self.frame_mut().bindings, bindings.clone());
            let r = match (def.conversion, def.node.child_by_field_name("type")) {
                (Some(t), _) => self
                    .declared(t, def.declarator.child_by_field_name("declarator"))
                    .map(|d| (d.ty, d.reference)),
                (None, Some(t)) => self
                    .declared(t, def.node.child_by_field_name("declarator"))
                    .map(|d| (d.ty, d.reference)),
                (None, None) => Ok((Ty::Void, false)),
            };
            self.frame_mut().bindings = saved;
            r?
        };
        let several_returns = returns_early(body);
        let const_ref = named_children(def.node)
            .iter()
            .any(|c| c.kind() == "type_qualifier" && self.text(*c) == "const");
        if returns_ref && several_returns && !const_ref {
            // The place returned depends on the path taken: a write through it could
            // not be followed.
            return Err(self.unsupported(
                n,
                &format!("`{}` returns a reference from more than one `return`", def.name),
                "return a pointer, or return from one place",
            ));
        }
        // The caller takes the place the function returns ([`Lowerer::returned_place`]).
        let want_place = matches!(&self.ref_call, Some((id, None)) if *id == n.id());
        // The call, for reports: spans made while the body is lowered name it.
        let call = self.record_call(f, n);
        self.frames.push(Frame {
            func: Some(f),
            bindings,
            this_ty: this.as_ref().map(|(_, s)| s.clone()),
            this: this.map(|(lv, _)| lv),
            ret: Ret::Last,
            loops: 0,
            assigned: super::stmt::assigned_names(self.prog, body),
            scope_base: self.scopes.len(),
            placeable: false,
            ret_value: None,
            ret_place: None,
            returns_ref,
            call: Some(call),
        });
        self.push_scope();
        let r = (|| -> R<Value> {
            self.bind_args(&params, argv, n)?;
            if several_returns {
                let span = self.span(n);
                let done = self.mutable_local(&format!("{}_done", def.name), Some(Expr::Int(0)), span);
                let result = if ret_ty == Ty::Void {
                    None
                } else {
                    Some(self.new_var(&format!("{}_ret", def.name), &ret_ty, span)?)
                };
                self.frame_mut().ret = Ret::Flag { done, result };
            }
            self.compound_items(body)?;
            Ok(match self.frame().ret.clone() {
                Ret::Flag { result: Some(r), .. } => self.read(&LVal::Var(r), n)?,
                Ret::Flag { result: None, .. } => Value::void(),
                _ => match (
                    self.frame_mut().ret_place.take(),
                    self.frame_mut().ret_value.take(),
                ) {
                    (Some(place), _) if want_place => {
                        self.ref_call = Some((n.id(), Some(place)));
                        arbitrary(&ret_ty)
                    }
                    (Some(place), _) => {
                        let v = self.read(&place, n)?;
                        self.convert(v, &ret_ty, n)?
                    }
                    // A non-`const` reference to something that is not a place the
                    // lowering follows (`return c ? p[i] : q[i];`): writes through it
                    // would be lost.
                    (None, Some(_)) if returns_ref && !const_ref => {
                        return Err(self.unsupported(
                            n,
                            &format!(
                                "`{}` returns a reference to a place autosync does not follow",
                                def.name
                            ),
                            "return a reference to one variable or element, or return a pointer",
                        ));
                    }
                    (None, Some(v)) => self.convert(v, &ret_ty, n)?,
                    (None, None) => arbitrary(&ret_ty),
                },
            })
        })();
        self.pop_scope();
        self.frames.pop();
        r
    }

    /// Records an inlined call of function `f` at node `n` ([`kpl::Kernel::calls`]),
    /// made in the frame being lowered now.
    fn record_call(&mut self, f: usize, n: Node<'t>) -> kpl::ir::CallId {
        let def = &self.prog.funcs[f];
        let callee = match def.class.and_then(|c| self.prog.structs.get(c)) {
            Some(s) if !def.name.contains("::") => format!("{}::{}", s.name, def.name),
            _ => def.name.clone(),
        };
        self.record_callee(callee, n)
    }

    /// Records an inlined call of `callee` (a function's name, a lambda's local) at `n`.
    fn record_callee(&mut self, callee: String, n: Node<'t>) -> kpl::ir::CallId {
        let site = self.span(n);
        let id = kpl::ir::CallId(u32::try_from(self.calls.len()).unwrap_or(u32::MAX));
        self.calls.push(kpl::ir::CallFrame { callee, site });
        id
    }

    /// Binds the parameters of an inlined function to the argument values.
    fn bind_args(&mut self, params: &[Node<'t>], argv: Vec<Ref>, n: Node<'t>) -> R<()> {
        let mut argv = argv.into_iter();
        for p in params {
            let Some(t) = p.child_by_field_name("type") else {
                continue;
            };
            let d = self.declared(t, p.child_by_field_name("declarator"))?;
            let Some(name) = d.name.clone() else {
                argv.next();
                continue;
            };
            let arg = match argv.next() {
                Some(a) => a,
                None => match p.child_by_field_name("default_value") {
                    Some(dv) => Ref::V(self.rvalue(dv)?),
                    None => Ref::V(arbitrary(&d.ty)),
                },
            };
            let span = self.span(*p);
            let assigned = self.frame().assigned.contains(&name);
            let ty = match &d.ty {
                Ty::Array(e, _) => Ty::ptr((**e).clone()),
                t => t.clone(),
            };
            // A group parameter the function never assigns is the group passed
            // (`thread_block_tile<32> warp`).
            let ty = match &arg {
                _ if assigned => ty,
                Ref::L(lv) => builtins::refine_group(&ty, &self.lval_type(lv)),
                Ref::V(v) => builtins::refine_group(&ty, &v.ty),
            };
            match arg {
                Ref::L(lv) if d.reference => {
                    self.add_var(&name, ty, VarKind::Ref(lv));
                }
                Ref::L(lv) => {
                    let v = self.read(&lv, n)?;
                    self.bind_value(&name, ty, v, assigned, span, n)?;
                }
                Ref::V(v) => self.bind_value(&name, ty, v, assigned, span, n)?,
            }
        }
        Ok(())
    }

    fn bind_value(
        &mut self,
        name: &str,
        ty: Ty,
        v: Value,
        assigned: bool,
        span: kpl::ir::Span,
        n: Node<'t>,
    ) -> R<()> {
        let v = self.convert(v, &ty, n)?;
        match (&v.v, &ty) {
            (V::Int(e), Ty::Int { .. } | Ty::Bool) if !assigned && self.stable(e) => {
                self.add_var(name, ty, VarKind::Fixed(e.clone()));
            }
            (V::Ptr(p), Ty::Ptr(_)) if !assigned && self.stable(&p.off) => {
                self.add_var(
                    name,
                    ty.clone(),
                    VarKind::Ptr {
                        target: Some(p.target),
                        off: Offset::Fixed(p.off.clone()),
                        unit: p.unit,
                    },
                );
            }
            (V::Ptr(p), Ty::Ptr(_)) => {
                let l = self.mutable_local(name, Some(p.off.clone()), span);
                self.add_var(
                    name,
                    ty.clone(),
                    VarKind::Ptr {
                        target: Some(p.target),
                        off: Offset::Local(l),
                        unit: p.unit,
                    },
                );
            }
            _ => {
                let id = self.new_var(name, &ty, span)?;
                self.write(&LVal::Var(id), v, n)?;
            }
        }
        Ok(())
    }

    /// The type a template type parameter gets from the arguments (`T x`, `T *p`).
    fn deduce(&self, param: &str, params: &[Node<'t>], argv: &[Ref]) -> Option<Ty> {
        for (p, a) in params.iter().zip(argv) {
            let t = p.child_by_field_name("type")?;
            if self.text(t) != param {
                continue;
            }
            let mut depth = 0;
            let mut d = p.child_by_field_name("declarator");
            while let Some(x) = d {
                if x.kind().contains("pointer") {
                    depth += 1;
                }
                d = x.child_by_field_name("declarator");
            }
            let mut ty = match a {
                Ref::V(v) => v.ty.clone(),
                Ref::L(lv) => self.lval_type(lv),
            };
            for _ in 0..depth {
                ty = ty.pointee()?.clone();
            }
            return Some(ty);
        }
        None
    }
}

fn count(n: Node, kind: &str) -> usize {
    (n.kind() == kind) as usize
        + named_children(n)
            .into_iter()
            .map(|c| count(c, kind))
            .sum::<usize>()
}

/// Whether a function body returns other than by its last statement: its `return`s
/// then set a flag that guards the rest (`Ret::Flag`).
fn returns_early(body: Node) -> bool {
    let returns = count(body, "return_statement");
    let last_is_return = items(body).last().is_some_and(|s| s.kind() == "return_statement");
    returns > 1 || (returns == 1 && !last_is_return)
}

/// The dispatch step for a local function object (`f(x)` with `f` a variable): its
/// `operator()` inlined, or the lambda it names (`call/lambda.rs`).
pub(super) fn function_object<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    if c.scope == c.name
        && let Some(def) = l.visible_lambda(c.name)
    {
        return l.call_lambda(c.name, def, c.args, c.n).map(Some);
    }
    let Some(id) = l.lookup(c.name) else {
        // A template's function-pointer parameter (`template <float (*f)(float)>`)
        // bound to a function of the file. In an open instance (a symbolic value) it is
        // a function the file does not define, as before the binding.
        if let Some(Binding::Value(e)) = l.binding(c.name)
            && fold::int(&e).is_some()
        {
            let v = Value::int(e, fnptr::FN_PTR);
            return l.pointer_call(v, c.args, c.n).map(Some);
        }
        // A file-scope function pointer (`__device__ op_t op = add1;` then `op(x)`).
        if l.prog.globals.contains_key(c.name)
            && l.prog.functions(c.name, None).is_empty()
            && let Some(lv) = l.global(c.name, c.n)?
            && l.lval_type(&lv).is_int()
        {
            let v = l.read(&lv, c.n)?;
            return l.pointer_call(v, c.args, c.n).map(Some);
        }
        return Ok(None);
    };
    let (args, n) = (c.args, c.n);
    let lv = LVal::Var(id);
    if let Some(st) = l.lval_type(&lv).as_struct().cloned() {
        let calls: Vec<usize> = st
            .def
            .map(|d| l.prog.structs[d].methods.clone())
            .unwrap_or_default()
            .into_iter()
            .filter(|&m| l.prog.funcs[m].name.replace(' ', "") == "operator()")
            .collect();
        if let Some(f) = l.overload(&calls, args.len())
            && l.prog.funcs[f].body.is_some()
        {
            return l.inline(f, args, c.targs, Some((lv, st)), n).map(Some);
        }
    }
    if l.lval_type(&lv).is_int() {
        // A function pointer variable (`fnptr`).
        let v = l.read(&lv, n)?;
        return l.pointer_call(v, args, n).map(Some);
    }
    if matches!(l.lval_type(&lv), Ty::Opaque(_)) {
        // An object of a type autosync does not know (an unbound template
        // parameter): like a method the file does not define.
        let argv = args.iter().map(|a| l.expr(*a)).collect::<R<Vec<_>>>()?;
        return l
            .unknown_call(c.name, argv, &[], Some((lv, Passing::Unknown)), n)
            .map(Some);
    }
    Err(l.unsupported(
        n,
        "a call through a function pointer",
        "call the function directly",
    ))
}

/// The dispatch step for the file's own functions, inlined: inside a method, another
/// method of the class called by its bare name; else a function of that name (they win
/// over builtins of the same name that come later in the order); `S::f(...)` may be a
/// static method.
pub(super) fn own_function<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let (name, args) = (c.name, c.args);
    if let (Some(this), Some(s)) = (l.frame().this.clone(), l.frame().this_ty.clone())
        && let Some(def) = s.def
    {
        let methods: Vec<usize> = l.prog.structs[def]
            .methods
            .iter()
            .copied()
            .filter(|&m| l.prog.funcs[m].name == name)
            .collect();
        if let Some(f) = l.overload(&methods, args.len())
            && l.prog.funcs[f].body.is_some()
        {
            return l.inline(f, args, c.targs, Some((this, s)), c.n).map(Some);
        }
    }
    let q = qualifier(c.scope);
    let defined = if q.is_empty() {
        l.prog.functions(name, None)
    } else {
        qualified_functions(l, &q, name)
    };
    let defined = if defined.is_empty() {
        defined
    } else {
        l.by_argument_types(defined, args)
    };
    if let Some(f) = l.overload(&defined, args.len())
        && l.prog.funcs[f].body.is_some()
    {
        return l.inline(f, args, c.targs, None, c.n).map(Some);
    }
    Ok(None)
}

/// The file's functions a qualified call `q::name` names: the (static) methods of the
/// struct `q`, or the free functions of the file's namespace `q` (through its aliases);
/// none for a namespace that is not the file's (`cg::reduce` is never the file's
/// `reduce`).
fn qualified_functions(l: &Lowerer<'_, '_>, q: &str, name: &str) -> Vec<usize> {
    let last = q.rsplit("::").next().unwrap_or(q);
    let all = l.prog.funcs_by_name.get(name).into_iter().flatten().copied();
    if let Some(structs) = l.prog.structs_by_name.get(last) {
        return all
            .filter(|&f| l.prog.funcs[f].class.is_some_and(|c| structs.contains(&c)))
            .collect();
    }
    let ns = l.prog.resolve_namespace(q);
    if !l.prog.namespaces.contains(&ns) {
        return Vec::new();
    }
    all.filter(|&f| {
        let fns = &l.prog.funcs[f].namespace;
        l.prog.funcs[f].class.is_none() && (*fns == ns || fns.ends_with(&format!("::{ns}")))
    })
    .collect()
}

/// Whether a call by name may be a CUDA builtin, as C++ name lookup decides: names
/// reserved to the implementation (`__syncthreads`, `__ldg`) always are; a call
/// qualified by a namespace is one when the namespace is CUDA's or a library's
/// (`cg::sync` with `namespace cg = cooperative_groups;`, `cuda::std::`, `nvcuda::wmma::`)
/// and not one of the file's; an unqualified call (or `::f`) is one when the file
/// declares no function it finds (defined or only declared: a user's `sync(int *)` is
/// never `cooperative_groups::sync`).
pub(super) fn may_be_builtin<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> bool {
    if c.name.starts_with("__") {
        return true;
    }
    let q = qualifier(c.scope);
    if q.is_empty() {
        !l.file_declares(c.name, c.args)
    } else {
        library_qualified(l, &q)
    }
}

/// Whether a call may be one of CUDA's global functions that files overload rather than
/// replace (`atomicAdd` next to a file's `double` polyfill, `make_float3` next to
/// `helper_math.h`'s `make_float3(float4)`): C++ overload resolution picks CUDA's where
/// the arguments fit it, and autosync, which does not compare argument types, takes
/// CUDA's unless the call is qualified by a namespace or struct of the file.
pub(super) fn may_be_overloaded_builtin(l: &Lowerer<'_, '_>, c: &Call<'_, '_>) -> bool {
    let q = qualifier(c.scope);
    c.name.starts_with("__") || q.is_empty() || library_qualified(l, &q)
}

/// Whether a qualifier names CUDA's or a library's namespace, not one of the file's.
fn library_qualified(l: &Lowerer<'_, '_>, q: &str) -> bool {
    let ns = l.prog.resolve_namespace(q);
    !l.prog.namespaces.contains(&ns) && !l.prog.structs_by_name.contains_key(&ns) && is_library_namespace(&ns)
}

/// The qualifier of a scoped name without template arguments (`cg` of
/// `cg::reduce<int>`, `Tile` of `Tile<32>::load`), empty if none (also for `::f`).
fn qualifier(scope: &str) -> String {
    let mut depth = 0i32;
    let mut last = None;
    let bytes = scope.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => last = Some(i),
            _ => {}
        }
    }
    let Some(end) = last else {
        return String::new();
    };
    let mut out = String::new();
    let mut depth = 0i32;
    for ch in scope[..end].chars() {
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    out.trim().trim_start_matches("::").trim().to_string()
}

/// Namespaces whose functions autosync's builtins model: CUDA's and the C++ library's
/// (`cg` is the conventional alias of `cooperative_groups`, also where the alias comes
/// from a header).
fn is_library_namespace(ns: &str) -> bool {
    let first = ns.split("::").next().unwrap_or("");
    matches!(
        first,
        "cooperative_groups" | "cg" | "cuda" | "std" | "nvcuda" | "wmma" | "cub" | "thrust"
    )
}

/// The dispatch step for `T(args)` with `T` a struct or typedef of the file, or a
/// scalar type by name: a constructor or functional cast.
pub(super) fn constructor<'t>(l: &mut Lowerer<'_, 't>, c: &Call<'_, 't>) -> R<Option<Value>> {
    let name = c.name;
    if l.prog.structs_by_name.contains_key(name)
        || l.lookup_alias(name).is_some()
        || l.prog.aliases.contains_key(name)
    {
        let ty = match c.targs {
            Some(t) if l.prog.structs_by_name.contains_key(name) => l.struct_type(name, Some(t))?,
            _ => l.named_type_of(name)?,
        };
        return l.construct(ty, c.args, c.n).map(Some);
    }
    match crate::types::builtin_scalar(name) {
        Some(ty) => l.construct(ty, c.args, c.n).map(Some),
        None => Ok(None),
    }
}

/// Whether an explicit specialization's argument is the bound template argument.
fn same_binding(spec: &Binding, bound: &Binding) -> bool {
    match (spec, bound) {
        (Binding::Value(a), Binding::Value(b)) => match (fold::int(a), fold::int(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
        (Binding::Type(a), Binding::Type(b)) => a == b,
        _ => false,
    }
}

/// Whether a type that is not a struct of the file is a cooperative group, whose
/// methods `builtins::sync` knows.
fn is_group_type(ty: &Ty) -> bool {
    builtins::is_group(&ty.to_string())
}
