//! Declarations: a local variable of each kind of type (integer, float, pointer,
//! array, struct, reference, `auto`), `__shared__` arrays, constructor calls tree-sitter
//! misreads, and the initial values they get.

use tree_sitter::Node;

use super::items;
use crate::lower::expr::strip_parens;
use crate::lower::fold;
use crate::lower::{ArrayKey, ArraySpace, LVal, Lowerer, Offset, R, Target, V, Value, VarKind};
use crate::program::named_children;
use crate::types::Ty;
use kpl::ir::{Expr, Stmt, StmtKind};

impl<'p, 't> Lowerer<'p, 't> {
    pub fn declaration(&mut self, n: Node<'t>) -> R<()> {
        let quals = self.quals(n);
        let Some(ty_node) = n.child_by_field_name("type") else {
            return Ok(());
        };
        let ds: Vec<Node> = {
            let mut c = n.walk();
            n.children_by_field_name("declarator", &mut c).collect()
        };
        for d in ds {
            // `auto step = [&](int i) { ... };`: a lambda, inlined where it is called.
            if d.kind() == "init_declarator"
                && let Some(lambda) = d
                    .child_by_field_name("value")
                    .filter(|v| v.kind() == "lambda_expression")
                && let Some(name) = d
                    .child_by_field_name("declarator")
                    .filter(|x| x.kind() == "identifier")
            {
                let name = self.text(name).to_string();
                self.define_lambda(&name, lambda)?;
                continue;
            }
            let decl = self.declared(ty_node, Some(d))?;
            // `SHMEM unsigned s[64];` with `#define SHMEM __shared__` in a header that
            // was not read: an unknown type name may hide a storage class.
            if ty_node.kind() == "type_identifier" && matches!(self.base_type(ty_node)?, Ty::Opaque(_)) {
                self.undeclared_in_incomplete_file(self.text(ty_node), ty_node)?;
            }
            // `SHMEM unsigned s[64]` is not C++ (a type name before `unsigned`): a macro
            // autosync did not read, of a header it skipped.
            if ty_node.kind() == "sized_type_specifier"
                && let Some(t) = named_children(ty_node)
                    .into_iter()
                    .find(|c| c.kind() == "type_identifier")
            {
                return Err(self.unsupported(
                    t,
                    &format!(
                        "`{}` before a C++ type (a macro autosync did not read?)",
                        self.text(t)
                    ),
                    "pass the folder of the header that defines it with -I",
                ));
            }
            if decl.function {
                if crate::program::innermost_function_declarator(d).is_none() {
                    return Err(self.unsupported(d, "function pointers", "call the function directly"));
                }
                if let Some(args) = self.misread_constructor_args(d) {
                    self.declare_constructed(ty_node, d, &args, quals)?;
                }
                continue; // a prototype
            }
            let Some(name) = decl.name.clone() else { continue };
            let init = if d.kind() == "init_declarator" {
                d.child_by_field_name("value")
            } else {
                None
            };
            self.declare(&name, decl, quals, init, d)?;
        }
        Ok(())
    }

    /// `T obj(a, b);` with `a` and `b` naming variables: the parser, which does not know
    /// which names are types, reads a prototype; C++ reads an object constructed from
    /// them. The argument nodes (the "parameter types") when it is such an object.
    fn misread_constructor_args(&self, d: Node<'t>) -> Option<Vec<Node<'t>>> {
        let f = crate::program::innermost_function_declarator(d)?;
        let params = named_children(f.child_by_field_name("parameters")?);
        if params.is_empty() {
            return None;
        }
        params
            .into_iter()
            .map(|p| {
                let t = p.child_by_field_name("type")?;
                let name = self.text(t);
                let is_variable = t.kind() == "type_identifier"
                    && p.child_by_field_name("declarator").is_none()
                    && (self.lookup(name).is_some() || self.prog.globals.contains_key(name));
                is_variable.then_some(t)
            })
            .collect()
    }

    /// Declares the object of a misread `T obj(a, b);` and constructs it from its
    /// arguments, as `T obj = T(a, b);`.
    fn declare_constructed(
        &mut self,
        ty_node: Node<'t>,
        d: Node<'t>,
        args: &[Node<'t>],
        quals: crate::lower::types::Quals,
    ) -> R<()> {
        let Some(f) = crate::program::innermost_function_declarator(d) else {
            return Ok(());
        };
        let Some(name) = f
            .child_by_field_name("declarator")
            .map(|x| self.text(x).to_string())
        else {
            return Ok(());
        };
        let ty = self.base_type(ty_node)?;
        let value = self.construct(ty.clone(), args, d)?;
        let decl = crate::lower::types::Declared {
            ty,
            name: Some(name.clone()),
            reference: false,
            restrict: false,
            function: false,
        };
        self.declare(&name, decl, quals, None, d)?;
        if let Some(id) = self.lookup(&name) {
            self.write(&LVal::Var(id), value, d)?;
        }
        Ok(())
    }

    /// Declares one local `name` of the declared type, by what it declares: shared
    /// arrays and references by their qualifiers, the rest by its type.
    fn declare(
        &mut self,
        name: &str,
        decl: crate::lower::types::Declared,
        quals: crate::lower::types::Quals,
        init: Option<Node<'t>>,
        d: Node<'t>,
    ) -> R<()> {
        let ty = decl.ty.clone();
        if quals.shared {
            self.declare_shared(name, ty, quals.external, d);
            return Ok(());
        }
        if decl.reference {
            return self.declare_reference(name, ty, quals.constant_value, init, d);
        }
        match &ty {
            Ty::Opaque(a) if a == "auto" => self.declare_auto(name, &ty, init, d),
            Ty::Int { .. } | Ty::Bool => self.declare_int(name, ty, init, d),
            Ty::Float { .. } => self.declare_float(name, ty, init, d),
            Ty::Ptr(pointee) => {
                let unit = pointee.cell_bytes();
                self.declare_pointer(name, ty, unit, init, d)
            }
            Ty::Array(..) => self.declare_array(name, ty, quals.constant, init, d),
            Ty::Struct(_) => self.declare_struct(name, &ty, init, d),
            Ty::Texture => {
                self.add_var(name, ty, VarKind::Texture);
                Ok(())
            }
            _ => {
                // Anything else is opaque: its initializer still runs. A group never
                // assigned keeps the kind of group it is initialized with.
                let v = self.init_value(init, &ty)?;
                let assigned = self.frame().assigned.contains(name);
                let ty = match v {
                    Some(v) if !assigned => crate::lower::builtins::refine_group(&ty, &v.ty),
                    _ => ty.clone(),
                };
                self.add_var(name, ty, VarKind::Arb);
                Ok(())
            }
        }
    }

    /// A `__shared__` array (or scalar): one array of the block, per declaration (its
    /// size from the type), or the one `extern __shared__` array of unknown size that
    /// every such declaration names.
    fn declare_shared(&mut self, name: &str, ty: Ty, external: bool, d: Node<'t>) {
        let key = if external {
            ArrayKey::ExternShared
        } else {
            ArrayKey::Decl(d.start_byte())
        };
        let cell = ty.cell_bytes();
        let cells = (!external).then(|| ty.cells());
        let (a, base) = self.array_at(key, name, ArraySpace::Shared, cell, cells);
        let kind = self.array_var(a, base, &ty);
        self.add_var(name, ty, kind);
    }

    /// A reference: another name for the place its initializer denotes, or a copy when
    /// it binds a temporary (a const reference).
    fn declare_reference(
        &mut self,
        name: &str,
        ty: Ty,
        constant: bool,
        init: Option<Node<'t>>,
        d: Node<'t>,
    ) -> R<()> {
        let Some(init) = init else {
            return Err(self.unsupported(d, "a reference without initializer", ""));
        };
        // C++ makes `c ? x : y`, `(a, x)`, `x = v` and `++x` l-values that a reference
        // names; the lowering computes their values, so a copy would miss every later
        // write through the reference or to the variable it names.
        if matches!(
            strip_parens(init).kind(),
            "conditional_expression" | "comma_expression" | "assignment_expression" | "update_expression"
        ) {
            return Err(self.unsupported(
                init,
                "a reference bound to a conditional, comma, assignment or increment expression",
                "bind the reference to a variable or an element, or use a pointer",
            ));
        }
        let lv = match self.expr(init)? {
            crate::lower::expr::Ref::L(lv) => lv,
            // A call whose place is unknown (a function the file does not define that
            // returns a reference): writes through the reference could not be followed.
            crate::lower::expr::Ref::V(_) if !constant && strip_parens(init).kind() == "call_expression" => {
                return Err(self.unsupported(
                    init,
                    "a reference bound to the result of a call whose target autosync does not know",
                    "use a pointer, or a function defined in the file",
                ));
            }
            crate::lower::expr::Ref::V(v) => {
                // A const reference to a temporary: a copy.
                let id = self.new_var(name, &v.ty.clone(), self.span(d))?;
                self.write(&LVal::Var(id), v, d)?;
                return Ok(());
            }
        };
        self.add_var(name, ty, VarKind::Ref(lv));
        Ok(())
    }

    /// The value of an initializer converted to the declared type (`None` without
    /// one): `T v(args)` is a functional cast for a scalar and an arbitrary value for
    /// a constructor, `int x = {5}` is `5`.
    pub(super) fn init_value(&mut self, init: Option<Node<'t>>, target_ty: &Ty) -> R<Option<Value>> {
        match init {
            None => Ok(None),
            Some(i) if i.kind() == "argument_list" => {
                // T v(args): a constructor (struct) or a functional cast (scalar).
                let args = items(i);
                let mut vals = Vec::new();
                for a in &args {
                    vals.push(self.rvalue(*a)?);
                }
                match (vals.len(), target_ty) {
                    (1, t) if t.as_struct().is_none() => {
                        let v = vals.pop().expect("one value");
                        self.initialize(v, target_ty, i).map(Some)
                    }
                    _ => Ok(Some(crate::lower::expr::arbitrary(target_ty))),
                }
            }
            Some(i) => {
                let v = self.rvalue(i)?;
                let v = match (&v.v, target_ty) {
                    // `int x = {5};`
                    (V::Struct(vals), t) if t.as_struct().is_none() && !t.is_array() && vals.len() == 1 => {
                        vals[0].clone()
                    }
                    _ => v,
                };
                self.initialize(v, target_ty, i).map(Some)
            }
        }
    }

    /// The value an object of type `ty` is initialized with: `v` converted, except that
    /// a group initialized with a group is the group it is (`thread_block_tile<32> w =
    /// tiled_partition<32>(block)` is a tile of the block, see `builtins::sync`).
    fn initialize(&mut self, v: Value, ty: &Ty, n: Node<'t>) -> R<Value> {
        let from = v.ty.clone();
        let mut out = self.convert(v, ty, n)?;
        if crate::lower::builtins::is_group(&ty.to_string())
            && crate::lower::builtins::is_group(&from.to_string())
        {
            out.ty = crate::lower::builtins::refine_group(ty, &from);
        }
        Ok(out)
    }

    /// `auto x = e`: a variable of the initializer's type.
    fn declare_auto(&mut self, name: &str, ty: &Ty, init: Option<Node<'t>>, d: Node<'t>) -> R<()> {
        let Some(v) = self.init_value(init, ty)? else {
            return Err(self.unsupported(d, "`auto` without initializer", ""));
        };
        let vty = v.ty.clone();
        let id = self.new_var(name, &vty, self.span(d))?;
        self.write(&LVal::Var(id), v, d)
    }

    /// A floating-point variable: a KPL local holding its value's term (see
    /// `lower::float`), mutable only if the function assigns it.
    fn declare_float(&mut self, name: &str, ty: Ty, init: Option<Node<'t>>, d: Node<'t>) -> R<()> {
        let span = self.span(d);
        let assigned = self.frame().assigned.contains(name);
        let init = match self.init_value(init, &ty)?.map(|v| v.v) {
            Some(V::Float(e)) => Some(e),
            Some(V::Uniform) => Some(self.uniform_value()),
            _ => None,
        };
        let kpl = if assigned {
            self.mutable_local(name, init, span)
        } else {
            self.local(name, init, span)
        };
        self.add_var(name, ty, VarKind::Float(kpl));
        Ok(())
    }

    /// An integer (or `bool`): a KPL local (mutable only if the function assigns it),
    /// read straight from memory when initialized by a read, or no local at all when it
    /// is a constant never assigned.
    fn declare_int(&mut self, name: &str, ty: Ty, init: Option<Node<'t>>, d: Node<'t>) -> R<()> {
        let span = self.span(d);
        let assigned = self.frame().assigned.contains(name);
        let plain = init.filter(|i| !matches!(i.kind(), "argument_list" | "initializer_list"));
        let memory_read = plain.is_some_and(|i| {
            matches!(
                strip_parens(i).kind(),
                "subscript_expression" | "field_expression" | "pointer_expression"
            )
        });
        if let (Some(i), true) = (plain, memory_read) {
            return self.declare_int_read(name, ty, assigned, i, d);
        }
        let v = match plain {
            Some(i) => {
                let v = self.rvalue(i)?;
                Some(self.convert(v, &ty, d)?)
            }
            None => self.init_value(init, &ty)?,
        };
        match v.map(|v| v.v) {
            Some(V::Int(e)) if !assigned && fold::int(&e).is_some() => {
                // Never assigned and constant: no local needed.
                self.add_var(name, ty, VarKind::Fixed(e));
            }
            v => {
                let init = match v {
                    Some(V::Int(e)) => Some(e),
                    _ => None,
                };
                let kpl = if assigned {
                    self.mutable_local(name, init, span)
                } else {
                    self.local(name, init, span)
                };
                self.add_var(name, ty, VarKind::Int(kpl));
            }
        }
        Ok(())
    }

    /// `int x = A[i];`: the local is declared first and the read goes straight into
    /// it (no temporary), converted afterwards if the read gave another value.
    fn declare_int_read(&mut self, name: &str, ty: Ty, assigned: bool, i: Node<'t>, d: Node<'t>) -> R<()> {
        let span = self.span(d);
        let kpl = self.fresh(name);
        if assigned {
            self.mutable.insert(kpl.clone());
        }
        let at = self.mark();
        self.emit(
            StmtKind::Local {
                var: kpl.clone(),
                init: None,
            },
            span,
        );
        let v = match self.read_into(i, &kpl)? {
            Some(v) => v,
            None => self.rvalue(i)?,
        };
        if !matches!(&v.v, V::Int(Expr::Var(x)) if *x == kpl) {
            let v = self.convert(v, &ty, d)?;
            self.set_init(at, &kpl, v, span);
        }
        self.add_var(name, ty, VarKind::Int(kpl));
        Ok(())
    }

    /// A pointer: its target and offset, the offset a fixed term when it is never
    /// assigned and stable, else a mutable local. `0` is the null pointer, another
    /// non-pointer an unknown target; uninitialized, its unit is `unit` (the pointee's
    /// cell size).
    fn declare_pointer(
        &mut self,
        name: &str,
        ty: Ty,
        unit: u32,
        init: Option<Node<'t>>,
        d: Node<'t>,
    ) -> R<()> {
        let v = self.init_value(init, &ty)?;
        let assigned = self.frame().assigned.contains(name);
        let (target, off, unit) = match v.map(|v| v.v) {
            Some(V::Ptr(p)) => (Some(p.target), Some(p.off), p.unit),
            Some(V::Int(e)) if fold::int(&e) == Some(0) => (Some(Target::Null), Some(Expr::Int(0)), 1),
            Some(_) => (Some(Target::Unknown), Some(Expr::Int(0)), 1),
            None => (None, None, unit),
        };
        let kind = match (&off, assigned) {
            (Some(o), false) if self.stable(o) => VarKind::Ptr {
                target,
                off: Offset::Fixed(o.clone()),
                unit,
            },
            _ => {
                let l = self.mutable_local(name, off, self.span(d));
                VarKind::Ptr {
                    target,
                    off: Offset::Local(l),
                    unit,
                }
            }
        };
        self.add_var(name, ty, kind);
        Ok(())
    }

    /// A local array: a private array of the thread, or a `__constant__` one (a
    /// declaration's own array). Its initializer is evaluated for its effects only.
    fn declare_array(
        &mut self,
        name: &str,
        ty: Ty,
        constant: bool,
        init: Option<Node<'t>>,
        d: Node<'t>,
    ) -> R<()> {
        if let Some(i) = init {
            self.rvalue(i)?;
        }
        let (key, space) = if constant {
            (ArrayKey::Decl(d.start_byte()), ArraySpace::Constant)
        } else {
            (ArrayKey::Private(d.start_byte()), ArraySpace::Private)
        };
        let a = self.array(key, name, space, ty.cell_bytes());
        self.add_var(name, ty, VarKind::Array(Target::Array(a)));
        Ok(())
    }

    /// A struct: one variable per field. Initialized by an expression, the fields are
    /// declared first so that a load goes straight into them.
    fn declare_struct(&mut self, name: &str, ty: &Ty, init: Option<Node<'t>>, d: Node<'t>) -> R<()> {
        let span = self.span(d);
        if let Some(i) = init.filter(|i| !matches!(i.kind(), "argument_list" | "initializer_list")) {
            // Declare the fields first, so a load goes straight into them.
            let id = self.new_var(name, ty, span)?;
            self.pop_var_binding(name);
            if !self.load_struct(id, i)? {
                let v = self.rvalue(i)?;
                let v = self.convert(v, ty, d)?;
                self.write(&LVal::Var(id), v, d)?;
            }
            self.bind_var(name, id);
            return Ok(());
        }
        let v = self.init_value(init, ty)?;
        let id = self.new_var(name, ty, span)?;
        if let Some(v) = v {
            self.write(&LVal::Var(id), v, d)?;
        }
        Ok(())
    }

    /// Sets the initial value of the local declared at `at` (or assigns it).
    fn set_init(&mut self, at: usize, kpl: &str, v: Value, span: kpl::ir::Span) {
        let last = self.mark() == at + 1;
        match v.v {
            V::Int(e) if last => {
                if let Some(Stmt {
                    kind: StmtKind::Local { init, .. },
                    ..
                }) = self.blocks.last_mut().and_then(|b| b.get_mut(at))
                {
                    *init = Some(e);
                }
            }
            V::Int(e) => self.emit(
                StmtKind::Assign {
                    var: kpl.to_string(),
                    value: e,
                },
                span,
            ),
            // `local x;` is already arbitrary, unless statements in between assigned it.
            _ if last => {}
            _ => self.emit(StmtKind::havoc(kpl.to_string()), span),
        }
    }

    /// A fresh C++ variable of a type (KPL locals for its integer parts).
    pub fn new_var(&mut self, name: &str, ty: &Ty, span: kpl::ir::Span) -> R<usize> {
        let kind = self.var_kind(name, ty, span);
        Ok(self.add_var(name, ty.clone(), kind))
    }

    fn var_kind(&mut self, name: &str, ty: &Ty, span: kpl::ir::Span) -> VarKind {
        match ty {
            Ty::Int { .. } | Ty::Bool => VarKind::Int(self.mutable_local(name, None, span)),
            Ty::Float { .. } => VarKind::Float(self.mutable_local(name, None, span)),
            Ty::Ptr(p) => {
                let l = self.mutable_local(name, None, span);
                VarKind::Ptr {
                    target: None,
                    off: Offset::Local(l),
                    unit: p.cell_bytes(),
                }
            }
            Ty::Struct(s) => {
                let mut fields = Vec::new();
                for (f, fty) in &s.fields {
                    let fname = format!("{name}_{f}");
                    let k = self.var_kind(&fname, fty, span);
                    fields.push(self.hidden_var(&fname, fty.clone(), k));
                }
                VarKind::Struct(fields)
            }
            Ty::Array(..) => {
                let a = self.array(
                    ArrayKey::Private(self.vars.len()),
                    name,
                    ArraySpace::Private,
                    ty.cell_bytes(),
                );
                VarKind::Array(Target::Array(a))
            }
            Ty::Texture => VarKind::Texture,
            _ => VarKind::Arb,
        }
    }

    /// Whether an expression reads only values that never change.
    pub fn stable(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.for_each_var(&mut |v| ok &= !self.mutable.contains(v));
        ok
    }
}
