//! Overloads told apart by argument types, as far as the lowering must: the file's
//! operators on structs (`a + b` of two `float3`s calls `helper_math.h`'s
//! `operator+(float3, float3)`, `s += v` its `operator+=(float3 &, float3)`), and
//! same-named functions whose parameters are structs where the arguments are scalars
//! (inside `fminf(float3 a, float3 b)`, `fminf(a.x, b.x)` is CUDA's `fminf(float,
//! float)`, not a recursive call).
//!
//! Only the distinction between scalars and structs (by name) is made; a parameter
//! whose type the lowering cannot classify (a template parameter, a pointer, a type of
//! a header that was not read) takes anything. A struct with a constructor takes a
//! scalar, and one with a conversion operator converts to one, so those stay viable.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::lower::expr::Ref;
use crate::lower::{LVal, Lowerer, R, Value};
use crate::program::{Program, named_children};
use crate::types::{Ty, builtin_scalar, vector_type};

/// What overload resolution sees of a parameter's or an argument's type.
#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Scalar(Ty),
    /// A struct by name, without template arguments (`Pack` of `Pack<float>`).
    Struct(String),
    Unknown,
}

/// The names (`operator+`, `operator+=`, ...) of the operators the file defines, without
/// spaces: a binary or unary expression looks for a user operator only then.
pub(in crate::lower) fn defined_operators(prog: &Program) -> HashSet<String> {
    prog.funcs
        .iter()
        .map(|f| f.name.replace(' ', ""))
        .filter(|n| n.starts_with("operator") && n != "operator()" && n != "operatorcast")
        .collect()
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
        if !self.operators.contains(&name) {
            return Ok(Err(args));
        }
        let kinds: Vec<Kind> = args.iter().map(|a| self.kind_of(&self.ref_type(a))).collect();
        if !kinds.iter().any(|k| matches!(k, Kind::Struct(_))) {
            return Ok(Err(args));
        }
        let first = self.ref_type(&args[0]);
        let owner = first.as_struct().and_then(|s| Some((s.clone(), s.def?)));
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
        // The best fit; among equal ones a definition over a declaration (an operator
        // declared in its class and defined out of line is both).
        let best = self.best_overload(&cands, |l, (f, method)| {
            let params = l.param_kinds(*f);
            let args = if *method { &kinds[1..] } else { &kinds[..] };
            l.fit(&params, args).map(|k| (k, l.prog.funcs[*f].body.is_some()))
        });
        let Some((f, method)) = best else {
            // A user struct operand and no operator of the file takes it: C++ would
            // convert it in a way autosync does not follow.
            if kinds.iter().zip(&args).any(|(k, a)| {
                matches!(k, Kind::Struct(_)) && self.ref_type(a).as_struct().is_some_and(|s| s.def.is_some())
            }) {
                return Err(self.unsupported(
                    n,
                    &format!("`{name}` of a struct that no `{name}` of the file takes as it is"),
                    "define the operator for these operand types",
                ));
            }
            return Ok(Err(args));
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

    /// The file's candidates that the arguments fit by type (all of them when no
    /// parameter of any is classified): C++ would not call a `fminf(float3, float3)`
    /// with two floats.
    pub(in crate::lower) fn by_argument_types(&mut self, cands: Vec<usize>, args: &[Node<'t>]) -> Vec<usize> {
        let params: Vec<Vec<Kind>> = cands.iter().map(|&f| self.param_kinds(f)).collect();
        if params.iter().flatten().all(|k| *k == Kind::Unknown) {
            return cands;
        }
        let kinds: Vec<Kind> = args.iter().map(|&a| self.arg_kind(a)).collect();
        let fits: Vec<Option<usize>> = params.iter().map(|p| self.fit(p, &kinds)).collect();
        let Some(best) = fits.iter().flatten().max().copied() else {
            return Vec::new();
        };
        cands
            .into_iter()
            .zip(fits)
            .filter(|(_, fit)| *fit == Some(best))
            .map(|(f, _)| f)
            .collect()
    }

    /// The candidate whose parameters fit best (most exact matches), if any fits.
    fn best_overload<C: Copy, S: Ord + Copy>(
        &mut self,
        cands: &[C],
        mut fit: impl FnMut(&mut Self, &C) -> Option<S>,
    ) -> Option<C> {
        let mut best: Option<(S, C)> = None;
        for c in cands {
            if let Some(score) = fit(self, c)
                && best.is_none_or(|(b, _)| score > b)
            {
                best = Some((score, *c));
            }
        }
        best.map(|(_, c)| c)
    }

    /// Whether arguments of these kinds fit parameters of these kinds: `None` when one
    /// cannot, else the number of exact matches.
    fn fit(&self, params: &[Kind], args: &[Kind]) -> Option<usize> {
        let mut exact = 0;
        for (p, a) in params.iter().zip(args) {
            match (p, a) {
                (Kind::Unknown, _) | (_, Kind::Unknown) => {}
                (Kind::Scalar(x), Kind::Scalar(y)) => exact += usize::from(x == y),
                (Kind::Struct(x), Kind::Struct(y)) if x == y => exact += 1,
                (Kind::Struct(x), _) if self.constructible(x) => {}
                (Kind::Scalar(_), Kind::Struct(y)) if self.converts(y) => {}
                _ => return None,
            }
        }
        Some(exact)
    }

    /// Whether the file's struct `name` has a constructor (that may take the argument).
    fn constructible(&self, name: &str) -> bool {
        self.any_method(name, |f| f.name == name)
    }

    /// Whether the file's struct `name` has a conversion operator.
    fn converts(&self, name: &str) -> bool {
        self.any_method(name, |f| f.conversion.is_some())
    }

    /// Whether a method of the file's struct(s) called `name` satisfies `pred`.
    fn any_method(&self, name: &str, pred: impl Fn(&crate::program::FuncDef) -> bool) -> bool {
        let structs = self.prog.structs_by_name.get(name).into_iter().flatten();
        structs
            .flat_map(|&s| self.prog.structs[s].methods.iter())
            .any(|&m| pred(&self.prog.funcs[m]))
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
        self.prog.funcs[f]
            .params()
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
        let base = base_name(&t);
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
