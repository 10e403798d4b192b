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
use std::collections::HashMap;

use kpl::Expr;
use kpl::launch::Site;
use tree_sitter::Node;

use crate::preprocess::int_literal;
use crate::program::{Program, named_children};

mod callers;
mod deduce;
mod dim3;
mod eval;
mod launch_layer;
mod launch_site;
mod scope;
mod syntax;
#[cfg(test)]
mod tests;

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
    /// Where the launch starts, as a byte offset (text order).
    pub start: usize,
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
    /// called as `run<128>`), or as C++ deduces them from the kernel's arguments when
    /// none is written (`k<<<g, b>>>(d_floats)` of `template <class T> k(T *)`, in
    /// `deduce`); `None` for a kernel that is not a template, or when one is not known
    /// here.
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
    /// without template arguments that are not deduced either, its name.
    pub fn instance(&self, c: &Context) -> Option<String> {
        match (&self.template_list, &c.template_args) {
            (_, Some(args)) => Some(instance_name(&self.kernel, args)),
            (None, None) => Some(self.kernel.clone()),
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

/// Whether the kernel name `id` is the callee of a call (a launch, or a host overload's
/// call) or the kernel argument of a launch API or of a function-attribute query
/// (`cudaFuncSetAttribute`, `cudaOccupancy...`), which launches nothing.
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
                // A call without `<<<...>>>` cannot launch a kernel (CUDA rejects an
                // unconfigured call of a `__global__` function): it calls a host
                // overload of the same name (`void k(float *x, int n, int block)` that
                // launches `k<<<...>>>`), so the kernel's name does not escape there.
                return is_callee;
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
#[derive(Clone, Default, PartialEq)]
struct Env {
    bindings: HashMap<String, Val>,
    depth: usize,
    /// Template type parameters and the type texts they stand for, while a struct's
    /// static constant is evaluated ([`Reader::scoped_constant`]).
    types: Vec<(String, String)>,
    /// Host template value parameters bound to a function of the file
    /// (`launch<matmul_naive>(...)` for `template <fn_ptr F>`), with the function's name.
    functions: Vec<(String, String)>,
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
