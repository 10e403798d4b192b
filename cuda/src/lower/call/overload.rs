//! Overloads told apart by argument types, as far as the lowering must: the file's
//! operators on structs (`a + b` of two `float3`s calls `helper_math.h`'s
//! `operator+(float3, float3)`, `s += v` its `operator+=(float3 &, float3)`), and
//! same-named functions whose parameters are structs where the arguments are scalars
//! (inside `fminf(float3 a, float3 b)`, `fminf(a.x, b.x)` is CUDA's `fminf(float,
//! float)`, not a recursive call).
//!
//! Argument types only rule out what surely cannot be called: a CUDA vector type for a
//! scalar or for another vector type (`dim3` aside). The file's structs (bases,
//! constructors, conversions), template parameters and types the lowering does not know
//! are never ruled out. Among several operators that may take the operands, the one
//! whose every parameter is an exact match is called, else the kernel is unsupported;
//! among named functions the older rule (the last definition) still picks.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::lower::expr::Ref;
use crate::lower::{LVal, Lowerer, R, Value};
use crate::program::named_children;
use crate::types::{Ty, builtin_scalar, vector_type};

/// What overload resolution sees of a parameter's or an argument's type.
#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Scalar(Ty),
    /// A struct by name, without template arguments (`Pack` of `Pack<float>`).
    Struct(String),
    Unknown,
}

impl<'t> Lowerer<'_, 't> {
    /// `a op b`, `op a` or `a op= b` with the file's `operator<op>` when one takes the
    /// operands (free, or a method of the first operand's struct): the operator inlined,
    /// its result (the place it returns, for a reference). `Err` gives the operands back
    /// when C++'s built-in operator applies (no operand is a struct, or the file defines
    /// no such operator for CUDA's vector types).
    pub(in crate::lower) fn user_operator(
        &mut self,
        op: &str,
        args: Vec<Ref>,
        n: Node<'t>,
    ) -> R<Result<Ref, Vec<Ref>>> {
        let name = format!("operator{op}");
        let types: Vec<Ty> = args.iter().map(|a| self.ref_type(a)).collect();
        // C++ calls an operator function only when an operand has class type (a struct
        // the file defines, a CUDA vector type, or one whose definition autosync did not
        // resolve: a partial specialization, `Ty::Opaque` of a file struct's name).
        let user_class = |t: &Ty| match t {
            Ty::Struct(s) => s.def.is_some(),
            Ty::Opaque(n) => self.prog.structs_by_name.contains_key(&base_name(n)),
            _ => false,
        };
        let class = |t: &Ty| t.as_struct().is_some() || user_class(t);
        if !types.iter().any(class) {
            return Ok(Err(args));
        }
        let kinds: Vec<Kind> = types.iter().map(|t| self.kind_of(t)).collect();
        let owner = types[0].as_struct().and_then(|s| Some((s.clone(), s.def?)));
        let prog = self.prog;
        let mut cands: Vec<(usize, bool)> = prog
            .funcs
            .iter()
            .enumerate()
            .filter(|(f, d)| {
                d.class.is_none() && d.name.replace(' ', "") == name && self.arity_fits(*f, args.len())
            })
            .map(|(f, _)| (f, false))
            .collect();
        if let Some((_, def)) = &owner {
            for m in self.methods_named(*def, &name) {
                if self.arity_fits(m, args.len() - 1) {
                    cands.push((m, true));
                }
            }
        }
        let mut viable: Vec<((usize, bool), bool)> = Vec::new();
        for &(f, method) in &cands {
            let params = self.param_kinds(f);
            let given = if method { &kinds[1..] } else { &kinds[..] };
            if let Some(exact) = self.fit(&params, given) {
                viable.push(((f, method), exact));
            }
        }
        // `a = b` of one struct: C++'s copy assignment (implicit, or the file's taking that
        // struct), never an `operator=(float)` reached through a conversion.
        if op == "="
            && matches!((&kinds[0], kinds.get(1)), (Kind::Struct(a), Some(Kind::Struct(b))) if a == b)
        {
            viable.retain(|(_, exact)| *exact);
        }
        // A definition over a declaration (an operator declared in its class and defined
        // out of line is both, maybe spelled differently).
        if viable
            .iter()
            .any(|((f, _), _)| self.prog.funcs[*f].body.is_some())
        {
            viable.retain(|((f, _), _)| self.prog.funcs[*f].body.is_some());
        }
        // The one candidate; or the one exact match among several (C++ ranks it first).
        let chosen = match viable.as_slice() {
            [(c, _)] => Some(*c),
            [] => None,
            many => match many
                .iter()
                .filter(|(_, exact)| *exact)
                .collect::<Vec<_>>()
                .as_slice()
            {
                [(c, _)] => Some(*c),
                _ => {
                    return Err(self.unsupported(
                        n,
                        &format!("`{name}` with several operators of the file that may take these operands"),
                        "autosync tells overloads apart by scalar versus struct operands only",
                    ));
                }
            },
        };
        let Some((f, method)) = chosen else {
            // No operator of the file: C++'s own (`=` copies; CUDA's vector types have no
            // other operators, a struct may convert to a scalar). A file struct that does
            // not convert must have been taken by an operator autosync does not see (a
            // friend defined in the class body).
            let converts = types.iter().any(|t| {
                t.as_struct()
                    .and_then(|s| s.def)
                    .is_some_and(|d| self.any_method_of(d, |f| f.conversion.is_some()))
            });
            if op == "=" || converts || !types.iter().any(user_class) {
                return Ok(Err(args));
            }
            return Err(self.unsupported(
                n,
                &format!("`{name}` of a struct that no `{name}` of the file autosync sees takes"),
                "define the operator outside the class body",
            ));
        };
        let mut args = args.into_iter();
        let this = if method {
            let obj = args.next().expect("a method operator has an object");
            let lv = match obj {
                Ref::L(lv) => lv,
                Ref::V(v) => {
                    let id = self.new_var("_obj", &v.ty.clone(), self.span(n))?;
                    self.write(&LVal::Var(id), v, n)?;
                    LVal::Var(id)
                }
            };
            owner.map(|(s, _)| (lv, s))
        } else {
            None
        };
        let argv: Vec<Ref> = args.collect();
        if self.prog.funcs[f].body.is_none() {
            // Declared, defined elsewhere: a function the file does not define.
            let passing = self.passing(f);
            let obj = this.map(|(lv, _)| (lv, self.object_passing(f)));
            return self
                .unknown_call(&name, argv, &passing, obj, n)
                .map(|v| Ok(Ref::V(v)));
        }
        self.returned_place(n, |l| l.inline_args(f, argv, None, this, n))
            .map(Ok)
    }

    /// The file's candidates that the arguments may fit by type (all of them when no
    /// parameter of any is classified): C++ would not call a `fminf(float3, float3)` with
    /// two floats. Only what surely cannot be called is removed ([`Lowerer::fit`]).
    pub(in crate::lower) fn by_argument_types(&mut self, cands: Vec<usize>, args: &[Node<'t>]) -> Vec<usize> {
        let params: Vec<Vec<Kind>> = cands.iter().map(|&f| self.param_kinds(f)).collect();
        if params.iter().flatten().all(|k| *k == Kind::Unknown) {
            return cands;
        }
        let kinds: Vec<Kind> = args.iter().map(|&a| self.arg_kind(a)).collect();
        cands
            .into_iter()
            .zip(params)
            .filter(|(_, p)| self.fit(p, &kinds).is_some())
            .map(|(f, _)| f)
            .collect()
    }

    /// Whether arguments of these kinds may be passed for parameters of these kinds:
    /// `None` only when C++ surely cannot (a CUDA vector type for a scalar or the other
    /// way, two different vector types, `dim3` aside), else whether every argument is an
    /// exact match. The file's structs are never ruled out: bases, constructors and
    /// conversions make too many ways in.
    fn fit(&self, params: &[Kind], args: &[Kind]) -> Option<bool> {
        let vector = |k: &Kind| {
            matches!(k, Kind::Struct(n)
                if vector_type(n).is_some() && n != "dim3" && !self.prog.structs_by_name.contains_key(n))
        };
        let mut exact = true;
        for (p, a) in params.iter().zip(args) {
            match (p, a) {
                (Kind::Scalar(x), Kind::Scalar(y)) => exact &= x == y,
                (Kind::Struct(x), Kind::Struct(y)) if x == y => {}
                // `uint3` takes a `dim3` (its conversion operator); nothing else converts.
                (Kind::Struct(x), Kind::Struct(y)) if vector(p) && (vector(a) || y == "dim3") => {
                    if !(x == "uint3" && y == "dim3") {
                        return None;
                    }
                    exact = false;
                }
                (Kind::Struct(_), Kind::Scalar(_)) if vector(p) => return None,
                (Kind::Scalar(_), Kind::Struct(_)) if vector(a) => return None,
                _ => exact = false,
            }
        }
        Some(exact)
    }

    /// Whether a method of struct definition `def` or of its bases satisfies `pred`.
    fn any_method_of(&self, def: usize, pred: impl Fn(&crate::program::FuncDef) -> bool) -> bool {
        let mut defs = vec![def];
        let mut seen = HashSet::new();
        while let Some(d) = defs.pop() {
            if !seen.insert(d) {
                continue;
            }
            if self.prog.structs[d]
                .methods
                .iter()
                .any(|&m| pred(&self.prog.funcs[m]))
            {
                return true;
            }
            defs.extend(self.base_structs(d));
        }
        false
    }

    fn ref_type(&self, r: &Ref) -> Ty {
        match r {
            Ref::L(lv) => self.lval_type(lv),
            Ref::V(v) => v.ty.clone(),
        }
    }

    fn kind_of(&self, ty: &Ty) -> Kind {
        match ty {
            Ty::Int { .. } | Ty::Float { .. } | Ty::Bool => Kind::Scalar(ty.clone()),
            Ty::Struct(s) => Kind::Struct(base_name(&s.name)),
            _ => Kind::Unknown,
        }
    }

    /// The kind of an argument's type, found by lowering it in a block that is thrown
    /// away; an argument with side effects (an assignment, an increment) is not lowered
    /// twice and is `Unknown`.
    fn arg_kind(&mut self, a: Node<'t>) -> Kind {
        if has_side_effects(a) {
            return Kind::Unknown;
        }
        match self.in_block(|l| l.rvalue(a).map(|v: Value| v.ty)) {
            Ok((ty, _)) => self.kind_of(&ty),
            Err(_) => Kind::Unknown,
        }
    }

    /// The kinds of function `f`'s parameters, from their declared type texts (through
    /// the file's plain typedefs); pointers and names the lowering does not know (template
    /// parameters) are `Unknown`.
    fn param_kinds(&self, f: usize) -> Vec<Kind> {
        let def = &self.prog.funcs[f];
        // A template's parameter types may name its template parameters (which may
        // share a name with a struct or typedef of the file): nothing is classified.
        let template =
            def.template.is_some() || def.class.is_some_and(|c| self.prog.structs[c].template.is_some());
        if template {
            return vec![Kind::Unknown; def.params().len()];
        }
        def.params()
            .iter()
            .map(|p| {
                let pointer = p
                    .child_by_field_name("declarator")
                    .is_some_and(|d| self.text(d).contains('*') || self.text(d).contains('['));
                let Some(t) = p.child_by_field_name("type").filter(|_| !pointer) else {
                    return Kind::Unknown;
                };
                let quals = named_children(*p)
                    .iter()
                    .any(|q| q.kind() == "type_qualifier" && self.text(*q) == "volatile");
                if quals {
                    return Kind::Unknown;
                }
                self.kind_of_text(self.text(t))
            })
            .collect()
    }

    fn kind_of_text(&self, text: &str) -> Kind {
        let mut t: String = text
            .split_whitespace()
            .filter(|w| *w != "struct")
            .collect::<Vec<_>>()
            .join(" ");
        for _ in 0..8 {
            match self.prog.aliases.get(t.as_str()) {
                Some(_) if !self.prog.alias_is_unique(&t) => return Kind::Unknown,
                Some(a) if a.declarator.is_none() => {
                    t = self.text(a.ty).split_whitespace().collect::<Vec<_>>().join(" ");
                }
                _ => break,
            }
        }
        if let Some(ty) = builtin_scalar(&t) {
            return if ty == Ty::Void {
                Kind::Unknown
            } else {
                Kind::Scalar(ty)
            };
        }
        // A template instance (`Acc<int>`) is not compared: its arguments are not read.
        let base = base_name(&t);
        if t.contains('<') {
            return Kind::Unknown;
        }
        if vector_type(&base).is_some() || self.prog.structs_by_name.contains_key(&base) {
            Kind::Struct(base)
        } else {
            Kind::Unknown
        }
    }
}

/// A type name without its template arguments.
fn base_name(name: &str) -> String {
    name.split('<').next().unwrap_or(name).trim().to_string()
}

fn has_side_effects(n: Node) -> bool {
    matches!(
        n.kind(),
        "assignment_expression" | "update_expression" | "lambda_expression"
    ) || named_children(n).into_iter().any(has_side_effects)
}
