//! The launches of each kernel in the host code of the translation unit (issue #30):
//! `k<<<grid, block[, smem[, stream]]>>>(args)`, `k<T, 128><<<...>>>`,
//! `cudaLaunchKernel`, `cudaLaunchCooperativeKernel` and `cudaLaunchKernelEx`, with what
//! the host code says about their sizes and arguments.
//!
//! Host values are evaluated to KPL expressions over *atoms*: a value the host code
//! holds but does not compute from constants (a parameter of the host function, a local
//! read from `argv`) is a variable that stands for one fixed value during the launch. A
//! value that is reassigned, or comes from anything this reader does not follow, is
//! unknown (`None`). Each launch is evaluated once per caller context: a host function's
//! parameters take the values its calls in the file pass (`run(32)` and `run(64)` are
//! two contexts), else they stay atoms; a local copied from a constant table
//! (`int bs = sizes[j];`) takes each of its values in a context of its own
//! ([`Reader::fork`]). Then the atoms are eliminated
//! ([`Context::launch`]): constants pin a size or a scalar parameter, an atom that is a
//! size or an argument stands for it, and an equation whose atoms all stand for sizes
//! or parameters is a relation (`dim3 threads(bs, bs)`: `bdim.x == bdim.y`;
//! `k<<<(n + 255) / 256, 256>>>(d, n)`: `gdim.x == (n + 255) / 256`). The conditions
//! of the `if`s around a launch and the `assert`s before it are relations the same way,
//! and a launch whose condition is false in a caller context is not made in it.
//!
//! What this assumes (the deviations list of the verifier says so too): the file's
//! host code is the whole program: every launch of a kernel, and every call of a host
//! function that launches one, is in the translation unit; host arithmetic does not
//! overflow. `--launch symbolic` turns the reading off.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use kpl::launch::{Launch, Origin, Site};
use kpl::{Arith, BinOp, Builtin, Dim, Expr, UnOp};
use tree_sitter::Node;

use crate::lower::expr::binop;
use crate::preprocess::int_literal;
use crate::program::{Program, named_children};

/// How deep callers and inlined host helpers are followed.
const MAX_DEPTH: usize = 4;
/// The most caller contexts of one launch.
const MAX_CONTEXTS: usize = 16;

/// A value of the host code: a KPL expression over atoms, or unknown.
type Val = Option<Expr>;

/// A launch of a kernel found in the host code.
#[derive(Clone, Debug)]
pub struct HostLaunch {
    /// The kernel's name as called (`k`).
    pub kernel: String,
    /// Where the template argument list (`<bs, float>`) is, as a byte range: the
    /// front end binds the instance's parameters from the nodes there and from each
    /// context's [`Context::template_args`].
    pub template_list: Option<(usize, usize)>,
    pub site: Site,
    /// One launch per caller context, before the atoms are eliminated.
    pub contexts: Vec<Context>,
}

/// One launch in one caller context.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub grid: [Val; 3],
    pub block: [Val; 3],
    /// The kernel's arguments, by position (`None` for `cudaLaunchKernel`'s `void**`).
    pub args: Option<Vec<Val>>,
    /// Conditions that hold when the launch is made (`if`s around it, `assert`s before it).
    pub conditions: Vec<Expr>,
    pub cooperative: bool,
    /// The template arguments as the host code gives them in this context, when every
    /// one is known (`k<bs>` with `const int bs = 16`, `k<BS>` in a host template
    /// called as `run<128>`); `None` for a launch without template arguments or with
    /// one that is not known here.
    pub template_args: Option<Vec<TemplateArg>>,
}

/// A template argument of a launch, as the host code gives it in one context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateArg {
    /// A constant the host code computes (`bs`, `2 * TILE`, a caller's `BS`).
    Value(i64),
    /// A type, as written or as the host template's type parameter stands for
    /// (`float` for `T` of `run<float>`).
    Type(String),
    /// An argument the host code does not evaluate (`&maxOf`, a local that is not a
    /// constant), as written: the front end reads it as it reads any other.
    Written(String),
}

impl std::fmt::Display for TemplateArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateArg::Value(v) => write!(f, "{v}"),
            TemplateArg::Type(t) | TemplateArg::Written(t) => f.write_str(t),
        }
    }
}

impl HostLaunch {
    /// The name of the instance context `c` launches (`k<16>`), or `None` when it is
    /// not known (the template's open instance covers it). For a kernel launched
    /// without template arguments, its name.
    pub fn instance(&self, c: &Context) -> Option<String> {
        match (&self.template_list, &c.template_args) {
            (None, _) => Some(self.kernel.clone()),
            (Some(_), Some(args)) => Some(instance_name(&self.kernel, args)),
            (Some(_), None) => None,
        }
    }
}

/// `k<16,float>`: an instance's name, as the front end names its instances.
pub fn instance_name(kernel: &str, args: &[TemplateArg]) -> String {
    let shown: Vec<String> = args.iter().map(ToString::to_string).collect();
    format!("{kernel}<{}>", shown.join(","))
}

/// The host code's launches, and the kernels it names other than by launching them.
#[derive(Clone, Debug, Default)]
pub struct HostCode {
    /// Every launch, in text order.
    pub launches: Vec<HostLaunch>,
    /// Kernels whose name the host code uses outside a launch it reads (a function
    /// pointer, a launcher template's argument), with the first such place: they may be
    /// launched in ways not read, so they are checked for every launch.
    pub escaped: HashMap<String, Site>,
    /// Kernels named in host code with a syntax error the front end read past
    /// ([`Program::damaged`]), with its place: a launch there was not read, so they are
    /// checked for every launch.
    pub unparsed: HashMap<String, Site>,
}

/// What the host code says about the kernels' launches.
pub fn host_code(prog: &Program) -> HostCode {
    let launches = launches(prog);
    let kernels: std::collections::HashSet<&str> = prog
        .funcs
        .iter()
        .filter(|f| f.global)
        .map(|f| f.name.as_str())
        .collect();
    let mut escaped = HashMap::new();
    for f in prog.funcs.iter().filter(|f| runs_on_host(f)) {
        let Some(body) = f.body else { continue };
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() != "identifier" || !kernels.contains(prog.text(n)) || launched_here(prog, n) {
                continue;
            }
            let (file, line, _) = prog.map.describe(n.start_byte());
            escaped.entry(prog.text(n).to_string()).or_insert(Site {
                file: file.display().to_string(),
                line,
            });
        }
    }
    // A kernel named in a namespace-scope initializer (`void (*const kp)(float *) = k;`,
    // a global lambda) may be launched from there in ways not read.
    if let Some(root) = translation_unit(prog) {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.kind() == "function_definition" {
                continue;
            }
            stack.extend(named_children(n));
            let Some(value) = (n.kind() == "init_declarator")
                .then(|| n.child_by_field_name("value"))
                .flatten()
            else {
                continue;
            };
            let mut inner = vec![value];
            while let Some(m) = inner.pop() {
                inner.extend(named_children(m));
                if m.kind() == "identifier" && kernels.contains(prog.text(m)) && !launched_here(prog, m) {
                    let (file, line, _) = prog.map.describe(m.start_byte());
                    escaped.entry(prog.text(m).to_string()).or_insert(Site {
                        file: file.display().to_string(),
                        line,
                    });
                }
            }
        }
    }
    // Host code the parser could not read may hold launches that were not found.
    let mut unparsed = HashMap::new();
    for &item in &prog.damaged {
        for &k in &kernels {
            if crate::program::is_word_in(prog.text(item), k) {
                let (file, line, _) = prog.map.describe(item.start_byte());
                unparsed.entry(k.to_string()).or_insert(Site {
                    file: file.display().to_string(),
                    line,
                });
            }
        }
    }
    HostCode {
        launches,
        escaped,
        unparsed,
    }
}

/// Whether the kernel name `id` is the callee of a launch or the kernel argument of a
/// launch API or of a function-attribute query (`cudaFuncSetAttribute`,
/// `cudaOccupancy...`), which launches nothing.
fn launched_here(prog: &Program, id: Node) -> bool {
    let mut n = id;
    while let Some(p) = n.parent() {
        match p.kind() {
            "template_function" | "cast_expression" | "parenthesized_expression" | "pointer_expression" => {
                n = p
            }
            "call_expression" => {
                let is_callee = p
                    .child_by_field_name("function")
                    .is_some_and(|f| f.id() == n.id());
                return is_callee && named_children(p).iter().any(|c| c.kind() == "kernel_call_syntax");
            }
            "argument_list" => {
                let Some(call) = p.parent() else { return false };
                let callee = call.child_by_field_name("function").map_or("", |f| prog.text(f));
                return matches!(
                    callee,
                    "cudaLaunchKernel" | "cudaLaunchCooperativeKernel" | "cudaLaunchKernelEx"
                ) || callee.starts_with("cudaFunc")
                    || callee.starts_with("cudaOccupancy");
            }
            _ => return false,
        }
    }
    false
}

/// The root of the parse tree (reached from any function: the program indexes no root).
fn translation_unit<'t>(prog: &Program<'t>) -> Option<Node<'t>> {
    let mut n = prog.funcs.first()?.node;
    while let Some(p) = n.parent() {
        n = p;
    }
    Some(n)
}

impl HostLaunch {
    /// Its template argument list's node.
    pub fn template_list_node<'t>(&self, prog: &Program<'t>) -> Option<Node<'t>> {
        let (start, end) = self.template_list?;
        let n = translation_unit(prog)?.descendant_for_byte_range(start, end)?;
        (n.kind() == "template_argument_list").then_some(n)
    }
}

/// Every launch in the file's host code, in text order.
fn launches(prog: &Program) -> Vec<HostLaunch> {
    let mut out = Vec::new();
    let Some(root) = translation_unit(prog) else {
        return out;
    };
    let mut stack = vec![root];
    let mut calls = Vec::new();
    while let Some(n) = stack.pop() {
        if n.kind() == "call_expression" {
            calls.push(n);
        }
        stack.extend(named_children(n));
    }
    calls.sort_by_key(|n| n.start_byte());
    let reader = Reader::new(prog);
    for call in calls {
        if let Some(l) = reader.launch(call) {
            out.push(l);
        }
    }
    out
}

/// Whether a function is host code (not a kernel, not `__device__` only).
fn runs_on_host(f: &crate::program::FuncDef) -> bool {
    !f.global && (f.host || !f.device)
}

/// The launch bound of a kernel definition: `__launch_bounds__(N[, ...])` with `N` a
/// constant after preprocessing.
pub fn launch_bound(prog: &Program, def: Node) -> Option<u32> {
    let text = prog.text(def);
    let head = &text[..text.find('{').unwrap_or(text.len())];
    let at = head.find("__launch_bounds__")?;
    let rest = head[at + "__launch_bounds__".len()..]
        .trim_start()
        .strip_prefix('(')?;
    let end = rest.find([',', ')'])?;
    let v = int_literal(rest[..end].trim())?;
    u32::try_from(v).ok().filter(|v| (1..=1024).contains(v))
}

struct Reader<'p, 't> {
    prog: &'p Program<'t>,
    /// Answers of the whole-function and whole-file walks, which every name the reader
    /// evaluates asks again (without them, reading a file's launches took seconds).
    memo: RefCell<Memo>,
}

/// [`Reader::assigned`], the walk of [`Reader::declared_in_a_scope_not_followed`] and
/// [`Reader::defined_more_than_once`], by function and name: pure functions of the
/// parse tree.
#[derive(Default)]
struct Memo {
    assigned: HashMap<(usize, String), bool>,
    declared_elsewhere: HashMap<(usize, String), bool>,
    defined_twice: HashMap<String, bool>,
}

impl<'p, 't> Reader<'p, 't> {
    fn new(prog: &'p Program<'t>) -> Reader<'p, 't> {
        Reader {
            prog,
            memo: RefCell::default(),
        }
    }
}

/// What a name means in the host function being read: bindings of its parameters
/// (`p`, or `p.x` for a component of a `dim3`) from a caller.
#[derive(Clone, Default)]
struct Env {
    bindings: HashMap<String, Val>,
    depth: usize,
    /// Template type parameters and the type texts they stand for, while a struct's
    /// static constant is evaluated ([`Reader::scoped_constant`]).
    types: Vec<(String, String)>,
}

impl<'t> Reader<'_, 't> {
    fn text(&self, n: Node<'t>) -> &'t str {
        self.prog.text(n)
    }

    /// The launch `call` makes, if it is one.
    fn launch(&self, call: Node<'t>) -> Option<HostLaunch> {
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
                            contexts: self.contexts(
                                host,
                                call,
                                targs,
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
                        return Some(HostLaunch {
                            template_list: span(targs),
                            contexts: self.contexts(
                                host,
                                call,
                                targs,
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
        Some(HostLaunch {
            kernel,
            template_list: span(targs),
            site,
            contexts: self.contexts(host, call, targs, &shape),
        })
    }

    fn enclosing_function(&self, n: Node<'t>) -> Option<usize> {
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
    fn contexts(
        &self,
        host: usize,
        call: Node<'t>,
        targs: Option<Node<'t>>,
        shape: &Shape<'t>,
    ) -> Vec<Context> {
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
        targs: Option<Node<'t>>,
        shape: &Shape<'t>,
        env: &Env,
    ) -> Option<Context> {
        let mut c = Context {
            template_args: targs.and_then(|a| self.template_args(host, a, env)),
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
                let cfg = strip_address(*config);
                c.grid = self.struct_field_dim3(host, cfg, "gridDim", call, env);
                c.block = self.struct_field_dim3(host, cfg, "blockDim", call, env);
                c.args = Some(args.iter().map(|a| self.scalar(host, *a, env)).collect());
                c.cooperative = self.config_is_cooperative(host, cfg);
            }
        }
        Some(c)
    }

    /// Environments of the host function `f`: one per call of it in the file, binding
    /// its parameters to the values passed; one empty one when nothing calls it (or the
    /// calls are too many or too deep).
    fn caller_envs(&self, f: usize, depth: usize) -> Vec<Env> {
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
            caller,
            args,
            template_args,
            ..
        } in self.calls_of(&def.name)
        {
            if args.len() > params.len() {
                continue;
            }
            let outers = self.caller_envs(caller, depth + 1);
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
                // Parameters the call leaves out take their default argument, evaluated
                // where the function is defined.
                for decl in def.params().into_iter().skip(args.len()) {
                    let (Some(p), Some(v)) = (
                        param_name(self.prog, decl),
                        decl.child_by_field_name("default_value"),
                    ) else {
                        continue;
                    };
                    self.bind_argument(&mut env, f, &p, f, v, &Env::default());
                }
                out.push(env);
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
                    if let (Some(n), Some(TemplateArg::Value(v))) = (name, arg) {
                        env.bindings.insert(n, Some(Expr::Int(v)));
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
    fn fork(&self, f: usize, nodes: &[Node<'t>], env: &Env) -> Vec<Env> {
        let mut tables: Vec<(String, Vec<i64>)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<(Node<'t>, usize)> = nodes.iter().map(|n| (*n, 0)).collect();
        while let Some((n, depth)) = stack.pop() {
            if n.kind() == "identifier" {
                let x = self.text(n);
                // Locals are bound by their declaration (`local_key`): a name declared
                // twice names two variables.
                let Some(decl) = self.local_declaration(f, n, x) else {
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
        let combinations = tables
            .iter()
            .try_fold(1usize, |acc, (_, v)| acc.checked_mul(v.len()));
        if tables.is_empty() || combinations.is_none_or(|c| c > MAX_CONTEXTS) {
            return vec![env.clone()];
        }
        let mut out = vec![env.clone()];
        for (x, values) in &tables {
            out = out
                .iter()
                .flat_map(|e| {
                    values.iter().map(move |v| {
                        let mut e = e.clone();
                        e.bindings.insert(x.clone(), Some(Expr::Int(*v)));
                        e
                    })
                })
                .collect();
        }
        out
    }

    /// The values local `x` of function `f` (in scope at `at`) may hold when it is a
    /// never-assigned copy of an element of a *table*: an array, never assigned, whose
    /// initializer lists integer constants, local to `f` or a `const` global
    /// (`int bs = sizes[j];`, whatever `j` is: one of the table's values, an index out
    /// of its bounds being undefined behaviour).
    fn table_choices(&self, f: usize, at: Node<'t>, x: &str) -> Option<Vec<i64>> {
        let body = self.prog.funcs[f].body?;
        let decl = self.local_declaration(f, at, x)?;
        if self.assigned(f, x) || self.is_param(f, x) || !wide_int(self, decl) {
            return None;
        }
        let mut init = initializer(self.prog, decl, x)?;
        while init.kind() == "parenthesized_expression" {
            init = *named_children(init).first()?;
        }
        if init.kind() != "subscript_expression" {
            return None;
        }
        let table = init.child_by_field_name("argument")?;
        if table.kind() != "identifier" {
            return None;
        }
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
            || !only_elements_read(self.prog, scope, name)
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

    fn is_param(&self, f: usize, x: &str) -> bool {
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
            if !declared && !called && self.forwarded_args(n).is_none() {
                return true;
            }
        }
        false
    }

    /// `f` passed to a forwarder of the file, `g(x, f, a, b)` where
    /// `template <class F, class... A> T g(X x, F f, A&&... a) { ... f(std::forward<A>(a)...); ... }`
    /// (a benchmark or launch wrapper): the arguments `f` is called with, `a, b`.
    fn forwarded_args(&self, id: Node<'t>) -> Option<Vec<Node<'t>>> {
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
            let is_call = c.kind() == "call_expression"
                && c.child_by_field_name("function")
                    .is_some_and(|x| x.id() == n.id());
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
                if n.kind() == "call_expression"
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
                    });
                }
                stack.extend(named_children(n));
            }
        }
        out.sort_by_key(|c| c.at);
        out
    }

    /// The conditions of the `if`s around `at` inside function `f` (negated in an else
    /// branch) and the `assert(c)`s before it in the blocks around it.
    fn path_conditions(&self, f: usize, at: Node<'t>, env: &Env) -> Vec<Expr> {
        let mut out = Vec::new();
        // A jump into a branch (`goto`, a `case` label nested in another case's
        // statements) reaches the launch without its conditions.
        if self.prog.funcs[f].body.is_some_and(|b| has_jump_into_branches(b)) {
            return out;
        }
        let mut child = at;
        let mut up = at.parent();
        while let Some(p) = up {
            if p.kind() == "function_definition" {
                break;
            }
            if p.kind() == "if_statement"
                && let Some(cond) = p.child_by_field_name("condition")
            {
                let inside_then = p
                    .child_by_field_name("consequence")
                    .is_some_and(|c| c.id() == child.id());
                let inside_else = p
                    .child_by_field_name("alternative")
                    .is_some_and(|c| c.id() == child.id());
                if inside_then || inside_else {
                    let cond = named_children(cond).into_iter().last().unwrap_or(cond);
                    if let Some(e) = self.scalar(f, cond, env) {
                        out.push(if inside_then {
                            e
                        } else {
                            Expr::Unary(UnOp::Not, Box::new(e))
                        });
                    }
                }
            }
            if p.kind() == "case_statement"
                && p.child_by_field_name("value")
                    .is_none_or(|v| v.id() != child.id())
                && let Some(e) = self.case_condition(f, p, env)
            {
                out.push(e);
            }
            if p.kind() == "compound_statement" {
                for s in named_children(p) {
                    if s.start_byte() >= child.start_byte() {
                        break;
                    }
                    if let Some(e) = self.assertion(f, s, env) {
                        out.push(e);
                    }
                }
            }
            child = p;
            up = p.parent();
        }
        out
    }

    /// What holds in the statements of `case` of a `switch`: the switch's value is the
    /// case's, or the value of a case before it that falls through into it (one whose
    /// statements do not end in `break`, `return`, `continue` or a `throw`). Nothing
    /// when a `default:` falls through into it, or the value is not read.
    fn case_condition(&self, f: usize, case: Node<'t>, env: &Env) -> Val {
        let body = case.parent()?;
        let switch = body.parent().filter(|s| s.kind() == "switch_statement")?;
        let cond = switch.child_by_field_name("condition")?;
        let cond = named_children(cond).into_iter().last().unwrap_or(cond);
        let v = self.scalar(f, cond, env)?;
        let cases: Vec<Node<'t>> = named_children(body)
            .into_iter()
            .filter(|c| c.kind() == "case_statement" && c.start_byte() <= case.start_byte())
            .collect();
        let mut values = Vec::new();
        for (i, c) in cases.iter().enumerate().rev() {
            let falls_through = |c: &Node<'t>| {
                let last = named_children(*c).into_iter().rfind(|s| {
                    s.kind() != "comment" && Some(s.id()) != c.child_by_field_name("value").map(|v| v.id())
                });
                !last.is_some_and(|s| {
                    matches!(
                        s.kind(),
                        "break_statement" | "return_statement" | "continue_statement" | "throw_statement"
                    ) || (s.kind() == "expression_statement"
                        && named_children(s)
                            .first()
                            .is_some_and(|e| e.kind() == "throw_expression"))
                })
            };
            if i + 1 < cases.len() && !falls_through(c) {
                break;
            }
            let value = c.child_by_field_name("value")?; // `default:` reaches it
            values.push(Expr::bin(BinOp::Eq, v.clone(), self.scalar(f, value, env)?));
        }
        values.into_iter().reduce(|a, b| Expr::bin(BinOp::Or, a, b))
    }

    /// `assert(c);` as a statement: `c`.
    fn assertion(&self, f: usize, s: Node<'t>, env: &Env) -> Val {
        let call = named_children(s)
            .into_iter()
            .next()
            .filter(|_| s.kind() == "expression_statement")?;
        if call.kind() != "call_expression" {
            return None;
        }
        let fun = call.child_by_field_name("function")?;
        if self.text(fun) != "assert" {
            return None;
        }
        let arg = *named_children(call.child_by_field_name("arguments")?).first()?;
        self.scalar(f, arg, env)
    }

    /// Template arguments `<...>` in function `f`, when every one is known in `env`.
    fn template_args(&self, f: usize, list: Node<'t>, env: &Env) -> Option<Vec<TemplateArg>> {
        named_children(list)
            .into_iter()
            .filter(|a| a.kind() != "comment")
            .map(|a| self.template_arg(f, a, env))
            .collect()
    }

    /// One template argument: a constant, or a type or an expression that names no
    /// template parameter of the host code left unbound in `env`.
    fn template_arg(&self, f: usize, a: Node<'t>, env: &Env) -> Option<TemplateArg> {
        // As written, for the front end to read at namespace scope: only when it names
        // no template parameter, local or parameter of the host code (which the front
        // end would not see, or would take for a global of the same name).
        let written = || {
            let mut stack = vec![a];
            while let Some(n) = stack.pop() {
                stack.extend(named_children(n));
                let x = self.text(n);
                if matches!(n.kind(), "identifier" | "type_identifier")
                    && (self.local_declaration(f, n, x).is_some()
                        || self.is_param(f, x)
                        || env.bindings.contains_key(x)
                        || self.declared_in_a_scope_not_followed(f, n, x))
                {
                    return None;
                }
            }
            (!mentions_host_template_parameter(self.prog, a))
                .then(|| self.text(a).split_whitespace().collect::<Vec<_>>().join(" "))
        };
        if a.kind() != "type_descriptor" {
            // `true`/`false` as written (the instance's name keeps them).
            if matches!(a.kind(), "true" | "false") {
                return written().map(TemplateArg::Written);
            }
            // As written only when it names no value the host code knows (`&maxOf`):
            // the front end would read such a name at namespace scope.
            let mut stack = vec![a];
            let mut names_value = self.text(a).contains("::");
            while let Some(n) = stack.pop() {
                stack.extend(named_children(n));
                let x = self.text(n);
                names_value |= n.kind() == "identifier"
                    && (self.prog.globals.contains_key(x)
                        || self.prog.enumerators.contains_key(x)
                        || self.defined_more_than_once(x));
            }
            return match self.scalar(f, a, env).map(|v| fold(&v)) {
                Some(Expr::Int(v)) => Some(TemplateArg::Value(v)),
                _ if names_value => None,
                _ => written().map(TemplateArg::Written),
            };
        }
        // `bs` alone parses as a type: it is a value when the host code has one by
        // that name (a local, a parameter, an enumerator, a global, a bound template
        // parameter).
        let plain = a
            .child_by_field_name("type")
            .filter(|t| t.kind() == "type_identifier" && a.child_by_field_name("declarator").is_none());
        if let Some(t) = plain {
            let x = self.text(t);
            let value = env.bindings.contains_key(x)
                || self.local_declaration(f, t, x).is_some()
                || self.is_param(f, x)
                || self.prog.enumerators.contains_key(x)
                || self.prog.globals.contains_key(x);
            if value || self.defined_more_than_once(x) {
                return match self.name(f, t, x, env).map(|v| fold(&v)) {
                    Some(Expr::Int(v)) => Some(TemplateArg::Value(v)),
                    _ => None,
                };
            }
            if let Some((_, ty)) = env.types.iter().find(|(p, _)| p == x) {
                return Some(TemplateArg::Type(ty.clone()));
            }
        }
        // `P::W`, `T::value` parse as types: a class's constant when the host code
        // evaluates one, else unknown (the front end would look the last name up at
        // namespace scope).
        if self.text(a).contains("::") {
            let inner = a.child_by_field_name("type").unwrap_or(a);
            return match self.scoped_constant(f, inner, env).map(|v| fold(&v)) {
                Some(Expr::Int(v)) => Some(TemplateArg::Value(v)),
                _ => None,
            };
        }
        // A type of the host template's is unknown unless bound above.
        written().map(TemplateArg::Type)
    }

    // ---- values --------------------------------------------------------------------

    /// An integer value of host expression `e` in function `f`.
    fn scalar(&self, f: usize, e: Node<'t>, env: &Env) -> Val {
        if env.depth > 3 * MAX_DEPTH {
            return None;
        }
        let deeper = Env {
            depth: env.depth + 1,
            ..env.clone()
        };
        let r = |n: Node<'t>| self.scalar(f, n, &deeper);
        match e.kind() {
            "number_literal" => int_literal(self.text(e)).map(Expr::Int),
            "true" => Some(Expr::Int(1)),
            "false" => Some(Expr::Int(0)),
            "parenthesized_expression" => r(*named_children(e).first()?),
            "identifier" => self.name(f, e, self.text(e), env),
            "field_expression" => {
                let base = e.child_by_field_name("argument")?;
                let field = self.text(e.child_by_field_name("field")?);
                let i = ["x", "y", "z"].iter().position(|c| *c == field)?;
                self.dim3(f, base, &deeper)[i].clone()
            }
            "binary_expression" => {
                let op = binop(self.text(e.child_by_field_name("operator")?))?;
                let a = r(e.child_by_field_name("left")?)?;
                let b = r(e.child_by_field_name("right")?)?;
                Some(fold(&Expr::bin(op, a, b)))
            }
            "unary_expression" => {
                let op = match self.text(e.child_by_field_name("operator")?) {
                    "-" => UnOp::Neg,
                    "!" => UnOp::Not,
                    "~" => UnOp::BitNot,
                    "+" => return r(e.child_by_field_name("argument")?),
                    _ => return None,
                };
                Some(fold(&Expr::Unary(
                    op,
                    Box::new(r(e.child_by_field_name("argument")?)?),
                )))
            }
            "conditional_expression" => {
                let c = fold(&r(e.child_by_field_name("condition")?)?);
                match c {
                    Expr::Int(0) => r(e.child_by_field_name("alternative")?),
                    Expr::Int(_) => r(e.child_by_field_name("consequence")?),
                    _ => None,
                }
            }
            "cast_expression" => {
                let ty = self.text(e.child_by_field_name("type")?);
                // A `short` may not hold the value: not followed.
                (integer_type(ty) && !ty.contains("short")).then_some(())?;
                r(e.child_by_field_name("value")?)
            }
            "sizeof_expression" => {
                // A type parameter of a host template that no call binds is unknown,
                // whatever else of its name the file declares.
                let params = host_template_parameters(self.prog, e);
                let mut stack = vec![e];
                while let Some(n) = stack.pop() {
                    let t = self.text(n);
                    if matches!(n.kind(), "identifier" | "type_identifier")
                        && params.contains(t)
                        && !env.types.iter().any(|(p, _)| p == t)
                    {
                        return None;
                    }
                    stack.extend(named_children(n));
                }
                let ty = match (e.child_by_field_name("type"), e.child_by_field_name("value")) {
                    (Some(t), _) => self.resolve_type(self.text(t), env),
                    // `sizeof(E)` read as an expression: a type only when it is a
                    // template parameter being bound or a typedef of the file.
                    (None, Some(v)) => {
                        let mut v = v;
                        while v.kind() == "parenthesized_expression" {
                            v = *named_children(v).first()?;
                        }
                        let t = self.text(v);
                        // ... or a CUDA type (`sizeof(int4)`) that no variable in scope names.
                        let variable = self.local_declaration(f, v, t).is_some()
                            || self.is_param(f, t)
                            || self.prog.globals.contains_key(t);
                        let is_type = !variable
                            && (env.types.iter().any(|(p, _)| p == t)
                                || self.prog.aliases.contains_key(t)
                                || size_of(t).is_some());
                        (v.kind() == "identifier" && is_type).then(|| self.resolve_type(t, env))?
                    }
                    _ => return None,
                };
                size_of(&ty).map(Expr::Int)
            }
            "qualified_identifier" => self.scoped_constant(f, e, env),
            "call_expression" => self.call_value(f, e, &deeper),
            _ => None,
        }
    }

    /// A type's text with template parameters being bound and the file's plain
    /// typedefs replaced (`x128` → `Packed128<floatX>`; `floatX` → `float`).
    fn resolve_type(&self, t: &str, env: &Env) -> String {
        let mut t: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
        for _ in 0..16 {
            if let Some((_, u)) = env.types.iter().find(|(p, _)| *p == t) {
                t = u.clone();
                continue;
            }
            match self.prog.aliases.get(t.as_str()) {
                // A name declared as an alias more than once (in a function, in two
                // namespaces) is left as it is: which one applies is not resolved.
                Some(a)
                    if a.declarator.is_none_or(|d| d.kind() == "type_identifier")
                        && self.prog.alias_is_unique(&t) =>
                {
                    t = self.text(a.ty).split_whitespace().collect::<Vec<_>>().join(" ");
                }
                _ => break,
            }
        }
        t
    }

    /// `T::c` for a struct `T` of the file (through typedefs, with template arguments)
    /// whose `static const`/`constexpr` member `c` has an initializer that evaluates
    /// with those arguments: `x128::size` of `typedef Packed128<float> x128;` with
    /// `static constexpr int size = sizeof(int4) / sizeof(ElementType);` is 4.
    fn scoped_constant(&self, f: usize, e: Node<'t>, env: &Env) -> Val {
        let scope = e.child_by_field_name("scope")?;
        let member = self.text(e.child_by_field_name("name")?);
        let ty = self.resolve_type(self.text(scope), env);
        let (name, args) = match ty.split_once('<') {
            Some((name, rest)) => (name.trim(), split_template_args(rest.strip_suffix('>')?)),
            None => (ty.as_str(), Vec::new()),
        };
        let defs = self.prog.structs_by_name.get(name)?;
        // With specializations (explicit or partial), which definition applies is not
        // matched here: no value.
        if defs.iter().any(|&i| self.prog.structs[i].spec_args.is_some()) {
            return None;
        }
        let def = defs
            .iter()
            .map(|&i| &self.prog.structs[i])
            .find(|d| d.spec_args.is_none() && d.template.is_some() != args.is_empty())?;
        let params: Vec<String> = match def.template {
            Some(tp) => named_children(tp)
                .into_iter()
                .map(|p| {
                    let d = p.child_by_field_name("name").or_else(|| p.named_child(0))?;
                    Some(self.text(d).to_string())
                })
                .collect::<Option<_>>()?,
            None => Vec::new(),
        };
        if params.len() != args.len() {
            return None;
        }
        let inner = Env {
            depth: env.depth + 1,
            types: params
                .into_iter()
                .zip(args.iter().map(|a| self.resolve_type(a, env)))
                .collect(),
            ..Env::default()
        };
        let body = def.node.child_by_field_name("body")?;
        named_children(body).into_iter().find_map(|c| {
            let constant = named_children(c)
                .iter()
                .any(|q| q.kind() == "type_qualifier" && matches!(self.text(*q), "const" | "constexpr"));
            let is_static = named_children(c)
                .iter()
                .any(|q| q.kind() == "storage_class_specifier" && self.text(*q) == "static");
            if c.kind() != "field_declaration" || !constant || !is_static {
                return None;
            }
            let ty = self.resolve_type(self.text(c.child_by_field_name("type")?), &inner);
            // A narrow member would convert its initializer.
            (integer_type(&ty) && !ty.contains("short") && !ty.contains("char")).then_some(())?;
            let d = c.child_by_field_name("declarator")?;
            (crate::program::declarator_name(d, self.prog.src)? == member).then_some(())?;
            let value = c
                .child_by_field_name("default_value")
                .or_else(|| d.child_by_field_name("value"))?;
            self.scalar(f, value, &inner)
        })
    }

    /// The value of a call: `static_cast<int>(x)`, `min`/`max` of constants, or a file
    /// function whose body is `return e;`, inlined.
    fn call_value(&self, f: usize, call: Node<'t>, env: &Env) -> Val {
        let fun = call.child_by_field_name("function")?;
        let args: Vec<Node> = named_children(call.child_by_field_name("arguments")?)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        let name = self.text(fun);
        if let Some(ty) = name
            .strip_prefix("static_cast<")
            .and_then(|t| t.strip_suffix('>'))
        {
            integer_type(ty).then_some(())?;
            return self.scalar(f, *args.first()?, env);
        }
        let callee = callee_name(self.prog, fun)?;
        if matches!(
            callee.as_str(),
            "min" | "max" | "std::min" | "std::max" | "MIN" | "MAX"
        ) && args.len() == 2
        {
            let a = fold(&self.scalar(f, args[0], env)?);
            let b = fold(&self.scalar(f, args[1], env)?);
            return match (a, b) {
                (Expr::Int(x), Expr::Int(y)) if callee.ends_with("min") || callee == "MIN" => {
                    Some(Expr::Int(x.min(y)))
                }
                (Expr::Int(x), Expr::Int(y)) => Some(Expr::Int(x.max(y))),
                _ => None,
            };
        }
        let g = self.prog.functions(&callee, None).into_iter().find(|&g| {
            let d = &self.prog.funcs[g];
            d.body.is_some() && !d.global && d.params().len() == args.len()
        })?;
        let def = &self.prog.funcs[g];
        let body = def.body?;
        let stmts: Vec<Node> = named_children(body)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        let [ret] = stmts.as_slice() else {
            return None;
        };
        if ret.kind() != "return_statement" {
            return None;
        }
        let value = *named_children(*ret).first()?;
        let mut inner = Env {
            depth: env.depth + 1,
            ..Env::default()
        };
        for (p, a) in def.params().into_iter().zip(&args) {
            let p = param_name(self.prog, p)?;
            inner.bindings.insert(p, self.scalar(f, *a, env));
        }
        self.scalar(g, value, &inner)
    }

    /// What name `x` holds at `at` in function `f`: a caller's binding, an atom for a
    /// parameter, a never-assigned local's initializer (or an atom for it), a global
    /// constant or an enumerator.
    fn name(&self, f: usize, at: Node<'t>, x: &str, env: &Env) -> Val {
        // A template parameter of the host code names nothing else, bound or not.
        let template_parameter = host_template_parameters(self.prog, at).contains(x);
        // A reference may change through whatever it is bound to.
        if self.unbound_reference(f, x, env) {
            return None;
        }
        let local = self.local_declaration(f, at, x);
        if let Some(v) = env.bindings.get(x).filter(|_| local.is_none()) {
            // A parameter the function assigns holds the caller's value no longer.
            return if self.assigned(f, x) || self.declared_in_a_scope_not_followed(f, at, x) {
                None
            } else {
                v.clone()
            };
        }
        if template_parameter || self.declared_in_a_scope_not_followed(f, at, x) {
            return None;
        }
        let key = function_key(self.prog, f);
        if let Some(decl) = local {
            if let Some(v) = env.bindings.get(&local_key(x, decl)) {
                return v.clone(); // a table value ([`Reader::fork`])
            }
            if declares_reference(self.prog, decl, x) {
                return None;
            }
            // A `static` keeps the value of its first initialization: a constant only.
            if self.is_static(decl) {
                return match initializer(self.prog, decl, x).and_then(|i| self.scalar(f, i, &Env::default()))
                {
                    Some(Expr::Int(v)) if !narrow_or_floating(self, decl) && !self.assigned(f, x) => {
                        Some(Expr::Int(v))
                    }
                    _ => None,
                };
            }
            // A `const` integer (not a reference) keeps its initializer.
            let constant = is_const(self, decl)
                && named_children(decl)
                    .iter()
                    .filter(|d| declares_node(self.prog, **d, x))
                    .all(|d| {
                        matches!(d.kind(), "init_declarator")
                            && d.child_by_field_name("declarator")
                                .is_some_and(|n| n.kind() == "identifier")
                    });
            if !constant && self.assigned(f, x) {
                // The last assignment before `at`, or none (the initializer reaches).
                if let Some(rhs) = self.reaching_assignment(f, decl, at, x)? {
                    return (!narrow_or_floating(self, decl)).then(|| self.scalar(f, rhs, env))?;
                }
            }
            let fixed = || Some(atom(&key, &format!("{x}@{}", decl.start_byte())));
            return match initializer(self.prog, decl, x) {
                // `unsigned char bs = 288;` holds 32, `float f = 2.5;` no integer: the
                // initializer is not the value, which is still fixed.
                Some(_) if narrow_or_floating(self, decl) => fixed(),
                Some(init) => self.scalar(f, init, env).or_else(fixed),
                None => None,
            };
        }
        if self.is_param(f, x) {
            return (!self.assigned(f, x)).then(|| atom(&key, x));
        }
        if self.defined_more_than_once(x) {
            return None; // which one a scope sees is not followed
        }
        if let Some((Some(v), _)) = self.prog.enumerators.get(x) {
            return self.scalar(f, *v, env);
        }
        if let Some(g) = self.prog.globals.get(x) {
            // Only a `const`/`constexpr` global of a wide integer type holds its
            // initializer (a non-const one may be assigned anywhere in the program).
            (is_const(self, g.decl) && !narrow_or_floating(self, g.decl)).then_some(())?;
            let init = (g.declarator.kind() == "init_declarator")
                .then(|| g.declarator.child_by_field_name("value"))
                .flatten()?;
            return self.scalar(f, init, env);
        }
        None
    }

    /// The declaration of local `x` in scope at `at` (the nearest one before it in the
    /// blocks around it, or a `for` initializer around it).
    fn local_declaration(&self, f: usize, at: Node<'t>, x: &str) -> Option<Node<'t>> {
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

    /// The value assigned to local `x` (declared by `decl`) last before `at`, when every
    /// change of `x` in function `f` is a plain `x = e;` statement of the block that
    /// declares `x` (straight-line code: `n = B * T * NH; grid = ceil_div(n, bs);`
    /// reassigned between two launches). Then the last such statement before the one
    /// holding `at` is the only one that reaches `at`, loops inside the block included;
    /// `Some(None)` when there is none (the declaration's initializer reaches `at`), `None`
    /// when `x` changes any other way.
    fn reaching_assignment(
        &self,
        f: usize,
        decl: Node<'t>,
        at: Node<'t>,
        x: &str,
    ) -> Option<Option<Node<'t>>> {
        let body = self.prog.funcs[f].body?;
        let block = decl.parent()?;
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
        let mut last: Option<Node> = None;
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
                && n.child_by_field_name("operator")
                    .is_some_and(|o| self.text(o) == "=");
            let stmt = n.parent().filter(|p| p.kind() == "expression_statement");
            let stmt = stmt.filter(|s| plain && s.parent().is_some_and(|b| b.id() == block.id()))?;
            if stmt.end_byte() <= at.start_byte() && last.is_none_or(|l| l.start_byte() < stmt.start_byte()) {
                last = Some(stmt);
            }
        }
        match last {
            Some(stmt) => Some(Some(stmt.named_child(0)?.child_by_field_name("right")?)),
            None => Some(None),
        }
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
            if declares_node_exact(decl, n) || self.plain_assignment_target(n) || self.read_only_use(n) {
                continue;
            }
            return false;
        }
        true
    }

    /// `n` is the whole left side of a plain `x = e` assignment.
    fn plain_assignment_target(&self, n: Node<'t>) -> bool {
        n.parent().is_some_and(|p| {
            p.kind() == "assignment_expression"
                && p.child_by_field_name("left").is_some_and(|l| l.id() == n.id())
                && p.child_by_field_name("operator")
                    .is_some_and(|o| self.text(o) == "=")
        })
    }

    /// Whether the expression `n` is only read where it stands (see
    /// [`Reader::only_read_besides`]).
    fn read_only_use(&self, mut n: Node<'t>) -> bool {
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
            "binary_expression" => {
                !(is("right")
                    && p.child_by_field_name("operator")
                        .is_some_and(|o| self.text(o) == ">>"))
            }
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
    /// `min`/`max`/`printf`, or to file functions of that name whose parameter there
    /// is no reference.
    fn by_value_argument(&self, list: Node<'t>, n: Node<'t>) -> bool {
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
            "min"
                | "max"
                | "std::min"
                | "std::max"
                | "printf"
                | "fprintf"
                | "dim3"
                | "cudaLaunchKernel"
                | "cudaLaunchCooperativeKernel"
                | "cudaLaunchKernelEx"
                // The runtime's memory calls take sizes and values by value.
                | "malloc"
                | "calloc"
                | "cudaMalloc"
                | "cudaMallocManaged"
                | "cudaMallocHost"
                | "cudaMemcpy"
                | "cudaMemcpyAsync"
                | "cudaMemset"
                | "cudaMemsetAsync"
                | "cudaMemcpyToSymbol"
                | "cudaMemcpyFromSymbol"
        ) {
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
        self.parameter_reads(&name, i, args.len())
    }

    /// Whether parameter `i` of every host function named `name` of the file that a call
    /// with `n` arguments may call only reads its argument: by value, or by `const`
    /// reference (`const dim3 &dims`) in a file without a `const_cast` (which may write
    /// through it). A kernel of the same name is not such a function.
    fn parameter_reads(&self, name: &str, i: usize, n: usize) -> bool {
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
            "pointer_expression"
                if n.child_by_field_name("operator")
                    .is_some_and(|o| self.text(o) == "&") =>
            {
                n.child_by_field_name("argument")
            }
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
    fn is_static(&self, decl: Node<'t>) -> bool {
        named_children(decl)
            .iter()
            .any(|c| c.kind() == "storage_class_specifier" && self.text(*c) == "static")
    }

    /// Whether parameter `x` of function `f` is a reference (`int &n`, `const int &n`).
    fn reference_parameter(&self, f: usize, x: &str) -> bool {
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
    fn unbound_reference(&self, f: usize, x: &str, env: &Env) -> bool {
        self.reference_parameter(f, x)
            && !(self.const_reference_parameter(f, x) && env.bindings.contains_key(x))
    }

    /// Whether parameter `x` of `f` is a `const` reference (`const dim3 &dims`) in a
    /// file that casts no `const` away.
    fn const_reference_parameter(&self, f: usize, x: &str) -> bool {
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
    fn unaliased_argument(&self, caller: usize, a: Node<'t>) -> bool {
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
    fn declared_in_a_scope_not_followed(&self, f: usize, at: Node<'t>, x: &str) -> bool {
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
    fn defined_more_than_once(&self, x: &str) -> bool {
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
    fn assigned(&self, f: usize, x: &str) -> bool {
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

    /// The three components of a `dim3` expression: `dim3(a, b)`, an integer, a `dim3`
    /// variable (`dim3 t(a, b)`, `dim3 t = {a, b}`, `dim3 t = dim3(a, b)`) or parameter.
    fn dim3(&self, f: usize, e: Node<'t>, env: &Env) -> [Val; 3] {
        let unknown = [None, None, None];
        if env.depth > 3 * MAX_DEPTH {
            return unknown;
        }
        match e.kind() {
            "parenthesized_expression" => match named_children(e).first() {
                Some(i) => self.dim3(f, *i, env),
                None => unknown,
            },
            "call_expression" | "initializer_list" | "compound_literal_expression"
                if self.is_dim3_constructor(e) =>
            {
                let list = if e.kind() == "initializer_list" {
                    Some(e)
                } else {
                    e.child_by_field_name("arguments")
                        .or_else(|| e.child_by_field_name("value"))
                };
                let parts: Vec<Node> = list
                    .map(named_children)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .collect();
                self.components(f, &parts, env)
            }
            "identifier" => {
                let x = self.text(e);
                let local = self.local_declaration(f, e, x);
                if local.is_none()
                    && (self.declared_in_a_scope_not_followed(f, e, x) || self.unbound_reference(f, x, env))
                {
                    return unknown;
                }
                if local.is_none() && env.bindings.contains_key(&format!("{x}.x")) {
                    if self.assigned(f, x) {
                        return unknown;
                    }
                    return ["x", "y", "z"].map(|c| env.bindings.get(&format!("{x}.{c}")).cloned().flatten());
                }
                if let Some(decl) = local
                    && is_dim3_declaration(self.prog, decl)
                {
                    return self.dim3_variable(f, decl, e, x, env);
                }
                let def = &self.prog.funcs[f];
                if let Some(p) = def
                    .params()
                    .into_iter()
                    .filter(|_| local.is_none())
                    .find(|p| param_name(self.prog, *p).as_deref() == Some(x))
                    && self.text(p).contains("dim3")
                {
                    if self.assigned(f, x) {
                        return unknown;
                    }
                    return ["x", "y", "z"]
                        .map(|c| Some(atom(&function_key(self.prog, f), &format!("{x}.{c}"))));
                }
                [self.scalar(f, e, env), Some(Expr::Int(1)), Some(Expr::Int(1))]
            }
            _ => [self.scalar(f, e, env), Some(Expr::Int(1)), Some(Expr::Int(1))],
        }
    }

    fn is_dim3_constructor(&self, e: Node<'t>) -> bool {
        match e.kind() {
            "initializer_list" => true,
            _ => e
                .child_by_field_name("function")
                .or_else(|| e.child_by_field_name("type"))
                .is_some_and(|t| self.text(t) == "dim3"),
        }
    }

    fn components(&self, f: usize, parts: &[Node<'t>], env: &Env) -> [Val; 3] {
        std::array::from_fn(|i| match parts.get(i) {
            Some(p) => self.scalar(f, *p, env),
            None => Some(Expr::Int(1)),
        })
    }

    /// A `dim3` local: its declaration's components, each replaced by the one
    /// assignment `t.x = e` made to it, if any; unknown when assigned as a whole or
    /// more than once.
    fn dim3_variable(&self, f: usize, decl: Node<'t>, at: Node<'t>, x: &str, env: &Env) -> [Val; 3] {
        let mut d = [Some(Expr::Int(1)), Some(Expr::Int(1)), Some(Expr::Int(1))];
        if let Some(declarator) = named_children(decl)
            .into_iter()
            .find(|c| declares_node(self.prog, *c, x))
        {
            match declarator.kind() {
                // `dim3 t(a, b);` read as a function declaration (C++'s vexing parse):
                // the arguments are names or numbers.
                "function_declarator" => {
                    let params = declarator
                        .child_by_field_name("parameters")
                        .map(named_children)
                        .unwrap_or_default();
                    for (i, p) in params.iter().take(3).enumerate() {
                        let t = self.text(*p).trim();
                        d[i] = match int_literal(t) {
                            Some(v) => Some(Expr::Int(v)),
                            None => self.name(f, *p, t, env),
                        };
                    }
                }
                "init_declarator" => {
                    if let Some(v) = declarator.child_by_field_name("value") {
                        let parts: Vec<Node> = match v.kind() {
                            "argument_list" | "initializer_list" => named_children(v),
                            _ => return self.dim3(f, v, env),
                        };
                        let parts: Vec<Node> = parts.into_iter().filter(|c| c.kind() != "comment").collect();
                        d = self.components(f, &parts, env);
                    }
                }
                _ => {}
            }
        }
        // Field assignments: `t.x = e;` as a statement of the declaration's block,
        // before `at`, the last one for each field. Any other change leaves the
        // components unknown: the whole variable's when it is assigned as a whole or
        // may change unseen (a reference, a by-reference argument), one field's when
        // that field is assigned any other way (`t.x *= 2`, under an `if`).
        let Some(body) = self.prog.funcs[f].body else {
            return [None, None, None];
        };
        // A `static` keeps the last call's value: no assignment is followed there.
        let storage_static = self.is_static(decl);
        // A lambda runs later than it is written: no assignment is followed into it.
        let in_lambda = in_lambda(at, body);
        let block = decl
            .parent()
            .filter(|b| b.kind() == "compound_statement" && !storage_static && !in_lambda);
        let mut last: [Option<usize>; 3] = [None; 3];
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() == "goto_statement" || (n.kind() == "identifier" && self.text(n) == "setjmp") {
                return [None, None, None]; // a jump back could bring a later assignment
            }
            if n.kind() != "identifier" || self.text(n) != x || declared_name(n) || self.read_only_use(n) {
                continue;
            }
            // `t.x = e` (`x`, `y` or `z`), else a change of the whole.
            let field = n.parent().filter(|p| {
                p.kind() == "field_expression"
                    && p.child_by_field_name("argument")
                        .is_some_and(|a| a.id() == n.id())
            });
            let Some((fe, i)) = field.and_then(|fe| {
                let name = self.text(fe.child_by_field_name("field")?);
                Some((fe, ["x", "y", "z"].iter().position(|c| *c == name)?))
            }) else {
                return [None, None, None];
            };
            let assignment = fe.parent().filter(|a| {
                a.kind() == "assignment_expression"
                    && a.child_by_field_name("left").is_some_and(|l| l.id() == fe.id())
                    && a.child_by_field_name("operator")
                        .is_some_and(|o| self.text(o) == "=")
            });
            let stmt = assignment
                .and_then(|a| a.parent())
                .filter(|st| st.kind() == "expression_statement")
                .filter(|st| block.is_some_and(|b| st.parent().is_some_and(|p| p.id() == b.id())));
            match (stmt, assignment.and_then(|a| a.child_by_field_name("right"))) {
                (Some(st), Some(v)) if st.end_byte() <= at.start_byte() => {
                    if last[i].is_none_or(|l| l < st.start_byte()) {
                        last[i] = Some(st.start_byte());
                        d[i] = self.scalar(f, v, env);
                    }
                }
                // After the use, in the declaration's own block: it cannot reach it.
                (Some(st), Some(_)) if st.start_byte() >= at.end_byte() => {}
                _ => {
                    last[i] = Some(usize::MAX);
                    d[i] = None;
                }
            }
        }
        d
    }

    /// `config.gridDim` of a `cudaLaunchConfig_t config` local: its one assignment.
    fn struct_field_dim3(&self, f: usize, cfg: Node<'t>, field: &str, at: Node<'t>, env: &Env) -> [Val; 3] {
        let unknown = [None, None, None];
        let name = self.text(cfg);
        let (Some(body), Some(decl)) = (self.prog.funcs[f].body, self.local_declaration(f, at, name)) else {
            return unknown;
        };
        let Some(block) = decl.parent().filter(|b| b.kind() == "compound_statement") else {
            return unknown;
        };
        // The last `cfg.field = v;` statement of the declaration's block before the
        // launch; any other change of the configuration (a field of the field, a
        // pointer or reference to it, a call that gets it) leaves it unknown.
        let mut value = None;
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            stack.extend(named_children(n));
            if n.kind() == "goto_statement" || n.kind() == "lambda_expression" {
                return unknown;
            }
            if n.kind() != "identifier" || self.text(n) != name || declared_name(n) {
                continue;
            }
            let Some(p) = n.parent() else { return unknown };
            // `&cfg` given to a launch, which only reads it.
            let launched = p.kind() == "pointer_expression"
                && p.parent()
                    .and_then(|l| l.parent())
                    .and_then(|c| c.child_by_field_name("function"))
                    .is_some_and(|c| self.text(c) == "cudaLaunchKernelEx");
            if launched {
                continue;
            }
            let assigned_field = (p.kind() == "field_expression")
                .then(|| {
                    let fe = p;
                    let fld = self.text(fe.child_by_field_name("field")?);
                    let a = fe.parent().filter(|a| {
                        a.kind() == "assignment_expression"
                            && a.child_by_field_name("left").is_some_and(|l| l.id() == fe.id())
                            && a.child_by_field_name("operator")
                                .is_some_and(|o| self.text(o) == "=")
                    })?;
                    Some((fld, a))
                })
                .flatten();
            match assigned_field {
                Some((fld, _)) if fld != field => {} // another field
                Some((_, a)) => {
                    let stmt = a.parent().filter(|st| {
                        st.kind() == "expression_statement"
                            && st.parent().is_some_and(|b| b.id() == block.id())
                    });
                    match stmt {
                        Some(st) if st.end_byte() <= at.start_byte() => {
                            if value.is_none_or(|(start, _)| start < st.start_byte()) {
                                value = a.child_by_field_name("right").map(|v| (st.start_byte(), v));
                            }
                        }
                        Some(st) if st.start_byte() >= at.end_byte() => {}
                        _ => return unknown,
                    }
                }
                None if self.read_only_use(n) => {}
                None => return unknown,
            }
        }
        match value {
            Some((_, v)) => self.dim3(f, v, env),
            None => unknown,
        }
    }

    /// Whether a launch configuration gets `cudaLaunchAttributeCooperative`.
    /// Read conservatively (a cooperative launch lets a grid sync order the blocks):
    /// the function makes this one `cudaLaunchKernelEx` call, names
    /// `cudaLaunchAttributeCooperative`, sets `.cooperative` to 1 or `true` and never to
    /// anything else.
    fn config_is_cooperative(&self, f: usize, _cfg: Node<'t>) -> bool {
        let Some(body) = self.prog.funcs[f].body else {
            return false;
        };
        let text: String = self.text(body).split_whitespace().collect();
        let sets: Vec<&str> = text
            .split(".cooperative=")
            .skip(1)
            .map(|rest| rest.split([';', ',', '}']).next().unwrap_or(""))
            .collect();
        text.matches("cudaLaunchKernelEx(").count() == 1
            && text.contains("cudaLaunchAttributeCooperative")
            && !sets.is_empty()
            && sets.iter().all(|v| matches!(*v, "1" | "true"))
    }
}

/// A call of a host function in the file.
struct Call<'t> {
    at: usize,
    caller: usize,
    args: Vec<Node<'t>>,
    /// Its template argument list (`run<128>(...)`).
    template_args: Option<Node<'t>>,
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

impl Context {
    /// The launch this context gives kernel `kernel` (whose scalar parameters are
    /// `scalars`, in the order of the kernel's parameter list `params`): constants pin,
    /// atoms that are a size or an argument stand for it, and equations and conditions
    /// whose atoms all stand for something are relations.
    pub fn launch(&self, params: &[String], scalars: &[(String, kpl::IntTy)], site: &Site) -> Launch {
        let mut l = Launch::default();
        // A condition `a == 512` (`case 512:` of a `switch (threads)`) makes the atom
        // that constant wherever it is used.
        let pinned: BTreeMap<String, i64> = self
            .conditions
            .iter()
            .flat_map(conjuncts)
            .filter_map(|c| match c {
                Expr::Binary(BinOp::Eq, a, b) => match (a.as_ref(), b.as_ref()) {
                    (Expr::Var(x), Expr::Int(v)) | (Expr::Int(v), Expr::Var(x)) if is_atom(x) => {
                        Some((x.clone(), *v))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let value = |v: &Expr| fold(&pin_atoms(v, &pinned));
        // Equations `lhs == rhs`, sizes first: an atom is best a size.
        let mut eqs: Vec<(Expr, Expr)> = Vec::new();
        for (d, dim) in [Dim::X, Dim::Y, Dim::Z].into_iter().enumerate() {
            if let Some(v) = &self.block[d] {
                eqs.push((Expr::Builtin(Builtin::Bdim(dim)), value(v)));
            }
        }
        for (d, dim) in [Dim::X, Dim::Y, Dim::Z].into_iter().enumerate() {
            if let Some(v) = &self.grid[d] {
                eqs.push((Expr::Builtin(Builtin::Gdim(dim)), value(v)));
            }
        }
        if let Some(args) = &self.args {
            for (p, a) in params.iter().zip(args) {
                let Some((_, ty)) = scalars.iter().find(|(s, _)| s == p) else {
                    continue;
                };
                if let Some(a) = a {
                    // A constant argument arrives converted to the parameter's type.
                    let a = match value(a) {
                        Expr::Int(v) => match i64::try_from(ty.convert(i128::from(v))) {
                            Ok(c) => Expr::Int(c),
                            Err(_) => continue,
                        },
                        a => a,
                    };
                    eqs.push((Expr::Var(p.clone()), a));
                }
            }
        }
        let mut stands: BTreeMap<String, Expr> = BTreeMap::new();
        let mut rest = Vec::new();
        for (lhs, rhs) in eqs {
            match (&lhs, &rhs) {
                (Expr::Builtin(b), Expr::Int(v)) => {
                    let v = u32::try_from(*v).ok().filter(|v| *v >= 1);
                    let max = if matches!(b, Builtin::Bdim(_)) {
                        1024
                    } else {
                        u32::MAX
                    };
                    match (b, v.filter(|v| *v <= max)) {
                        (Builtin::Bdim(d), Some(v)) => l.block[d.index()] = Some(v),
                        (Builtin::Gdim(d), Some(v)) => l.grid[d.index()] = Some(v),
                        _ => {}
                    }
                }
                (Expr::Var(p), Expr::Int(v)) => {
                    l.params.insert(p.clone(), *v);
                }
                (_, Expr::Var(a)) if is_atom(a) && !stands.contains_key(a) => {
                    stands.insert(a.clone(), lhs);
                }
                _ => rest.push((lhs, rhs)),
            }
        }
        let mut relate = |r: Expr| {
            if linear(&r) && !l.relations.contains(&r) {
                l.relations.push(r);
            }
        };
        for (lhs, rhs) in rest {
            if let Some(r) = substitute(&rhs, &stands) {
                let r = fold(&r);
                if r != lhs {
                    relate(Expr::bin(BinOp::Eq, lhs, r));
                }
            }
        }
        for c in &self.conditions {
            if let Some(r) = substitute(&pin_atoms(c, &pinned), &stands) {
                match fold(&r) {
                    Expr::Int(_) => {}
                    r => relate(r),
                }
            }
        }
        l.cooperative = self.cooperative;
        l.sites = vec![site.clone()];
        l.from(Origin::Host)
    }
}

// ---- helpers -------------------------------------------------------------------------

const ATOM: &str = "host`";

/// Whether `at` is inside a lambda of the function body `body` (a lambda runs later
/// than it is written).
fn in_lambda(at: Node, body: Node) -> bool {
    std::iter::successors(at.parent(), |n| n.parent())
        .take_while(|n| n.id() != body.id())
        .any(|n| n.kind() == "lambda_expression")
}

/// Whether a function body has a `goto`, or a `case`/`default` label that is not a
/// statement of its `switch`'s own block (Duff's device, `case 1: { case 2: ... }`).
fn has_jump_into_branches(body: Node) -> bool {
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        stack.extend(named_children(n));
        if n.kind() == "goto_statement" {
            return true;
        }
        if n.kind() == "case_statement" {
            let switch_block = n
                .parent()
                .filter(|b| b.kind() == "compound_statement")
                .and_then(|b| b.parent())
                .is_some_and(|s| s.kind() == "switch_statement");
            if !switch_block {
                return true;
            }
        }
    }
    false
}

/// A host function's name with its place: overloads have atoms of their own.
fn function_key(prog: &Program, f: usize) -> String {
    format!("{}@{}", prog.funcs[f].name, prog.funcs[f].node.start_byte())
}

/// Whether declaration `decl` declares `x` as a reference (`const int &x = n;`).
fn declares_reference(prog: &Program, decl: Node, x: &str) -> bool {
    named_children(decl).into_iter().any(|d| {
        declares_node(prog, d, x)
            && (d.kind() == "reference_declarator"
                || d.child_by_field_name("declarator")
                    .is_some_and(|i| i.kind() == "reference_declarator"))
    })
}

fn atom(function: &str, name: &str) -> Expr {
    Expr::Var(format!("{ATOM}{function}::{name}"))
}

fn is_atom(v: &str) -> bool {
    v.starts_with(ATOM)
}

/// Whether a relation multiplies, divides or shifts only by constants. Others
/// (`gdim.x == (n + bdim.x - 1) / bdim.x` with a symbolic block) are dropped, which only
/// allows more launches: nonlinear facts cost the solver far more than they give.
fn linear(e: &Expr) -> bool {
    match e {
        Expr::Binary(op, a, b) => {
            let nonlinear = matches!(op, BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr)
                && !matches!(**b, Expr::Int(_))
                && !(matches!(op, BinOp::Mul) && matches!(**a, Expr::Int(_)));
            !nonlinear && linear(a) && linear(b)
        }
        Expr::Unary(_, a) | Expr::Cast(_, a) => linear(a),
        _ => true,
    }
}

/// `e` with atoms replaced by what they stand for; `None` when one stands for nothing.
fn substitute(e: &Expr, stands: &BTreeMap<String, Expr>) -> Option<Expr> {
    Some(match e {
        Expr::Var(v) if is_atom(v) => stands.get(v)?.clone(),
        Expr::Var(_) => return None,
        Expr::Int(_) | Expr::Builtin(_) => e.clone(),
        Expr::Unary(op, a) => Expr::Unary(*op, Box::new(substitute(a, stands)?)),
        Expr::Binary(op, a, b) => Expr::bin(*op, substitute(a, stands)?, substitute(b, stands)?),
        Expr::Cast(t, a) => Expr::Cast(*t, Box::new(substitute(a, stands)?)),
        _ => return None,
    })
}

/// The conjuncts of `e` (`a && b && c`).
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            let mut out = conjuncts(a);
            out.extend(conjuncts(b));
            out
        }
        _ => vec![e],
    }
}

/// `e` with the atoms of `pinned` replaced by their constants.
fn pin_atoms(e: &Expr, pinned: &BTreeMap<String, i64>) -> Expr {
    match e {
        Expr::Var(v) => pinned.get(v).map_or_else(|| e.clone(), |c| Expr::Int(*c)),
        Expr::Unary(op, a) => Expr::Unary(*op, Box::new(pin_atoms(a, pinned))),
        Expr::Binary(op, a, b) => Expr::bin(*op, pin_atoms(a, pinned), pin_atoms(b, pinned)),
        Expr::Cast(t, a) => Expr::Cast(*t, Box::new(pin_atoms(a, pinned))),
        _ => e.clone(),
    }
}

/// Constant folding with C's integer semantics on unbounded integers.
fn fold(e: &Expr) -> Expr {
    let a = Arith::Unbounded;
    match e {
        Expr::Unary(op, x) => match fold(x) {
            Expr::Int(v) => a.unary(*op, v).map_or_else(|_| e.clone(), Expr::Int),
            x => Expr::Unary(*op, Box::new(x)),
        },
        Expr::Binary(op, x, y) => match (fold(x), fold(y)) {
            (Expr::Int(u), Expr::Int(v)) => a.binary(*op, u, v).map_or_else(|_| e.clone(), Expr::Int),
            (x, y) => Expr::bin(*op, x, y),
        },
        _ => e.clone(),
    }
}

/// Whether a cast to `ty` keeps an integer (launch sizes and counts are non-negative
/// and small, so a conversion between integer types does not change them).
fn integer_type(ty: &str) -> bool {
    let ty = ty.replace("const", "");
    let words: Vec<&str> = ty.split_whitespace().collect();
    !words.is_empty()
        && words.iter().all(|w| {
            matches!(
                *w,
                "int"
                    | "unsigned"
                    | "signed"
                    | "long"
                    | "short"
                    | "size_t"
                    | "uint"
                    | "uint32_t"
                    | "int32_t"
                    | "uint64_t"
                    | "int64_t"
                    | "std::size_t"
                    | "ptrdiff_t"
                    | "dim_t"
            )
        })
}

/// The arguments of a template argument list's text (`float, Tile<4, 8>, 16`).
fn split_template_args(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for ch in text.chars() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// `sizeof(T)` of the types whose size does not depend on the platform's choices that
/// CUDA leaves open (LP64 as nvcc on Linux).
fn size_of(ty: &str) -> Option<i64> {
    let ty = ty.trim();
    if ty.ends_with('*') {
        return Some(8);
    }
    Some(match ty {
        "char" | "unsigned char" | "signed char" | "bool" | "int8_t" | "uint8_t" => 1,
        "short" | "unsigned short" | "half" | "__half" | "__nv_bfloat16" | "int16_t" | "uint16_t" => 2,
        "int" | "unsigned" | "unsigned int" | "float" | "int32_t" | "uint32_t" | "half2" | "__half2" => 4,
        "long" | "unsigned long" | "long long" | "unsigned long long" | "double" | "size_t" | "int64_t"
        | "uint64_t" | "float2" | "int2" => 8,
        "float4" | "int4" | "double2" | "uint4" => 16,
        _ => return None,
    })
}

/// The function a call calls, by name: `k`, `a::k`, `k` of `k<32, float>` (its
/// template arguments are read by [`template_list`]).
fn callee_name(prog: &Program, fun: Node) -> Option<String> {
    match fun.kind() {
        "identifier" => Some(prog.text(fun).to_string()),
        "qualified_identifier" => Some(prog.text(fun).replace(' ', "")),
        "template_function" => Some(prog.text(fun.child_by_field_name("name")?).to_string()),
        _ => None,
    }
}

/// The template parameters of the templates around `n` (a host function template, a
/// class template's method).
pub fn host_template_parameters<'t>(prog: &Program<'t>, n: Node) -> std::collections::HashSet<&'t str> {
    let mut params = std::collections::HashSet::new();
    let mut up = n.parent();
    while let Some(n) = up {
        if n.kind() == "template_declaration"
            && let Some(list) = n.child_by_field_name("parameters")
        {
            for p in named_children(list) {
                let name = match p.kind() {
                    "type_parameter_declaration" | "variadic_type_parameter_declaration" => named_children(p)
                        .into_iter()
                        .find(|c| c.kind() == "type_identifier")
                        .map(|c| prog.text(c)),
                    // `int N`, `int N = 4`, `int... Ns` (its declarator is `... Ns`).
                    _ => p
                        .child_by_field_name("name")
                        .or_else(|| p.child_by_field_name("declarator"))
                        .map(|d| prog.text(d).trim_start_matches("...").trim()),
                };
                params.extend(name);
            }
        }
        up = n.parent();
    }
    params
}

/// Whether template arguments (of a launch) name a template parameter of the host
/// function template around them (`k<T, N><<<...>>>` inside `template <class T, int N>
/// void run()`): an instantiation the file makes that autosync cannot name.
pub fn mentions_host_template_parameter(prog: &Program, args: Node) -> bool {
    let params = host_template_parameters(prog, args);
    let mut stack = vec![args];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "identifier" | "type_identifier") && params.contains(prog.text(n)) {
            return true;
        }
        stack.extend(named_children(n));
    }
    false
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
fn template_list(fun: Node) -> Option<Node> {
    (fun.kind() == "template_function")
        .then(|| fun.child_by_field_name("arguments"))
        .flatten()
}

fn span(n: Option<Node>) -> Option<(usize, usize)> {
    n.map(|n| (n.start_byte(), n.end_byte()))
}

fn strip_address(e: Node) -> Node {
    if e.kind() == "pointer_expression"
        && let Some(a) = e.child_by_field_name("argument")
    {
        return a;
    }
    e
}

/// The name a parameter declaration declares.
fn param_name(prog: &Program, p: Node) -> Option<String> {
    let d = p.child_by_field_name("declarator")?;
    crate::program::declarator_name(d, prog.src)
}

/// Whether `decl` declares `x`.
/// Whether identifier `n` is the name a declaration declares (`int n = 3;`, `dim3 n;`,
/// `dim3 n(a, b);`, `int &n = m;`, `float n[4];`, `int a, n;`, a parameter).
fn declared_name(n: Node) -> bool {
    let Some(p) = n.parent() else { return false };
    let mut cursor = p.walk();
    let is_declarator = p
        .children_by_field_name("declarator", &mut cursor)
        .any(|d| d.id() == n.id());
    match p.kind() {
        "init_declarator"
        | "declaration"
        | "field_declaration"
        | "parameter_declaration"
        | "optional_parameter_declaration"
        | "pointer_declarator"
        | "array_declarator"
        | "function_declarator" => is_declarator,
        // `int &n = m;`: the name is the declarator's only named child.
        "reference_declarator" => named_children(p).first().is_some_and(|c| c.id() == n.id()),
        _ => false,
    }
}

fn declares(prog: &Program, decl: Node, x: &str) -> bool {
    named_children(decl)
        .into_iter()
        .any(|c| declares_node(prog, c, x))
}

/// Whether identifier `id` is the name a declarator of `decl` declares.
fn declares_node_exact(decl: Node, id: Node) -> bool {
    id.parent().is_some_and(|p| {
        p.child_by_field_name("declarator")
            .is_some_and(|d| d.id() == id.id())
            && decl.start_byte() <= p.start_byte()
            && p.end_byte() <= decl.end_byte()
    })
}

fn declares_node(prog: &Program, c: Node, x: &str) -> bool {
    match c.kind() {
        "identifier" => prog.text(c) == x,
        "init_declarator"
        | "function_declarator"
        | "array_declarator"
        | "pointer_declarator"
        | "reference_declarator" => c
            .child_by_field_name("declarator")
            .or_else(|| named_children(c).into_iter().next())
            .is_some_and(|d| declares_node(prog, d, x)),
        _ => false,
    }
}

fn is_dim3_declaration(prog: &Program, decl: Node) -> bool {
    decl.child_by_field_name("type")
        .is_some_and(|t| prog.text(t) == "dim3")
}

/// The key of local `x` declared by `decl` among an environment's bindings.
fn local_key(x: &str, decl: Node) -> String {
    format!("{x}@{}", decl.start_byte())
}

/// The initializer list of array `x` in a declaration or init declarator
/// (`int sizes[] = {32, 64};`), and the array's size when it is written.
fn table_list<'t>(prog: &Program, decl: Node<'t>, x: &str) -> Option<(Node<'t>, Option<Node<'t>>)> {
    let d = if decl.kind() == "init_declarator" {
        decl
    } else {
        named_children(decl)
            .into_iter()
            .find(|c| c.kind() == "init_declarator" && declares_node(prog, *c, x))?
    };
    let array = d.child_by_field_name("declarator")?;
    if array.kind() != "array_declarator" {
        return None;
    }
    let list = d
        .child_by_field_name("value")
        .filter(|v| v.kind() == "initializer_list")?;
    Some((list, array.child_by_field_name("size")))
}

/// How many declarators in the subtree `root` declare `x` (variables, parameters,
/// range-`for` variables).
fn declarations(prog: &Program, root: Node, x: &str) -> usize {
    let mut count = 0;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier"
            && prog.text(n) == x
            && n.parent()
                .and_then(|p| p.child_by_field_name("declarator"))
                .is_some_and(|d| d.id() == n.id())
        {
            count += 1;
        }
        stack.extend(named_children(n));
    }
    count
}

/// Whether every use of the name `x` in the subtree `root`, but its declaration, reads
/// an element (`x[i]` as a value) or takes its size: nothing writes the array, takes
/// its address or passes it on.
fn only_elements_read(prog: &Program, root: Node, x: &str) -> bool {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        stack.extend(named_children(n));
        if n.kind() != "identifier" || prog.text(n) != x {
            continue;
        }
        let Some(p) = n.parent() else {
            return false;
        };
        if p.child_by_field_name("declarator")
            .is_some_and(|d| d.id() == n.id())
        {
            continue; // its declaration (counted by `declarations`)
        }
        if p.kind() == "sizeof_expression" || p.parent().is_some_and(|g| g.kind() == "sizeof_expression") {
            continue;
        }
        let element = p.kind() == "subscript_expression"
            && p.child_by_field_name("argument")
                .is_some_and(|a| a.id() == n.id());
        if !element || !is_rvalue(prog, p) {
            return false;
        }
    }
    true
}

/// Whether expression `e` is only read where it stands: not assigned, incremented,
/// its address taken or read into (`>>` of a stream).
fn is_rvalue(prog: &Program, e: Node) -> bool {
    let mut e = e;
    while let Some(p) = e.parent() {
        if p.kind() != "parenthesized_expression" {
            let is = |field: &str| p.child_by_field_name(field).is_some_and(|c| c.id() == e.id());
            return match p.kind() {
                "assignment_expression" => !is("left"),
                "update_expression" => false,
                "pointer_expression" => p
                    .child_by_field_name("operator")
                    .is_some_and(|o| prog.text(o) == "*"),
                "binary_expression" => {
                    !(is("right")
                        && p.child_by_field_name("operator")
                            .is_some_and(|o| prog.text(o) == ">>"))
                }
                _ => true,
            };
        }
        e = p;
    }
    true
}

/// Whether a declaration has a `const` or `constexpr` qualifier.
fn is_const(r: &Reader, decl: Node) -> bool {
    named_children(decl)
        .into_iter()
        .any(|c| c.kind() == "type_qualifier" && matches!(r.text(c), "const" | "constexpr"))
}

/// Whether a declaration's type is an integer type of at least 32 bits (a table or a
/// copy of one holds its values unchanged; a narrower one would convert them).
fn wide_int(r: &Reader, decl: Node) -> bool {
    let Some(t) = decl.child_by_field_name("type") else {
        return false;
    };
    let t: String = r.text(t).split_whitespace().collect::<Vec<_>>().join(" ");
    matches!(
        t.trim_start_matches("std::"),
        "int"
            | "unsigned"
            | "unsigned int"
            | "signed"
            | "signed int"
            | "long"
            | "unsigned long"
            | "long int"
            | "long long"
            | "unsigned long long"
            | "size_t"
            | "int32_t"
            | "uint32_t"
            | "int64_t"
            | "uint64_t"
    )
}

/// Whether `decl` declares its variables with a type that converts an integer
/// initializer (narrower than `int`, `bool`, or floating point).
fn narrow_or_floating(r: &Reader, decl: Node) -> bool {
    let Some(t) = decl.child_by_field_name("type") else {
        return false;
    };
    let t: String = r.text(t).split_whitespace().collect::<Vec<_>>().join(" ");
    matches!(
        t.trim_start_matches("std::"),
        "char"
            | "signed char"
            | "unsigned char"
            | "short"
            | "short int"
            | "unsigned short"
            | "unsigned short int"
            | "int8_t"
            | "uint8_t"
            | "int16_t"
            | "uint16_t"
            | "bool"
            | "float"
            | "double"
            | "half"
            | "__half"
    )
}

/// The initializer of `x` in its declaration (`int n = e;`, `int n(e);`, `int n{e};`,
/// and `int m = 4, n = e;`: the declarator of `x`, not the first one).
fn initializer<'t>(prog: &Program, decl: Node<'t>, x: &str) -> Option<Node<'t>> {
    let d = named_children(decl)
        .into_iter()
        .find(|c| c.kind() == "init_declarator" && declares_node(prog, *c, x))?;
    let v = d.child_by_field_name("value")?;
    match v.kind() {
        "argument_list" | "initializer_list" => {
            let items = named_children(v);
            match items.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        }
        _ => Some(v),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use kpl::Launch;

    use crate::Options;

    /// Each kernel's name and launch.
    fn launches(src: &str, opts: &Options) -> Vec<(String, Launch)> {
        crate::translate(Path::new("host.cu"), src, opts)
            .expect("translates")
            .kernels
            .into_iter()
            .map(|l| (l.kernel.name, l.launch))
            .collect()
    }

    fn rel(l: &Launch) -> Vec<String> {
        l.relations.iter().map(kpl::syntax::print_expr).collect()
    }

    const KERNEL: &str = "__global__ void k(int *a, int n) { a[threadIdx.x] = n; }\n";

    #[test]
    fn constants_macros_and_ceil_div_pin_sizes_and_parameters() {
        let src = format!(
            "{KERNEL}#define N 4096
template <class T> T ceil_div(T a, T b) {{ return (a + b - 1) / b; }}
void run(int *d) {{ const int bs = 128; int grid = ceil_div(N, bs); k<<<grid, bs>>>(d, N); }}"
        );
        let ls = launches(&src, &Options::default());
        assert_eq!(ls.len(), 1);
        let (name, l) = &ls[0];
        assert_eq!(name, "k");
        assert_eq!(l.block, [Some(128), Some(1), Some(1)]);
        assert_eq!(l.grid, [Some(32), Some(1), Some(1)]);
        assert_eq!(l.params.get("n"), Some(&4096));
        assert_eq!(l.sites.len(), 1);
        assert_eq!(l.sites[0].line, 4);
    }

    #[test]
    fn a_static_constant_of_a_struct_template_is_evaluated_with_its_arguments() {
        // `Pack<E>::count` through typedefs, `sizeof` of a template parameter read as an
        // expression, and of a CUDA type; a narrow member and a non-const one are not
        // constants, nor is a variable that shares a type's name.
        let src = format!(
            "{KERNEL}typedef unsigned short bf;
template <class E> struct Pack {{ static constexpr const int count = sizeof(int4) / sizeof(E);
  static const short narrow = 300; static int counter; E v[count]; }};
typedef Pack<bf> pk;
using pf = Pack<float>;
void run(int *d) {{ k<<<pk::count, pf::count>>>(d, 1); k<<<pk::narrow, 32>>>(d, 2); k<<<pk::counter, 32>>>(d, 3);
  int int4 = 3; k<<<sizeof(int4), 32>>>(d, 4); }}"
        );
        let ls = launches(&src, &Options::default());
        assert_eq!(ls.len(), 4);
        assert_eq!(ls[0].1.grid, [Some(8), Some(1), Some(1)]);
        assert_eq!(ls[0].1.block, [Some(4), Some(1), Some(1)]);
        assert_eq!(ls[1].1.grid[0], None);
        assert_eq!(ls[2].1.grid[0], None);
        assert_eq!(ls[3].1.grid[0], None);
    }

    #[test]
    fn each_declarator_of_a_declaration_has_its_own_initializer() {
        // `int n = 64, bs = 128;`: `bs` is 128, not the first declarator's 64; a
        // declarator without an initializer is no value at all.
        let src = format!(
            "{KERNEL}void run(int *d) {{ int n = 64, bs = 128; int m, g = 3; k<<<g, bs>>>(d, n); k<<<1, bs>>>(d, m); }}"
        );
        let ls = launches(&src, &Options::default());
        assert_eq!(ls.len(), 2);
        assert_eq!(ls[0].1.block, [Some(128), Some(1), Some(1)]);
        assert_eq!(ls[0].1.grid, [Some(3), Some(1), Some(1)]);
        assert_eq!(ls[0].1.params.get("n"), Some(&64));
        assert_eq!(ls[1].1.params.get("n"), None);
    }

    #[test]
    fn a_local_reassigned_in_straight_line_code_has_its_last_value() {
        let src = format!(
            "{KERNEL}void run(int *d) {{
  int total = 4096;
  int blocks = total / 128;
  k<<<blocks, 128>>>(d, total);
  total = 512;
  blocks = total / 128;
  k<<<blocks, 128>>>(d, total);
}}"
        );
        let ls = launches(&src, &Options::default());
        assert_eq!(ls.len(), 2);
        assert_eq!(ls[0].1.grid, [Some(32), Some(1), Some(1)]);
        assert_eq!(ls[0].1.params.get("n"), Some(&4096));
        assert_eq!(ls[1].1.grid, [Some(4), Some(1), Some(1)]);
        assert_eq!(ls[1].1.params.get("n"), Some(&512));
        // Assigned in a branch or a loop, or incremented: unknown.
        for change in [
            "if (*d) total = 512;",
            "for (;;) { total = 512; break; }",
            "total += 1;",
            "total++;",
        ] {
            let src = format!(
                "{KERNEL}void run(int *d) {{ int total = 4096; {change} k<<<total / 128, 128>>>(d, total); }}"
            );
            let (_, l) = &launches(&src, &Options::default())[0];
            assert_eq!(l.grid[0], None, "{change}");
            assert_eq!(l.params.get("n"), None, "{change}");
        }
        // An assignment after the launch does not reach it, even when a loop holds it.
        let src = format!(
            "{KERNEL}void run(int *d) {{ int total = 64; total = 256; for (int i = 0; i < 2; i++) {{ k<<<1, total>>>(d, 0); }} total = 1024; }}"
        );
        let (_, l) = &launches(&src, &Options::default())[0];
        assert_eq!(l.block[0], Some(256));
    }

    #[test]
    fn a_narrow_type_converts_its_initializer() {
        // 288 in an `unsigned char` is 32: not the literal's value (a fixed unknown).
        let src = format!(
            "{KERNEL}void run(int *d) {{ unsigned char bs = 288; short n = 70000; k<<<1, bs>>>(d, n); }}"
        );
        let (_, l) = &launches(&src, &Options::default())[0];
        assert_eq!(l.block, [None, Some(1), Some(1)]);
        assert_eq!(l.params.get("n"), None);
    }

    #[test]
    fn unknown_but_fixed_values_become_relations() {
        let src = format!(
            "{KERNEL}void run(int *d, int bs, int n) {{
  dim3 threads(bs, bs);
  assert(bs % 32 == 0);
  k<<<(n + 255) / 256, threads>>>(d, n);
}}"
        );
        let (_, l) = &launches(&src, &Options::default())[0];
        assert_eq!(l.block, [None, None, Some(1)]);
        assert_eq!(
            rel(l),
            vec!["bdim.y == bdim", "gdim == (n + 255) / 256", "bdim % 32 == 0"]
        );
    }

    #[test]
    fn each_caller_context_is_a_launch_and_dead_branches_are_checked_for_what_holds_there() {
        let src = format!(
            "{KERNEL}void run(int *d, int bs) {{
  if (bs == 16) {{ k<<<1, 16>>>(d, 0); }} else {{ k<<<1, bs>>>(d, bs); }}
}}
int main() {{ int *d; run(d, 32); run(d, 64); }}"
        );
        let ls = launches(&src, &Options::default());
        let names: Vec<&str> = ls.iter().map(|(n, _)| n.as_str()).collect();
        // The then-branch launch is made by no caller: it is checked for itself (16
        // threads); the else-branch launch once per caller.
        assert_eq!(names, vec!["k#1", "k#2", "k#3"]);
        assert_eq!(ls[0].1.block[0], Some(16));
        assert_eq!(ls[0].1.params.get("n"), Some(&0));
        assert_eq!(ls[1].1.block[0], Some(32));
        assert_eq!(ls[1].1.params.get("n"), Some(&32));
        assert_eq!(ls[2].1.block[0], Some(64));
    }

    #[test]
    fn a_launch_made_in_no_caller_context_keeps_its_condition() {
        let src = format!(
            "{KERNEL}void run(int *d, int bs) {{
  dim3 t(bs);
  if (bs == 16) k<<<1, t>>>(d, 1);
}}
int main() {{ int *d; run(d, 32); run(d, 64); }}"
        );
        let (_, l) = &launches(&src, &Options::default())[0];
        assert_eq!(l.block[0], Some(16));
        assert!(rel(l).is_empty());
    }

    #[test]
    fn a_size_taken_from_a_table_is_one_context_per_entry() {
        let src = format!(
            "{KERNEL}void run(int *d, int bs) {{ k<<<(4096 + bs - 1) / bs, bs>>>(d, 4096); }}
int main() {{
  int *d;
  int sizes[] = {{32, 64, 32, 128}};
  for (int j = 0; j < 4; j++) {{ int block_size = sizes[j]; run(d, block_size); }}
}}"
        );
        let ls = launches(&src, &Options::default());
        let blocks: Vec<_> = ls.iter().map(|(_, l)| (l.block[0], l.grid[0])).collect();
        // Each distinct entry once.
        assert_eq!(
            blocks,
            vec![(Some(32), Some(128)), (Some(64), Some(64)), (Some(128), Some(32))]
        );
    }

    #[test]
    fn a_table_in_the_launching_function_or_a_const_global_forks_it_too() {
        let src = format!(
            "{KERNEL}const int SIZES[] = {{256, 512}};
void run(int *d) {{
  int threads[2] = {{16, 8}};
  for (int a = 0; a < 2; a++) {{
    for (int b = 0; b < 2; b++) {{
      int t = threads[a];
      int w = SIZES[b];
      int g = w / t;
      k<<<g, t>>>(d, w);
    }}
  }}
}}"
        );
        let ls = launches(&src, &Options::default());
        let got: Vec<_> = ls
            .iter()
            .map(|(_, l)| (l.block[0], l.grid[0], l.params.get("n").copied()))
            .collect();
        assert_eq!(got.len(), 4);
        for want in [
            (Some(16), Some(16), Some(256)),
            (Some(16), Some(32), Some(512)),
            (Some(8), Some(32), Some(256)),
            (Some(8), Some(64), Some(512)),
        ] {
            assert!(got.contains(&want), "{want:?} in {got:?}");
        }
    }

    #[test]
    fn a_table_that_is_written_or_not_constant_is_no_choice() {
        for body in [
            "int sizes[] = {32, 64}; sizes[1] = 96; int bs = sizes[i];",
            "int sizes[] = {32, n}; int bs = sizes[i];",
            "int sizes[] = {32, 64}; int bs = sizes[i]; bs += 32;",
            "int *sizes = 0; int bs = sizes[i];",
        ] {
            let src = format!("{KERNEL}void run(int *d, int n, int i) {{ {body} k<<<1, bs>>>(d, 1); }}");
            let ls = launches(&src, &Options::default());
            assert_eq!(ls.len(), 1, "{body}");
            assert_eq!(ls[0].1.block[0], None, "{body}");
        }
    }

    #[test]
    fn reassigned_or_address_taken_values_are_unknown() {
        let src = format!(
            "{KERNEL}void run(int *d) {{
  int bs = 64; bs *= 2;
  int n = 10; void *p = &n;
  k<<<1, bs>>>(d, n);
}}"
        );
        let (_, l) = &launches(&src, &Options::default())[0];
        assert_eq!(l.block, [None, Some(1), Some(1)]);
        assert!(l.params.is_empty());
        assert!(l.relations.is_empty());
    }

    #[test]
    fn values_that_may_change_unseen_are_unknown() {
        // A reference parameter, a reference bound to it, `std::swap`, a `dim3 &`
        // out-parameter: none is a plain assignment, each may change the value.
        let src = format!(
            "{KERNEL}void widen(int &n);
void shape(dim3 &b) {{ b = dim3(512); }}
void run(int *d) {{
  int a = 64; widen(a);
  int b = 64; int &r = b; r = 7;
  int c = 64, e = 1; std::swap(c, e);
  dim3 t(64); shape(t);
  k<<<1, a>>>(d, 1); k<<<1, b>>>(d, 2); k<<<1, c>>>(d, 3); k<<<1, t>>>(d, 4);
}}"
        );
        for (_, l) in launches(&src, &Options::default()) {
            assert_eq!(l.block[0], None, "{l}");
        }
        // Only read: a `const` reference, a by-value call, the runtime's allocation.
        let src = format!(
            "{KERNEL}int show(const int &n);
void run(int *d) {{
  int a = 64; show(a); cudaMalloc(&d, a * 4);
  k<<<1, a>>>(d, 1);
}}"
        );
        assert_eq!(launches(&src, &Options::default())[0].1.block[0], Some(64));
    }

    #[test]
    fn a_dim3_field_is_followed_only_when_assigned_in_the_declarations_block() {
        let launch = |body: &str| {
            let src = format!("{KERNEL}void run(int *d, int c) {{ {body} }}");
            launches(&src, &Options::default())[0].1.block[0]
        };
        assert_eq!(
            launch("dim3 t(64); t.x = 32; k<<<1, t>>>(d, 1); t.x = 8;"),
            Some(32)
        );
        assert_eq!(launch("dim3 t(64); if (c) t.x = 32; k<<<1, t>>>(d, 1);"), None);
        assert_eq!(launch("dim3 t(64); t.x *= 2; k<<<1, t>>>(d, 1);"), None);
        assert_eq!(launch("static dim3 t(64); k<<<1, t>>>(d, 1); t.x = 8;"), None);
    }

    #[test]
    fn template_arguments_are_evaluated_in_each_context() {
        // A const local, a host template's parameter bound by its call, and a
        // `switch` case that pins the block size.
        let src = "template <int N> __global__ void k(int *a) { a[threadIdx.x % N] = 1; }
template <int BS> void run(int *d) { k<BS><<<1, BS>>>(d); }
void pick(int *d, int threads) {
  switch (threads) {
  case 256: k<256><<<1, threads>>>(d); break;
  case 64: case 32: k<64><<<1, threads>>>(d); break;
  default: break;
  }
}
int main() { int *d; const int w = 16; k<w><<<1, w>>>(d); run<128>(d); pick(d, 100); }";
        let got: Vec<(String, Option<u32>, Vec<String>)> = launches(src, &Options::default())
            .into_iter()
            .map(|(name, l)| (name, l.block[0], rel(&l)))
            .collect();
        let want = |n: &str, b: Option<u32>, r: &[&str]| {
            (n.to_string(), b, r.iter().map(|s| s.to_string()).collect())
        };
        assert_eq!(
            got,
            vec![
                want("k<128>", Some(128), &[]),
                want("k<256>", Some(256), &[]),
                want("k<64>", None, &["bdim == 32 || bdim == 64"]),
                want("k<16>", Some(16), &[]),
            ]
        );
    }

    #[test]
    fn a_parameter_the_host_function_assigns_loses_its_callers_value() {
        let src = format!(
            "{KERNEL}void run(int *d, int bs, dim3 g) {{ bs = bs * 2; g.x = 3; k<<<g, bs>>>(d, 1); }}
int main() {{ int *d; run(d, 32, dim3(5)); }}"
        );
        let (_, l) = &launches(&src, &Options::default())[0];
        assert_eq!(l.block[0], None);
        assert_eq!(l.grid[0], None);
        assert_eq!(l.params.get("n"), Some(&1));
    }

    #[test]
    fn a_constant_argument_is_pinned_as_the_parameter_receives_it() {
        let src = "__global__ void k(int *a, unsigned char n) { a[threadIdx.x] = n; }
void run(int *d) { k<<<1, 32>>>(d, 300); }";
        let (_, l) = &launches(src, &Options::default())[0];
        assert_eq!(l.params.get("n"), Some(&44));
    }

    #[test]
    fn flags_and_header_win_and_symbolic_turns_reading_off() {
        let src = format!("{KERNEL}void run(int *d) {{ k<<<4, 128>>>(d, 7); }}");
        let given = Options {
            launch: Launch::fixed([64, 1, 1], [1, 1, 1]),
            ..Options::default()
        };
        let (_, l) = &launches(&src, &given)[0];
        assert_eq!(l.block_dim(), Some([64, 1, 1]));
        assert!(l.params.is_empty());
        let off = Options {
            symbolic_launch: true,
            ..Options::default()
        };
        assert!(launches(&src, &off)[0].1.is_symbolic());
    }

    #[test]
    fn a_kernel_named_outside_a_launch_is_checked_for_every_launch() {
        let src = format!(
            "{KERNEL}typedef void (*kern)(int *, int);
void run(int *d) {{ k<<<1, 32>>>(d, 1); kern f = k; f<<<4, 64>>>(d, 2); }}"
        );
        let ls = crate::translate(Path::new("host.cu"), &src, &Options::default())
            .expect("translates")
            .kernels;
        assert!(ls[0].launch.is_symbolic());
        assert!(
            ls[0]
                .notes
                .iter()
                .any(|n| n.contains("other than by launching it"))
        );
    }

    #[test]
    fn calls_through_a_forwarding_wrapper_are_caller_contexts() {
        let src = format!(
            "{KERNEL}template <class F, class... A> float bench(int reps, F f, A&&... a) {{
  for (int i = 0; i < reps; i++) f(std::forward<A>(a)...);
  return 0.0f;
}}
void run(int *d, int bs) {{ k<<<1, bs>>>(d, bs); }}
int main() {{ int *d; run(d, 64); bench(10, run, d, 64); }}"
        );
        let ls = launches(&src, &Options::default());
        assert_eq!(ls.len(), 1);
        assert_eq!(ls[0].1.block[0], Some(64));
        let other = src.replace("bench(10, run, d, 64)", "bench(10, run, d, 128)");
        assert_eq!(launches(&other, &Options::default()).len(), 2);
        // A local handed to the wrapper is read when the wrapped function takes it by
        // value, and may change when it takes it by reference.
        let local = src.replace("bench(10, run, d, 64)", "int bs = 32; bench(10, run, d, bs)");
        let sizes: Vec<Option<u32>> = launches(&local, &Options::default())
            .iter()
            .map(|(_, l)| l.block[0])
            .collect();
        assert_eq!(sizes, vec![Some(64), Some(32)]);
        let by_ref = local.replace("void run(int *d, int bs)", "void run(int *d, int &bs)");
        assert!(
            launches(&by_ref, &Options::default())
                .iter()
                .all(|(_, l)| l.block[0].is_none())
        );
    }

    #[test]
    fn launch_bounds_and_launch_apis() {
        let src = "__global__ void __launch_bounds__(256) b(int *a) { a[threadIdx.x] = 0; }
__global__ void c(int *a) { a[threadIdx.x] = 0; }
__global__ void e(int *a, int n) { a[threadIdx.x] = n; }
void run(int *d) {
  void *args[] = {&d};
  cudaLaunchCooperativeKernel((void *)c, dim3(8), dim3(32, 2), args);
  cudaLaunchConfig_t cfg;
  cfg.gridDim = dim3(3);
  cfg.blockDim = 96;
  cudaLaunchKernelEx(&cfg, e, d, 5);
}";
        let ls = launches(src, &Options::default());
        assert_eq!(ls[0].1.max_threads, Some(256));
        assert!(ls[0].1.sites.is_empty());
        assert!(ls[1].1.cooperative);
        assert_eq!(ls[1].1.block_dim(), Some([32, 2, 1]));
        assert_eq!(ls[1].1.grid_dim(), Some([8, 1, 1]));
        assert_eq!(ls[2].1.block_dim(), Some([96, 1, 1]));
        assert_eq!(ls[2].1.grid_dim(), Some([3, 1, 1]));
        assert_eq!(ls[2].1.params.get("n"), Some(&5));
    }
}
