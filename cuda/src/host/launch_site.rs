//! Launch sites: a call in the host code that is a launch (`k<<<g, b>>>(..)` or a
//! launch API), its kernel and template arguments, and its evaluation in every caller
//! context of the host function that makes it.

use kpl::Expr;
use kpl::launch::Site;
use tree_sitter::Node;

use crate::program::{Program, named_children};

use super::launch_layer::fold;
use super::syntax::{address_operand, callee_name};
use super::{Context, Env, HostLaunch, Reader};

impl<'t> Reader<'_, 't> {
    pub(super) fn text(&self, n: Node<'t>) -> &'t str {
        self.prog.text(n)
    }

    /// The launch `call` makes, if it is one.
    pub(super) fn launch(&self, call: Node<'t>) -> Option<HostLaunch> {
        let fun = call.child_by_field_name("function")?;
        let config = named_children(call)
            .into_iter()
            .find(|c| c.kind() == "kernel_call_syntax");
        let args = call.child_by_field_name("arguments");
        let kernel = callee_name(self.prog, fun)?;
        let targs = template_list(fun);
        let host = self.enclosing_function(call)?;
        let (file, line, _) = self.prog.map.describe(call.start_byte());
        let site = Site {
            file: file.display().to_string(),
            line,
        };
        let shape = match config {
            Some(cfg) => {
                let parts: Vec<Node> = named_children(cfg)
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .collect();
                Shape::Chevrons {
                    grid: *parts.first()?,
                    block: *parts.get(1)?,
                    args: args.map(named_children).unwrap_or_default(),
                }
            }
            None => {
                let api = kernel.as_str();
                let list: Vec<Node> = args
                    .map(named_children)?
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .collect();
                match api {
                    "cudaLaunchKernel" | "cudaLaunchCooperativeKernel" => {
                        let k = kernel_node(self.prog, *list.first()?);
                        let targs = template_list(k);
                        let k = callee_name(self.prog, k)?;
                        return Some(HostLaunch {
                            template_list: span(targs),
                            start: call.start_byte(),
                            contexts: self.contexts(
                                host,
                                call,
                                Templated::new(targs, None),
                                &Shape::Api {
                                    grid: *list.get(1)?,
                                    block: *list.get(2)?,
                                    cooperative: api == "cudaLaunchCooperativeKernel",
                                },
                            ),
                            kernel: k,
                            site,
                        });
                    }
                    "cudaLaunchKernelEx" => {
                        let k = kernel_node(self.prog, *list.get(1)?);
                        let targs = template_list(k);
                        let k = callee_name(self.prog, k)?;
                        let deduce = self.deducible_kernel(&k);
                        return Some(HostLaunch {
                            template_list: span(targs),
                            start: call.start_byte(),
                            contexts: self.contexts(
                                host,
                                call,
                                Templated::new(targs, deduce),
                                &Shape::Ex {
                                    config: *list.first()?,
                                    args: list[2..].to_vec(),
                                },
                            ),
                            kernel: k,
                            site,
                        });
                    }
                    _ => return None,
                }
            }
        };
        let deduce = self.deducible_kernel(&kernel);
        Some(HostLaunch {
            kernel,
            template_list: span(targs),
            start: call.start_byte(),
            site,
            contexts: self.contexts(host, call, Templated::new(targs, deduce), &shape),
        })
    }

    pub(super) fn enclosing_function(&self, n: Node<'t>) -> Option<usize> {
        let mut up = n.parent();
        while let Some(p) = up {
            if p.kind() == "function_definition" {
                return self.prog.funcs.iter().position(|f| f.node.id() == p.id());
            }
            up = p.parent();
        }
        None
    }

    /// The launch in every caller context of its host function.
    fn contexts(&self, host: usize, call: Node<'t>, targs: Templated<'t>, shape: &Shape<'t>) -> Vec<Context> {
        let envs: Vec<Env> = self
            .caller_envs(host, 0)
            .iter()
            .flat_map(|env| self.fork(host, &[call], env))
            .collect();
        let mut out = Vec::new();
        for env in &envs {
            let Some(c) = self.context(host, call, targs, shape, env) else {
                continue; // not launched in this context
            };
            out.push(c);
        }
        if out.is_empty() {
            // Launched in no caller context: what holds if it is launched at all.
            out.extend(self.context(host, call, targs, shape, &Env::default()));
        }
        out
    }

    fn context(
        &self,
        host: usize,
        call: Node<'t>,
        targs: Templated<'t>,
        shape: &Shape<'t>,
        env: &Env,
    ) -> Option<Context> {
        let mut c = Context {
            template_args: match targs {
                Templated::Written(list) => self.template_args(host, list, env),
                Templated::Deduced(k) => match shape {
                    Shape::Chevrons { args, .. } | Shape::Ex { args, .. } => {
                        self.deduced_template_args(host, k, args, env)
                    }
                    Shape::Api { .. } => None,
                },
                Templated::No => None,
            },
            ..Context::default()
        };
        for cond in self.path_conditions(host, call, env) {
            match fold(&cond) {
                Expr::Int(0) => return None,
                Expr::Int(_) => {}
                e => c.conditions.push(e),
            }
        }
        match shape {
            Shape::Chevrons { grid, block, args } => {
                c.grid = self.dim3(host, *grid, env);
                c.block = self.dim3(host, *block, env);
                c.args = Some(args.iter().map(|a| self.scalar(host, *a, env)).collect());
            }
            Shape::Api {
                grid,
                block,
                cooperative,
            } => {
                c.grid = self.dim3(host, *grid, env);
                c.block = self.dim3(host, *block, env);
                c.cooperative = *cooperative;
            }
            Shape::Ex { config, args } => {
                let cfg = address_operand(self.prog, *config);
                c.grid = self.struct_field_dim3(host, cfg, "gridDim", call, env);
                c.block = self.struct_field_dim3(host, cfg, "blockDim", call, env);
                c.args = Some(args.iter().map(|a| self.scalar(host, *a, env)).collect());
                c.cooperative = self.config_is_cooperative(host, cfg);
            }
        }
        Some(c)
    }
}

/// Where a launch's template arguments come from.
#[derive(Clone, Copy)]
enum Templated<'t> {
    /// The list written at the launch (`k<16, float><<<...>>>`).
    Written(Node<'t>),
    /// None written, for kernel template `.0` (the index of its definition): deduced
    /// from the kernel's arguments, as C++ does.
    Deduced(usize),
    /// None: the kernel is not a template.
    No,
}

impl<'t> Templated<'t> {
    fn new(list: Option<Node<'t>>, deducible: Option<usize>) -> Self {
        match (list, deducible) {
            (Some(l), _) => Templated::Written(l),
            (None, Some(k)) => Templated::Deduced(k),
            (None, None) => Templated::No,
        }
    }
}

enum Shape<'t> {
    Chevrons {
        grid: Node<'t>,
        block: Node<'t>,
        args: Vec<Node<'t>>,
    },
    Api {
        grid: Node<'t>,
        block: Node<'t>,
        cooperative: bool,
    },
    Ex {
        config: Node<'t>,
        args: Vec<Node<'t>>,
    },
}

/// The kernel's name in `cudaLaunchKernel`'s first argument, casts and `&` removed:
/// `(void*)k`, `k`, `&k`, `(const void*)k<32>`.
fn kernel_node<'t>(prog: &Program, e: Node<'t>) -> Node<'t> {
    let mut n = e;
    loop {
        let inner = match n.kind() {
            "cast_expression" => n.child_by_field_name("value"),
            "parenthesized_expression" => named_children(n).first().copied(),
            "pointer_expression" => n.child_by_field_name("argument"),
            "call_expression"
                if n.child_by_field_name("function")
                    .is_some_and(|f| prog.text(f).contains("_cast")) =>
            {
                n.child_by_field_name("arguments")
                    .and_then(|a| named_children(a).first().copied())
            }
            _ => None,
        };
        match inner {
            Some(i) => n = i,
            None => return n,
        }
    }
}

/// The template argument list of a callee `k<16, float>`.
pub(super) fn template_list(fun: Node) -> Option<Node> {
    (fun.kind() == "template_function")
        .then(|| fun.child_by_field_name("arguments"))
        .flatten()
}

fn span(n: Option<Node>) -> Option<(usize, usize)> {
    n.map(|n| (n.start_byte(), n.end_byte()))
}
