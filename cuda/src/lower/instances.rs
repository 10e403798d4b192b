//! The instances of a kernel: a template kernel's instantiations, from the file's
//! explicit instantiations and the template arguments of its host launches, or the open
//! template when they are not known; explicit specializations by name.

use tree_sitter::Node;

use super::{Lowerer, R, fold};
use crate::program::{Program, declarator_name, named_children};
use crate::types::{Binding, Ty};
use kpl::ir::{BinOp, Expr, Param};

/// The name (`k<float>`) of an explicit specialization `template <> ... k<float>(...)`.
pub(super) fn specialization_name(prog: &Program, f: usize) -> Option<String> {
    let def = &prog.funcs[f];
    let params = def.template?;
    if named_children(params).iter().any(|c| c.kind() != "comment") {
        return None;
    }
    let mut stack = vec![def.node];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_declarator" {
            let d = n.child_by_field_name("declarator")?;
            return (d.kind() == "template_function")
                .then(|| prog.text(d).split_whitespace().collect::<Vec<_>>().join(""));
        }
        if n.kind() != "compound_statement" {
            stack.extend(named_children(n));
        }
    }
    None
}

/// Template bindings whose values are all constants: an instance autosync can name.
fn constant_bindings(bindings: Vec<(String, Binding)>) -> Option<Vec<(String, Binding)>> {
    bindings
        .iter()
        .all(|(_, b)| !matches!(b, Binding::Value(e) if fold::int(e).is_none()))
        .then_some(bindings)
}

/// The names of template parameter list `tparams`.
fn tparam_names(prog: &Program, tparams: Node) -> Vec<String> {
    named_children(tparams)
        .into_iter()
        .filter_map(|p| {
            let n = p
                .child_by_field_name("name")
                .or_else(|| p.child_by_field_name("declarator"))
                .or_else(|| {
                    named_children(p)
                        .into_iter()
                        .find(|c| c.kind() == "type_identifier")
                })?;
            declarator_name(n, prog.src)
        })
        .collect()
}

/// Why a template kernel is checked as its open instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Open {
    /// The file makes no instance of it.
    Never,
    /// Some instance's arguments depend on the host code's template parameters.
    Dependent,
    /// A launch at this line gives no template arguments, and they are not deduced.
    Undeduced(u32),
    /// A launch at this line has template arguments the front end cannot bind.
    Unbound(u32),
}

impl Open {
    /// The first reason found stays.
    fn or(self, other: Open) -> Open {
        if self == Open::Never { other } else { self }
    }
}

/// Whether an explicit instantiation or a launch not read names arguments that are
/// not all constants.
fn arg_lists_dependent(made: &[(usize, Option<NamedInstance>)]) -> bool {
    made.iter().any(|(_, i)| i.is_none())
}

/// An instance's name and its template parameters' bindings.
type NamedInstance = (String, Vec<(String, Binding)>);

/// One kernel to lower: a function with its template arguments.
#[derive(Clone, Debug)]
pub(super) struct Instance {
    pub(super) name: String,
    pub(super) bindings: Vec<(String, Binding)>,
    pub(super) notes: Vec<String>,
}

/// The template arguments of `template __global__ void name<...>(...);`.
fn instantiation_args<'t>(prog: &Program<'t>, inst: Node<'t>, name: &str) -> Option<Node<'t>> {
    let d = inst.child_by_field_name("declarator")?;
    let f = crate::program::innermost_function_declarator(d)?;
    let n = f.child_by_field_name("declarator")?;
    (n.kind() == "template_function"
        && n.child_by_field_name("name")
            .is_some_and(|x| prog.text(x) == name))
    .then(|| n.child_by_field_name("arguments"))
    .flatten()
}

impl<'p, 't> Lowerer<'p, 't> {
    /// The instantiations of a kernel: explicit ones, those launched with constant
    /// template arguments, or one with every parameter left symbolic.
    pub(super) fn instances(&mut self, f: usize, host: &crate::host::HostCode) -> R<Vec<Instance>> {
        let def = &self.prog.funcs[f];
        let Some(tparams) = def.template else {
            return Ok(vec![Instance {
                name: def.name.clone(),
                bindings: Vec::new(),
                notes: Vec::new(),
            }]);
        };
        if let Some(name) = specialization_name(self.prog, f) {
            // `template <> __global__ void k<float>(...)`: a kernel of its own.
            return Ok(vec![Instance {
                name,
                bindings: Vec::new(),
                notes: Vec::new(),
            }]);
        }
        let mut arg_lists: Vec<Node> = Vec::new();
        for inst in &self.prog.instantiations {
            if let Some(args) = instantiation_args(self.prog, *inst, &def.name) {
                arg_lists.push(args);
            }
        }
        // Launches the host code reads are instantiated below, context by context:
        // with the template arguments written or deduced there, or by the open
        // instance when they are not known.
        let read: Vec<&crate::host::HostLaunch> =
            host.launches.iter().filter(|h| h.kernel == def.name).collect();
        for l in &self.prog.launches {
            if let Some(fun) = l.child_by_field_name("function")
                && fun.kind() == "template_function"
                && fun
                    .child_by_field_name("name")
                    .is_some_and(|n| self.text(n) == def.name)
                && let Some(args) = fun.child_by_field_name("arguments")
                && !read
                    .iter()
                    .any(|h| h.template_list == Some((args.start_byte(), args.end_byte())))
            {
                arg_lists.push(args);
            }
        }
        // Each instantiation with its place in the text (reported in that order), or
        // `None` for one autosync cannot name: arguments that depend on the host code's
        // template parameters (`k<T, N><<<...>>>` in a host template that is not
        // called with constants) or that are not constants.
        let mut made: Vec<(usize, Option<NamedInstance>)> = Vec::new();
        for args in arg_lists {
            made.push((args.start_byte(), self.written_instance(&def.name, tparams, args)));
        }
        let mut open = if arg_lists_dependent(&made) {
            Open::Dependent
        } else {
            Open::Never
        };
        for h in read {
            let at = h.template_list.map_or(h.start, |(start, _)| start);
            if h.template_list.is_none() && h.contexts.iter().any(|c| c.template_args.is_none()) {
                open = open.or(Open::Undeduced(h.site.line));
            } else if h.contexts.iter().any(|c| c.template_args.is_none()) {
                open = open.or(Open::Dependent);
            }
            for c in &h.contexts {
                let inst = c.template_args.as_ref().and_then(|args| {
                    let list = h.template_list_node(self.prog);
                    let bindings = self.host_bindings(tparams, list, args)?;
                    Some((crate::host::instance_name(&def.name, args), bindings))
                });
                if inst.is_none() && c.template_args.is_some() {
                    // Arguments the front end cannot bind (a type it does not know):
                    // the open instance takes the context (`launches::launch_contexts`).
                    open = open.or(Open::Unbound(h.site.line));
                }
                made.push((at, inst));
            }
        }
        made.sort_by_key(|(at, _)| *at);
        let mut out: Vec<Instance> = Vec::new();
        let mut dependent = false;
        for (_, inst) in made {
            match inst {
                None => dependent = true,
                Some((name, bindings)) => {
                    if out.iter().all(|i| i.name != name) {
                        out.push(Instance {
                            name,
                            bindings,
                            notes: Vec::new(),
                        });
                    }
                }
            }
        }
        if out.is_empty() || dependent {
            // Unknown instantiations are covered by the open one.
            out.push(self.open_instance(f, tparams, if dependent { open } else { Open::Never })?);
        }
        Ok(out)
    }

    /// The instance template arguments `args` name as written (an explicit
    /// instantiation, a launch the host code does not read): its name and bindings, or
    /// `None` when they are not all constants.
    fn written_instance(&mut self, kernel: &str, tparams: Node<'t>, args: Node<'t>) -> Option<NamedInstance> {
        if crate::host::mentions_host_template_parameter(self.prog, args) {
            return None;
        }
        let bindings = constant_bindings(self.bind_template(tparams, Some(args)).ok()?)?;
        let shown: Vec<String> = named_children(args)
            .iter()
            .map(|a| self.text(*a).split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        Some((format!("{kernel}<{}>", shown.join(",")), bindings))
    }

    /// The bindings of template parameters `tparams` to the arguments a host launch
    /// gives in one context (`args`, written as `list`, or deduced when `list` is
    /// `None`): a value the host code computes as it is; a type as the front end reads
    /// the written argument, or, for a host template's parameter or a deduced one, the
    /// type it stands for. `None` when a type is not one the front end knows by its
    /// text.
    fn host_bindings(
        &mut self,
        tparams: Node<'t>,
        list: Option<Node<'t>>,
        args: &[crate::host::TemplateArg],
    ) -> Option<Vec<(String, Binding)>> {
        use crate::host::TemplateArg;
        let written: Vec<Option<Node<'t>>> = match list {
            Some(list) => named_children(list)
                .into_iter()
                .filter(|a| a.kind() != "comment")
                .map(Some)
                .collect(),
            None => vec![None; args.len()],
        };
        let mut bindings = Vec::new();
        for (a, n) in args.iter().zip(written) {
            let as_written = n.map(|n| self.text(n).split_whitespace().collect::<Vec<_>>().join(" "));
            let n = n.filter(|_| matches!(a, TemplateArg::Written(t) | TemplateArg::Type(t) if Some(t) == as_written.as_ref()));
            bindings.push(match a {
                TemplateArg::Value(v) => Binding::Value(Expr::Int(*v)),
                _ if n.is_some() => self.template_arg(n?).ok()?,
                TemplateArg::Written(t) if t == "true" || t == "false" => {
                    Binding::Value(Expr::Int(i64::from(t == "true")))
                }
                // A host template's parameter bound to a function of the file.
                TemplateArg::Written(t) => match self.function_value(t)?.v {
                    super::V::Int(e) => Binding::Value(e),
                    _ => return None,
                },
                TemplateArg::Type(t) if list.is_none() => Binding::Type(self.deduced_type(t, tparams)?),
                TemplateArg::Type(t) => match self.named_type_of_text(t).ok()? {
                    Ty::Opaque(_) => return None,
                    ty => Binding::Type(ty),
                },
            });
        }
        constant_bindings(self.bind_params(tparams, bindings).ok()?)
    }

    /// A deduced type argument (`float`, `Pair<int>`, `double*`): its name as the front
    /// end reads it, pointers around it. A name the front end does not know is one of
    /// CUDA's libraries (`__nv_bfloat16`), as if written in the kernel (`deduce` reads
    /// types only where they mean what they mean at namespace scope); any other text,
    /// or a name of the template's own parameters, is `None`.
    fn deduced_type(&mut self, t: &str, tparams: Node<'t>) -> Option<Ty> {
        let base = t.trim_end_matches(|c: char| c == '*' || c.is_whitespace());
        let pointers = t[base.len()..].matches('*').count();
        let mut ty = match self.named_type_of_text(base).ok()? {
            Ty::Opaque(o) if tparam_names(self.prog, tparams).contains(&o) => return None,
            Ty::Opaque(o) if !o.chars().all(|c| c.is_alphanumeric() || c == '_') => return None,
            ty => ty,
        };
        for _ in 0..pointers {
            ty = Ty::ptr(ty);
        }
        Some(ty)
    }

    /// A template kernel the file never instantiates: checked with `int` for each type
    /// parameter without a default, and for each non-type parameter without a constant
    /// default a symbolic value of its type, the same in every thread of the launch (a
    /// scalar parameter of the kernel, typed in [`Lowerer::kernel`]), never a value
    /// havocked per thread.
    /// `why`: why the instantiations are not all known, if the file makes some.
    fn open_instance(&mut self, f: usize, tparams: Node<'t>, why: Open) -> R<Instance> {
        let name = self.prog.funcs[f].name.clone();
        let mut bindings = self.bind_template(tparams, None)?;
        let (mut types, mut values) = (Vec::new(), Vec::new());
        for (param, b) in &mut bindings {
            match b {
                Binding::Type(Ty::Opaque(o)) if o == param => {
                    *b = Binding::Type(Ty::INT);
                    types.push(format!("`{param}`"));
                }
                Binding::Value(Expr::Var(_)) => values.push(format!("`{param}`")),
                _ => {}
            }
        }
        let mut what = Vec::new();
        if !types.is_empty() {
            what.push(format!("with `int` for {}", types.join(", ")));
        }
        if !values.is_empty() {
            what.push(format!(
                "with {} symbolic (any value of the parameter's type, the same in every thread)",
                values.join(", ")
            ));
        }
        let why = match why {
            Open::Dependent => {
                "is instantiated with template arguments that depend on the host code's template parameters"
                    .to_string()
            }
            Open::Undeduced(line) => format!(
                "is launched at line {line} without template arguments, and autosync does not deduce them \
                 there from the types of the kernel's arguments"
            ),
            Open::Unbound(line) => format!(
                "is launched at line {line} with template arguments autosync cannot bind (a type it does not know)"
            ),
            Open::Never => "is never instantiated in this file".to_string(),
        };
        let notes = vec![format!(
            "template kernel `{name}` {why}: it is checked {}",
            if what.is_empty() {
                "with its default template arguments".to_string()
            } else {
                what.join(" and ")
            }
        )];
        Ok(Instance {
            name,
            bindings,
            notes,
        })
    }

    /// A symbolic non-type template argument as a scalar parameter of the kernel, of
    /// the template parameter's declared type (`int N` may be negative, `bool B` is 0
    /// or 1; a type the lowering does not track gets the default scalar type).
    pub(super) fn template_scalar(&mut self, tparams: Option<Node<'t>>, param: &str, var: &str) -> R<()> {
        let decl = tparams.into_iter().flat_map(named_children).find(|p| {
            p.child_by_field_name("declarator")
                .and_then(|d| declarator_name(d, self.prog.src))
                .is_some_and(|n| n == param)
        });
        let ty = match decl.and_then(|p| p.child_by_field_name("type").map(|t| (p, t))) {
            Some((p, t)) => self.declared(t, p.child_by_field_name("declarator"))?.ty,
            None => Ty::UINT,
        };
        self.used.insert(var.to_string());
        self.params.push(Param::Scalar {
            name: var.to_string(),
            ty: ty.int_ty().unwrap_or_default(),
        });
        if ty == Ty::Bool {
            let v = Expr::Var(var.to_string());
            self.requires.push(Expr::bin(BinOp::Le, v, Expr::Int(1)));
        }
        Ok(())
    }
}
