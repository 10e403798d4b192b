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
        // Launches the host code reads are instantiated below, context by context.
        let read: Vec<&crate::host::HostLaunch> = host
            .launches
            .iter()
            .filter(|h| h.kernel == def.name && h.template_list.is_some())
            .collect();
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
        for h in read {
            let at = h.template_list.map_or(0, |(start, _)| start);
            for c in &h.contexts {
                let inst = c.template_args.as_ref().and_then(|args| {
                    let list = h.template_list_node(self.prog)?;
                    let bindings = self.host_bindings(tparams, list, args)?;
                    Some((crate::host::instance_name(&def.name, args), bindings))
                });
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
            out.push(self.open_instance(f, tparams, dependent)?);
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
    /// gives in one context (`args`, written as `list`): a value the host code computes
    /// as it is; a type as the front end reads the written argument, or, for a host
    /// template's parameter, the type it stands for. `None` when a type is not one the
    /// front end knows by its text.
    fn host_bindings(
        &mut self,
        tparams: Node<'t>,
        list: Node<'t>,
        args: &[crate::host::TemplateArg],
    ) -> Option<Vec<(String, Binding)>> {
        use crate::host::TemplateArg;
        let written: Vec<Node<'t>> = named_children(list)
            .into_iter()
            .filter(|a| a.kind() != "comment")
            .collect();
        let mut bindings = Vec::new();
        for (a, n) in args.iter().zip(written) {
            let as_written = self.text(n).split_whitespace().collect::<Vec<_>>().join(" ");
            bindings.push(match a {
                TemplateArg::Value(v) => Binding::Value(Expr::Int(*v)),
                TemplateArg::Written(t) if *t == as_written => self.template_arg(n).ok()?,
                // A host template's parameter bound to a function of the file.
                TemplateArg::Written(t) => match self.function_value(t)?.v {
                    super::V::Int(e) => Binding::Value(e),
                    _ => return None,
                },
                TemplateArg::Type(t) if *t == as_written => self.template_arg(n).ok()?,
                TemplateArg::Type(t) => match self.named_type_of_text(t).ok()? {
                    Ty::Opaque(_) => return None,
                    ty => Binding::Type(ty),
                },
            });
        }
        constant_bindings(self.bind_params(tparams, bindings).ok()?)
    }

    /// A template kernel the file never instantiates: checked with `int` for each type
    /// parameter without a default, and for each non-type parameter without a constant
    /// default a symbolic value of its type, the same in every thread of the launch (a
    /// scalar parameter of the kernel, typed in [`Lowerer::kernel`]), never a value
    /// havocked per thread.
    /// `dependent`: the file instantiates it with arguments that depend on template
    /// parameters of the host code, so the instantiations are not all known.
    fn open_instance(&mut self, f: usize, tparams: Node<'t>, dependent: bool) -> R<Instance> {
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
        let why = if dependent {
            "is instantiated with template arguments that depend on the host code's template parameters"
        } else {
            "is never instantiated in this file"
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
