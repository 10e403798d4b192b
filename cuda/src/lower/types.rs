//! C++ types of declarations, casts and template arguments, in the context of the
//! function being lowered (its template arguments, its local typedefs).

use std::rc::Rc;

use tree_sitter::Node;

use super::{Lowerer, R};
use crate::program::{declarator_name, last_name, named_children};
use crate::types::{
    Binding, StructTy, Ty, UNION_PREFIX, bit_fields_ty, builtin_scalar, union_members, vector_type,
};
use kpl::ir::Expr;

/// A declarator applied to a type.
#[derive(Clone, Debug)]
pub(crate) struct Declared {
    pub ty: Ty,
    pub name: Option<String>,
    /// `T &x`.
    pub reference: bool,
    /// `T *__restrict__ p`.
    pub restrict: bool,
    /// Declares a function (a prototype, or a function pointer).
    pub function: bool,
}

/// Qualifiers and storage classes of a declaration.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Quals {
    pub shared: bool,
    pub constant: bool,
    pub device: bool,
    pub external: bool,
    pub constant_value: bool,
    pub is_static: bool,
}

impl<'p, 't> Lowerer<'p, 't> {
    /// The qualifiers written on a declaration (outside its declarators).
    pub fn quals(&self, decl: Node<'t>) -> Quals {
        let mut q = Quals::default();
        let mut c = decl.walk();
        for (i, ch) in decl.children(&mut c).enumerate() {
            let field = decl.field_name_for_child(i as u32);
            if matches!(field, Some("declarator" | "value" | "body" | "default_value")) {
                continue;
            }
            let t = self.text(ch);
            for w in t.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                match w {
                    "__shared__" => q.shared = true,
                    "__constant__" => q.constant = true,
                    "__device__" => q.device = true,
                    "extern" => q.external = true,
                    "const" | "constexpr" => q.constant_value = true,
                    "static" => q.is_static = true,
                    _ => {}
                }
            }
            if field == Some("type") {
                // Qualifiers inside the type (`const unsigned int`) were seen above; stop
                // before struct bodies confuse the scan.
                continue;
            }
        }
        q
    }

    /// The type a declaration's type specifier and one declarator give.
    pub fn declared(&mut self, ty: Node<'t>, declarator: Option<Node<'t>>) -> R<Declared> {
        let base = self.base_type(ty)?;
        let mut d = Declared {
            ty: base,
            name: None,
            reference: false,
            restrict: false,
            function: false,
        };
        if let Some(n) = declarator {
            self.apply_declarator(&mut d, n)?;
        }
        Ok(d)
    }

    fn apply_declarator(&mut self, d: &mut Declared, n: Node<'t>) -> R<()> {
        match n.kind() {
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "qualified_identifier"
            | "operator_name"
            | "template_function" => {
                // `template_function`: an explicit specialization `f<double>`.
                d.name = declarator_name(n, self.prog.src);
                Ok(())
            }
            "pointer_declarator" | "abstract_pointer_declarator" => {
                if named_children(n)
                    .iter()
                    .any(|c| c.kind() == "type_qualifier" && self.text(*c).contains("restrict"))
                {
                    d.restrict = true;
                }
                d.ty = if d.function {
                    // `R (*f)(A)`: a pointer to a function (`call::fnptr`), not a function.
                    d.function = false;
                    super::call::FN_PTR
                } else {
                    Ty::ptr(d.ty.clone())
                };
                match n.child_by_field_name("declarator") {
                    Some(inner) => self.apply_declarator(d, inner),
                    None => Ok(()),
                }
            }
            "reference_declarator" | "abstract_reference_declarator" => {
                d.reference = true;
                match named_children(n).into_iter().last() {
                    Some(inner) => self.apply_declarator(d, inner),
                    None => Ok(()),
                }
            }
            "array_declarator" | "abstract_array_declarator" => {
                let size = match n.child_by_field_name("size") {
                    Some(s) => self.const_eval(s).and_then(|v| u64::try_from(v).ok()),
                    None => None,
                };
                d.ty = Ty::Array(Box::new(d.ty.clone()), size);
                match n.child_by_field_name("declarator") {
                    Some(inner) => self.apply_declarator(d, inner),
                    None => Ok(()),
                }
            }
            "function_declarator" | "abstract_function_declarator" => {
                d.function = true;
                match n.child_by_field_name("declarator") {
                    Some(inner) => self.apply_declarator(d, inner),
                    None => Ok(()),
                }
            }
            "init_declarator" | "attributed_declarator" => match n.child_by_field_name("declarator") {
                Some(inner) => self.apply_declarator(d, inner),
                None => Ok(()),
            },
            "parenthesized_declarator" | "abstract_parenthesized_declarator" => {
                match named_children(n).into_iter().last() {
                    Some(inner) => self.apply_declarator(d, inner),
                    None => Ok(()),
                }
            }
            "type_qualifier" | "ms_pointer_modifier" => Ok(()),
            _ => Err(self.unsupported(
                n,
                &format!("declarator `{}`", n.kind()),
                "simplify the declaration",
            )),
        }
    }

    /// The type of a `type_descriptor` (casts, `sizeof`, template arguments).
    pub fn type_descriptor(&mut self, n: Node<'t>) -> R<Ty> {
        if n.kind() != "type_descriptor" {
            return self.base_type(n);
        }
        let ty = n.child_by_field_name("type").unwrap_or(n);
        Ok(self.declared(ty, n.child_by_field_name("declarator"))?.ty)
    }

    /// The type a type specifier names.
    pub fn base_type(&mut self, n: Node<'t>) -> R<Ty> {
        match n.kind() {
            "primitive_type" => Ok(builtin_scalar(self.text(n)).unwrap_or(Ty::INT)),
            "sized_type_specifier" => Ok(sized(self.text(n))),
            "type_identifier" => self.named_type(self.text(n), n),
            "qualified_identifier" | "dependent_type" => {
                let name = last_name(n, self.prog.src);
                let inner = n.child_by_field_name("name");
                match inner {
                    Some(t) if t.kind() == "template_type" => self.base_type(t),
                    _ => self.named_type(&name, n),
                }
            }
            "template_type" => {
                let name = n.child_by_field_name("name").map(|x| self.text(x)).unwrap_or("");
                if name == "texture" || name == "surface" {
                    return Ok(Ty::Texture);
                }
                if self.prog.structs_by_name.contains_key(name) {
                    return self.struct_type(name, n.child_by_field_name("arguments"));
                }
                Ok(Ty::Opaque(self.text(n).to_string()))
            }
            "struct_specifier" | "class_specifier" => match n.child_by_field_name("name") {
                Some(name) if n.child_by_field_name("body").is_none() => self.base_type(name),
                _ => {
                    let idx = self.prog.structs.iter().position(|s| s.node == n);
                    match idx {
                        Some(i) => {
                            let name = self.prog.structs[i].name.clone();
                            self.struct_instance(i, &name, Vec::new())
                        }
                        None => Ok(Ty::Opaque(self.text(n).to_string())),
                    }
                }
            },
            "enum_specifier" => self.enum_type(n),
            "union_specifier" => Ok(Ty::Opaque("union".into())),
            "placeholder_type_specifier" | "auto" => Ok(Ty::Opaque("auto".into())),
            "type_descriptor" => self.type_descriptor(n),
            _ => Ok(Ty::Opaque(self.text(n).to_string())),
        }
    }

    /// The type a name denotes (for names the parser took for values).
    pub fn named_type_of_text(&mut self, name: &str) -> R<Ty> {
        self.named_type_inner(name)
    }

    fn named_type(&mut self, name: &str, _n: Node<'t>) -> R<Ty> {
        self.named_type_inner(name)
    }

    fn named_type_inner(&mut self, name: &str) -> R<Ty> {
        if let Some(Binding::Type(t)) = self.binding(name) {
            return Ok(t);
        }
        if let Some(t) = self.lookup_alias(name) {
            return Ok(t);
        }
        if let Some(t) = builtin_scalar(name).or_else(|| vector_type(name)) {
            return Ok(t);
        }
        if let Some(a) = self.prog.aliases.get(name).cloned() {
            if !self.resolving.insert(format!("alias {name}")) {
                return Ok(Ty::Opaque(name.to_string()));
            }
            let r = self.declared(a.ty, a.declarator).map(|d| d.ty);
            self.resolving.remove(&format!("alias {name}"));
            return r;
        }
        if let Some(this) = &self.frame().this_ty {
            // A member typedef or the class's own name inside a method.
            if this.name.starts_with(name) {
                return Ok(Ty::Struct(this.clone()));
            }
        }
        if self.prog.structs_by_name.contains_key(name) {
            return self.struct_type(name, None);
        }
        if let Some(&e) = self.prog.enums.get(name) {
            return self.enum_type(e);
        }
        Ok(Ty::Opaque(name.to_string()))
    }

    /// The type an enum's values have: its fixed underlying type (`enum E : short`), else
    /// `int` (the range of an unscoped enum is narrower: see [`Lowerer::enum_range`]).
    fn enum_type(&mut self, n: Node<'t>) -> R<Ty> {
        match n.child_by_field_name("base") {
            Some(base) => self.base_type(base),
            None => Ok(Ty::INT),
        }
    }

    /// The `enum_specifier` a type specifier names, through typedefs.
    pub fn enum_of(&self, t: Node<'t>) -> Option<Node<'t>> {
        let mut t = t;
        for _ in 0..16 {
            match t.kind() {
                "enum_specifier" if t.child_by_field_name("body").is_some() => return Some(t),
                "enum_specifier" => {
                    let name = t.child_by_field_name("name")?;
                    return self.prog.enums.get(self.text(name)).copied();
                }
                "type_identifier" => {
                    let name = self.text(t);
                    if let Some(&e) = self.prog.enums.get(name) {
                        return Some(e);
                    }
                    let alias = self.prog.aliases.get(name)?;
                    if alias.declarator.is_some() {
                        return None;
                    }
                    t = alias.ty;
                }
                _ => return None,
            }
        }
        None
    }

    /// The values a variable of an enum type may hold (C++ [dcl.enum]): for an enum
    /// without a fixed underlying type, the smallest two's complement (or, when no
    /// enumerator is negative, unsigned) bit-field holding every enumerator; `None`
    /// (the underlying type's range) for scoped enums, fixed underlying types, and
    /// enumerators the front end cannot evaluate.
    pub fn enum_range(&mut self, e: Node<'t>) -> Option<(i64, i64)> {
        let scoped = (0..e.child_count())
            .filter_map(|i| e.child(i))
            .any(|c| matches!(c.kind(), "class" | "struct"));
        if scoped || e.child_by_field_name("base").is_some() {
            return None;
        }
        let body = e.child_by_field_name("body")?;
        let mut values = Vec::new();
        for en in named_children(body)
            .into_iter()
            .filter(|c| c.kind() == "enumerator")
        {
            let name = en.child_by_field_name("name")?;
            let name = self.text(name).to_string();
            values.push(self.enumerator_value(&name)?);
        }
        let (lo, hi) = (values.iter().copied().min()?, values.iter().copied().max()?);
        let bits_for = |v: i64| 64 - v.leading_zeros();
        Some(if lo >= 0 {
            let m = bits_for(hi).max(1);
            (0, ((1i128 << m) - 1) as i64)
        } else {
            // Bits for the magnitude, plus a sign bit.
            let m = bits_for(hi.max(-(lo + 1)));
            (-(1i64 << m), (1i64 << m) - 1)
        })
    }

    /// A struct type, instantiating a template (or picking a specialization).
    pub fn struct_type(&mut self, name: &str, args: Option<Node<'t>>) -> R<Ty> {
        let defs = self.prog.structs_by_name.get(name).cloned().unwrap_or_default();
        let Some(args) = args else {
            let Some(&i) = defs
                .iter()
                .find(|&&i| self.prog.structs[i].template.is_none())
                .or(defs.first())
            else {
                return Ok(Ty::Opaque(name.to_string()));
            };
            let bindings = match self.prog.structs[i].template {
                Some(t) => self.bind_template(t, None)?,
                None => Vec::new(),
            };
            return self.struct_instance(i, name, bindings);
        };
        let arg_bindings = self.template_args(args)?;
        // An explicit specialization whose arguments match wins over the primary template.
        for &i in &defs {
            if let Some(spec) = self.prog.structs[i].spec_args {
                let spec_b = self.template_args(spec)?;
                if spec_b == arg_bindings && !self.partial_specialization(i) {
                    // Its own instance (`Pack<float>` and `Pack<int>` are two).
                    let shown = self.text(spec).split_whitespace().collect::<String>();
                    return self.struct_instance(i, &format!("{name}{shown}"), Vec::new());
                }
            }
        }
        // A partial specialization (`template <class T> struct Pack<T *>`) may be the
        // one these arguments select: autosync does not match them, the type is unknown.
        if defs.iter().any(|&i| self.partial_specialization(i)) {
            return Ok(Ty::Opaque(name.to_string()));
        }
        let Some(&primary) = defs
            .iter()
            .find(|&&i| self.prog.structs[i].spec_args.is_none() && self.prog.structs[i].template.is_some())
        else {
            return Ok(Ty::Opaque(name.to_string()));
        };
        let params = self.prog.structs[primary].template.expect("primary template");
        let bindings = self.bind_params(params, arg_bindings)?;
        self.struct_instance(primary, name, bindings)
    }

    /// Whether struct definition `i` is a partial specialization (`template <class T>
    /// struct Pack<T *>`), not an explicit one (`template <> struct Pack<float>`).
    fn partial_specialization(&self, i: usize) -> bool {
        let d = &self.prog.structs[i];
        d.spec_args.is_some()
            && d.template
                .is_some_and(|t| named_children(t).iter().any(|p| p.kind() != "comment"))
    }

    fn struct_instance(&mut self, idx: usize, name: &str, bindings: Vec<(String, Binding)>) -> R<Ty> {
        let shown: Vec<String> = bindings
            .iter()
            .map(|(_, b)| match b {
                Binding::Type(t) => t.to_string(),
                Binding::Value(e) => kpl::syntax::print_expr(e),
            })
            .collect();
        let key = if shown.is_empty() {
            name.to_string()
        } else {
            format!("{name}<{}>", shown.join(","))
        };
        if let Some(s) = self.structs.get(&key) {
            return Ok(Ty::Struct(s.clone()));
        }
        if !self.resolving.insert(key.clone()) {
            return Ok(Ty::Opaque(key)); // a struct that contains (a pointer to) itself
        }
        // Resolve the fields with the struct's template arguments in scope.
        let saved = std::mem::take(&mut self.frame_mut().bindings);
        self.frame_mut().bindings = saved.iter().cloned().chain(bindings.iter().cloned()).collect();
        let node = self.prog.structs[idx].node;
        let constants = self.static_constants(node);
        let fields = self.fields(node);
        self.frame_mut().bindings = saved;
        self.resolving.remove(&key);
        let s = Rc::new(StructTy {
            name: key.clone(),
            fields: fields?,
            def: Some(idx),
            bindings,
            constants,
        });
        self.structs.insert(key, s.clone());
        Ok(Ty::Struct(s))
    }

    /// The `static const`/`constexpr` integer members of a struct whose initializers
    /// evaluate to constants, in order. Each is bound (as a template value is) while the
    /// later members and the fields are resolved, so that `T payload[size];` has its
    /// length. A member whose value is not a constant is left out: it then reads as
    /// arbitrary.
    fn static_constants(&mut self, node: Node<'t>) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        let Some(body) = node.child_by_field_name("body") else {
            return out;
        };
        for c in named_children(body) {
            let q = self.quals(c);
            if c.kind() != "field_declaration" || !q.is_static || !q.constant_value {
                continue;
            }
            let Some(t) = c.child_by_field_name("type") else {
                continue;
            };
            // A wide integer member holds its initializer; a narrow one (or `bool`)
            // would convert it.
            let Ok(Ty::Int { bytes, signed }) = self.base_type(t) else {
                continue;
            };
            if bytes < 4 {
                continue;
            }
            let fits = |k: i64| match (bytes, signed) {
                (4, true) => i32::try_from(k).is_ok(),
                (4, false) => u32::try_from(k).is_ok(),
                (_, false) => k >= 0,
                _ => true,
            };
            let mut cur = c.walk();
            let ds: Vec<Node> = c.children_by_field_name("declarator", &mut cur).collect();
            for d in ds {
                let value = c
                    .child_by_field_name("default_value")
                    .or_else(|| d.child_by_field_name("value"));
                let (Some(name), Some(value)) = (declarator_name(d, self.prog.src), value) else {
                    continue;
                };
                if let Some(k) = self.const_eval(value).filter(|&k| fits(k)) {
                    self.frame_mut()
                        .bindings
                        .push((name.clone(), Binding::Value(Expr::Int(k))));
                    out.push((name, k));
                }
            }
        }
        out
    }

    fn fields(&mut self, node: Node<'t>) -> R<Vec<(String, Ty)>> {
        let mut out = Vec::new();
        if node.kind() == "union_specifier" {
            // A named union: one opaque cell, like an anonymous one.
            self.anonymous_member(node, &mut out)?;
            return Ok(out);
        }
        // Base classes come first in the layout, with their fields.
        self.base_fields(node, &mut out)?;
        let Some(body) = node.child_by_field_name("body") else {
            return Ok(out);
        };
        // The current run of adjacent bit-fields: member names, (declared bytes, width).
        let mut run: (Vec<String>, Vec<(u64, u64)>) = Default::default();
        for c in named_children(body) {
            if c.kind() != "field_declaration" {
                continue;
            }
            if self.quals(c).is_static {
                continue;
            }
            let Some(t) = c.child_by_field_name("type") else {
                continue;
            };
            let mut cur = c.walk();
            let ds: Vec<Node> = c.children_by_field_name("declarator", &mut cur).collect();
            let width = named_children(c)
                .into_iter()
                .find(|b| b.kind() == "bitfield_clause")
                .map(|b| {
                    named_children(b)
                        .into_iter()
                        .find(|e| e.kind() != "comment")
                        .and_then(|e| self.const_eval(e))
                        .map_or(1, |w| w.max(0) as u64)
                });
            if let Some(width) = width {
                // A bit-field: adjacent ones share one memory location (C++ [intro.memory]),
                // up to a zero-width one.
                let bytes = self.base_type(t)?.layout().0;
                let names: Vec<String> = ds
                    .iter()
                    .filter_map(|&d| declarator_name(d, self.prog.src))
                    .collect();
                if width == 0 {
                    flush_bit_fields(&mut run, &mut out);
                    continue;
                }
                run.0.extend(names);
                run.1.push((bytes, width));
                continue;
            }
            flush_bit_fields(&mut run, &mut out);
            if ds.is_empty() && t.child_by_field_name("body").is_some() {
                self.anonymous_member(t, &mut out)?;
                continue;
            }
            for d in ds {
                let decl = self.declared(t, Some(d))?;
                if decl.function {
                    continue;
                }
                if let Some(name) = decl.name {
                    out.push((name, decl.ty));
                }
            }
        }
        flush_bit_fields(&mut run, &mut out);
        Ok(out)
    }

    /// The fields of the base classes of a struct (`struct D : public B { ... }`), in
    /// order. A base the lowering cannot resolve to a struct adds an opaque field (its
    /// data is then never read as a known value).
    fn base_fields(&mut self, node: Node<'t>, out: &mut Vec<(String, Ty)>) -> R<()> {
        let Some(clause) = named_children(node)
            .into_iter()
            .find(|c| c.kind() == "base_class_clause")
        else {
            return Ok(());
        };
        for b in named_children(clause) {
            if !matches!(
                b.kind(),
                "type_identifier" | "template_type" | "qualified_identifier"
            ) {
                continue;
            }
            match self.base_type(b)? {
                Ty::Struct(s) => out.extend(s.fields.iter().cloned()),
                other => out.push((format!("<base {}>", self.text(b)), other)),
            }
        }
        Ok(())
    }

    /// The struct definitions a struct derives from (for methods of base classes).
    pub fn base_structs(&self, def: usize) -> Vec<usize> {
        let node = self.prog.structs[def].node;
        let Some(clause) = named_children(node)
            .into_iter()
            .find(|c| c.kind() == "base_class_clause")
        else {
            return Vec::new();
        };
        named_children(clause)
            .into_iter()
            .filter(|b| {
                matches!(
                    b.kind(),
                    "type_identifier" | "template_type" | "qualified_identifier"
                )
            })
            .filter_map(|b| {
                let name = crate::program::last_name(b, self.prog.src);
                let name = name.split('<').next().unwrap_or_default().trim().to_string();
                self.prog
                    .structs_by_name
                    .get(&name)
                    .and_then(|v| v.first().copied())
            })
            .filter(|&i| i != def)
            .collect()
    }

    /// An anonymous `struct { ... };` or `union { ... };` member (C11, and the MUM
    /// benchmark's node layout). A struct's fields join the enclosing struct's. A union's
    /// members overlap, which the cell model cannot express: the union is one opaque cell
    /// that every member names (see [`Ty::field`]), so reads of any member are arbitrary
    /// and all accesses to it touch the same cell — sound for values and for races.
    fn anonymous_member(&mut self, t: Node<'t>, out: &mut Vec<(String, Ty)>) -> R<()> {
        if t.kind() == "union_specifier" {
            let mut names = Vec::new();
            if let Some(body) = t.child_by_field_name("body") {
                for m in named_children(body)
                    .into_iter()
                    .filter(|m| m.kind() == "field_declaration")
                {
                    let mut cur = m.walk();
                    let ds: Vec<Node> = m.children_by_field_name("declarator", &mut cur).collect();
                    if ds.is_empty()
                        && let Some(inner) = m.child_by_field_name("type")
                    {
                        // A struct inside the union: its fields are members too.
                        let mut nested = Vec::new();
                        self.anonymous_member(inner, &mut nested)?;
                        names.extend(nested.into_iter().flat_map(|(n, _)| {
                            union_members(&n)
                                .map_or_else(|| vec![n.clone()], |ms| ms.map(str::to_string).collect())
                        }));
                    }
                    for d in ds {
                        if let Some(name) = declarator_name(d, self.prog.src) {
                            names.push(name);
                        }
                    }
                }
            }
            out.push((
                format!("{UNION_PREFIX}{}>", names.join("|")),
                Ty::Opaque("union".into()),
            ));
            return Ok(());
        }
        out.extend(self.fields(t)?);
        Ok(())
    }

    /// Template arguments as bindings (positional, names not yet known).
    pub(super) fn template_args(&mut self, args: Node<'t>) -> R<Vec<Binding>> {
        named_children(args)
            .into_iter()
            .filter(|a| a.kind() != "comment")
            .map(|a| self.template_arg(a))
            .collect()
    }

    /// One template argument as a binding.
    pub(super) fn template_arg(&mut self, a: Node<'t>) -> R<Binding> {
        if a.kind() == "type_descriptor" {
            // `N` alone parses as a type; it may be a value (a template parameter or
            // a constant).
            let inner = a.child_by_field_name("type");
            let plain = a.child_by_field_name("declarator").is_none();
            if let (Some(i), true) = (inner, plain)
                && i.kind() == "type_identifier"
            {
                let name = self.text(i);
                if let Some(Binding::Value(v)) = self.binding(name) {
                    return Ok(Binding::Value(v));
                }
                if let Some(v) = self.const_eval(i) {
                    return Ok(Binding::Value(Expr::Int(v)));
                }
                // A device function of the file for a function-pointer parameter
                // (`apply<square>`): its value as a pointer, which calls then call.
                if self.lookup(name).is_none()
                    && let Some(f) = self.function_value(name)
                    && let super::V::Int(e) = f.v
                {
                    return Ok(Binding::Value(e));
                }
            }
            return Ok(Binding::Type(self.type_descriptor(a)?));
        }
        if let Some(v) = self.const_eval(a) {
            return Ok(Binding::Value(Expr::Int(v)));
        }
        let (val, stmts) = self.in_block(|l| l.rvalue(a))?;
        match (val.v, stmts.is_empty()) {
            (super::V::Int(e), true) => Ok(Binding::Value(e)),
            _ => Err(self.unsupported(
                a,
                "template argument that is not a constant",
                "instantiate the template with constants",
            )),
        }
    }

    /// Binds a `template_parameter_list` to arguments; parameters without an argument
    /// take their default, or are left open (opaque type, symbolic value).
    pub fn bind_template(&mut self, params: Node<'t>, args: Option<Node<'t>>) -> R<Vec<(String, Binding)>> {
        let args = match args {
            Some(a) => self.template_args(a)?,
            None => Vec::new(),
        };
        self.bind_params(params, args)
    }

    pub(super) fn bind_params(&mut self, params: Node<'t>, args: Vec<Binding>) -> R<Vec<(String, Binding)>> {
        // Earlier parameters are visible to later defaults while binding; none after.
        let before = self.frame().bindings.len();
        let r = self.bind_params_inner(params, args);
        self.frame_mut().bindings.truncate(before);
        r
    }

    fn bind_params_inner(&mut self, params: Node<'t>, args: Vec<Binding>) -> R<Vec<(String, Binding)>> {
        let mut out: Vec<(String, Binding)> = Vec::new();
        let mut args = args.into_iter();
        for p in named_children(params) {
            let (name, is_type, default) = match p.kind() {
                "type_parameter_declaration" | "variadic_type_parameter_declaration" => {
                    let name = named_children(p)
                        .into_iter()
                        .find(|c| c.kind() == "type_identifier");
                    (name.map(|n| self.text(n).to_string()), true, None)
                }
                "optional_type_parameter_declaration" => (
                    p.child_by_field_name("name").map(|n| self.text(n).to_string()),
                    true,
                    p.child_by_field_name("default_type"),
                ),
                "parameter_declaration" | "optional_parameter_declaration" => {
                    let name = p
                        .child_by_field_name("declarator")
                        .and_then(|d| declarator_name(d, self.prog.src));
                    (name, false, p.child_by_field_name("default_value"))
                }
                _ => continue,
            };
            let Some(name) = name else { continue };
            let b = match args.next() {
                Some(b) => b,
                None => match (default, is_type) {
                    (Some(d), true) => Binding::Type(self.type_descriptor(d)?),
                    (Some(d), false) => match self.const_eval(d) {
                        Some(v) => Binding::Value(Expr::Int(v)),
                        None => Binding::Value(Expr::Var(self.fresh(&name))),
                    },
                    (None, true) => Binding::Type(Ty::Opaque(name.clone())),
                    (None, false) => Binding::Value(Expr::Var(self.fresh(&name))),
                },
            };
            // Let later defaults refer to earlier parameters.
            self.frame_mut().bindings.push((name.clone(), b.clone()));
            out.push((name, b));
        }
        Ok(out)
    }

    /// The value of a constant integer expression (array sizes, template arguments).
    pub fn const_eval(&mut self, n: Node<'t>) -> Option<i64> {
        let (val, stmts) = self.in_block(|l| l.rvalue(n)).ok()?;
        match val.v {
            super::V::Int(e) if stmts.is_empty() => super::fold::int(&e),
            _ => None,
        }
    }
}

/// `unsigned int`, `long long`, `short`, ...
fn sized(text: &str) -> Ty {
    let words: Vec<&str> = text.split_whitespace().collect();
    let unsigned = words.contains(&"unsigned");
    let longs = words.iter().filter(|w| **w == "long").count();
    let bytes = if words.contains(&"char") {
        1
    } else if words.contains(&"short") {
        2
    } else if longs >= 1 {
        8
    } else if words.contains(&"double") {
        return Ty::Float { bytes: 8 };
    } else {
        4
    };
    Ty::Int {
        bytes,
        signed: !unsigned,
    }
}

/// Ends a run of bit-fields: one field, one cell, that each member names (see
/// [`bit_fields_ty`]).
fn flush_bit_fields(run: &mut (Vec<String>, Vec<(u64, u64)>), out: &mut Vec<(String, Ty)>) {
    let (names, widths) = std::mem::take(run);
    if widths.is_empty() {
        return;
    }
    out.push((
        format!("{UNION_PREFIX}{}>", names.join("|")),
        bit_fields_ty(&widths),
    ));
}
