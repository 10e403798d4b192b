//! Parsing the preprocessed text with tree-sitter-cuda, and an index of what the
//! lowering looks up by name: functions (kernels, device functions, methods), structs
//! and their template specializations, typedefs, file-scope variables, enumerators,
//! explicit template instantiations and kernel launches.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Parser, Tree};

use super::error::{CudaError, ErrorKind};
use super::source_map::SourceMap;

/// Deepest syntax tree the front end accepts.
const MAX_DEPTH: usize = 400;

/// Parses the preprocessed text.
pub fn parse_tree(map: &SourceMap) -> Result<Tree, CudaError> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_cuda::LANGUAGE.into())
        .map_err(|e| {
            CudaError::new(
                ErrorKind::Io,
                Default::default(),
                (0, 0),
                "",
                format!("tree-sitter: {e}"),
            )
        })?;
    parser.parse(&map.text, None).ok_or_else(|| {
        let path = map.files.first().map(|f| f.path.clone()).unwrap_or_default();
        CudaError::new(
            ErrorKind::Syntax,
            path,
            (1, 1),
            "",
            "the parser gave up on this file",
        )
    })
}

/// The text of a node.
pub fn text<'a>(n: Node, src: &'a str) -> &'a str {
    src.get(n.byte_range()).unwrap_or("")
}

/// Children of a node (named and anonymous).
pub fn children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.children(&mut c).collect()
}

pub fn named_children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

/// A function definition (or a declaration without body) the lowering can call.
#[derive(Clone, Debug)]
pub struct FuncDef<'t> {
    /// `function_definition`, or a `declaration`/`field_declaration` without body.
    pub node: Node<'t>,
    pub name: String,
    /// The `template_parameter_list` of a function template.
    pub template: Option<Node<'t>>,
    /// Template arguments of an explicit specialization `template<> f<int>(...)`.
    pub spec_args: Option<Node<'t>>,
    /// The struct this is a method of.
    pub class: Option<usize>,
    /// The namespace it is declared in (`a::b`; empty for the global namespace).
    pub namespace: String,
    pub global: bool,
    pub device: bool,
    pub host: bool,
    /// The `function_declarator` (or `operator_cast`).
    pub declarator: Node<'t>,
    pub body: Option<Node<'t>>,
    /// The target type of a conversion operator `operator T*()`.
    pub conversion: Option<Node<'t>>,
}

impl<'t> FuncDef<'t> {
    /// The parameter declarations.
    pub fn params(&self) -> Vec<Node<'t>> {
        let list = self.declarator.child_by_field_name("parameters").or_else(|| {
            // operator_cast: the function declarator is nested in its declarator.
            let mut n = self.declarator.child_by_field_name("declarator");
            while let Some(d) = n {
                if let Some(p) = d.child_by_field_name("parameters") {
                    return Some(p);
                }
                n = d.child_by_field_name("declarator");
            }
            None
        });
        list.map(|l| {
            named_children(l)
                .into_iter()
                .filter(|p| {
                    matches!(
                        p.kind(),
                        "parameter_declaration" | "optional_parameter_declaration"
                    )
                })
                .collect()
        })
        .unwrap_or_default()
    }

    /// `f(...)` with a `...` parameter.
    pub fn variadic(&self) -> bool {
        self.declarator
            .child_by_field_name("parameters")
            .is_some_and(|l| named_children(l).iter().any(|p| p.kind() == "variadic_parameter"))
    }
}

#[derive(Clone, Debug)]
pub struct StructDef<'t> {
    pub node: Node<'t>,
    pub name: String,
    pub template: Option<Node<'t>>,
    /// `template<> struct S<double>`: the specialization's arguments.
    pub spec_args: Option<Node<'t>>,
    /// Indices of its methods in [`Program::funcs`].
    pub methods: Vec<usize>,
}

/// A file-scope variable.
#[derive(Clone, Debug)]
pub struct GlobalDef<'t> {
    /// The `declaration`.
    pub decl: Node<'t>,
    /// Its declarator for this variable.
    pub declarator: Node<'t>,
}

/// A `typedef` or `using` alias.
#[derive(Clone, Debug)]
pub struct AliasDef<'t> {
    /// The type specifier.
    pub ty: Node<'t>,
    /// The declarator around the alias name (`typedef float *fp;`), if any.
    pub declarator: Option<Node<'t>>,
}

pub struct Program<'t> {
    pub src: &'t str,
    pub map: &'t SourceMap,
    pub funcs: Vec<FuncDef<'t>>,
    pub funcs_by_name: HashMap<String, Vec<usize>>,
    pub structs: Vec<StructDef<'t>>,
    pub structs_by_name: HashMap<String, Vec<usize>>,
    pub aliases: HashMap<String, AliasDef<'t>>,
    /// Named enums (`enum Mode {...}`), by name: their `enum_specifier`.
    pub enums: HashMap<String, Node<'t>>,
    pub globals: HashMap<String, GlobalDef<'t>>,
    /// Enumerators, with their value expression (or `None`: previous + 1) and the
    /// enumerator before them.
    pub enumerators: HashMap<String, (Option<Node<'t>>, Option<String>)>,
    /// `template __global__ void k<int, 256>(...);`
    pub instantiations: Vec<Node<'t>>,
    /// `k<<<grid, block>>>(...)` calls.
    pub launches: Vec<Node<'t>>,
    /// The file's namespaces (`a`, `a::b`): a call qualified by one of them names the
    /// file's own functions, never a CUDA builtin.
    pub namespaces: HashSet<String>,
    /// `namespace cg = cooperative_groups;`: alias → the namespace it names.
    pub namespace_aliases: HashMap<String, String>,
    /// `using namespace a::b;`: the names of `a::b` are visible unqualified, file-wide
    /// (`None`) or inside the function body whose byte range is given.
    pub using_namespaces: Vec<(String, Option<std::ops::Range<usize>>)>,
    /// The namespace being indexed.
    ns: Vec<String>,
    /// Host-side items (a host function, a class, top-level text) with a syntax error the
    /// front end read past: a launch in them may have been misread, so a kernel they name
    /// is checked for every launch ([`crate::host::host_code`]).
    pub damaged: Vec<Node<'t>>,
    /// Notes for the report on every kernel of the file (syntax errors read past).
    pub notes: Vec<String>,
}

impl<'t> Program<'t> {
    /// Indexes the tree; fails on a syntax error that touches device code.
    pub fn new(tree: &'t Tree, map: &'t SourceMap) -> Result<Program<'t>, CudaError> {
        let mut p = Program {
            src: &map.text,
            map,
            funcs: Vec::new(),
            funcs_by_name: HashMap::new(),
            structs: Vec::new(),
            structs_by_name: HashMap::new(),
            aliases: HashMap::new(),
            globals: HashMap::new(),
            enumerators: HashMap::new(),
            enums: HashMap::new(),
            instantiations: Vec::new(),
            launches: Vec::new(),
            namespaces: HashSet::new(),
            namespace_aliases: HashMap::new(),
            using_namespaces: Vec::new(),
            ns: Vec::new(),
            damaged: Vec::new(),
            notes: Vec::new(),
        };
        p.check_syntax(tree.root_node())?;
        p.check_depth(tree)?;
        p.check_device_qualifiers(tree.root_node())?;
        p.items(tree.root_node(), None);
        p.find_local_types();
        p.find_launches(tree.root_node());
        p.check_launched_kernels_read()?;
        p.check_uncertain_device_code(tree.root_node())?;
        p.find_namespace_uses(tree.root_node());
        Ok(p)
    }

    pub fn text(&self, n: Node) -> &'t str {
        text(n, self.src)
    }

    /// A diagnostic at a node.
    pub fn error(&self, kind: ErrorKind, n: Node, message: impl Into<String>) -> CudaError {
        let (file, line, col) = self.map.describe(n.start_byte());
        CudaError::new(kind, file, (line, col), self.text(n), message)
    }

    /// The lowering walks the tree recursively: refuse absurdly deep nesting rather than
    /// overflow the stack.
    fn check_depth(&self, tree: &'t Tree) -> Result<(), CudaError> {
        let mut cursor = tree.walk();
        let mut depth = 0usize;
        loop {
            if depth > MAX_DEPTH {
                let n = cursor.node();
                return Err(self
                    .error(
                        ErrorKind::Unsupported,
                        n,
                        "unsupported: code nested more than 400 levels deep",
                    )
                    .with_help("simplify the expression"));
            }
            if cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return Ok(());
                }
                depth -= 1;
            }
        }
    }

    /// A function that names a thread (`threadIdx`), a barrier or shared memory runs on
    /// the device: when it is written without `__global__` or `__device__`, a macro that
    /// autosync did not read (`KERNEL(k)(int *a)` with `#define KERNEL(n) __global__
    /// void n`) stands for its qualifiers, and the kernel would silently not be checked.
    fn check_device_qualifiers(&self, root: Node<'t>) -> Result<(), CudaError> {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.kind() != "function_definition" {
                stack.extend(named_children(n));
                continue;
            }
            let (Some(body), t) = (n.child_by_field_name("body"), self.text(n)) else {
                continue;
            };
            let head = &t[..body.start_byte() - n.start_byte()];
            let body_text = self.text(body);
            let named = ["threadIdx", "__syncthreads", "__shared__"]
                .into_iter()
                .find(|k| is_word_in(body_text, k));
            if let Some(k) = named
                && !["__global__", "__device__"].iter().any(|q| head.contains(q))
                && !body_text.contains("__device__")
            {
                return Err(self
                    .error(
                        ErrorKind::Unsupported,
                        n,
                        format!(
                            "unsupported: a function that uses `{k}` without `__global__` or `__device__` \
                             (a macro autosync did not read?)"
                        ),
                    )
                    .with_help("pass the folder of the header that defines its qualifiers with -I"));
            }
        }
        Ok(())
    }

    /// With parts of the file not read, a launch of a kernel that no text autosync read
    /// defines is an error: the kernel is in what was not read, and "nothing checked"
    /// must not look like a pass.
    fn check_launched_kernels_read(&self) -> Result<(), CudaError> {
        let Some(source) = self.map.unread.first() else {
            return Ok(());
        };
        for &call in &self.launches {
            let Some(f) = call.child_by_field_name("function") else {
                continue;
            };
            let name = last_name(f, self.src);
            let defined = self
                .funcs_by_name
                .get(&name)
                .is_some_and(|fs| fs.iter().any(|&i| self.funcs[i].global));
            if !defined {
                return Err(self
                    .error(
                        ErrorKind::Unsupported,
                        call,
                        format!("unsupported: `{name}` is launched here but defined nowhere autosync read (in {source}?)"),
                    )
                    .with_help("pass the folder of the missing header with -I"));
            }
        }
        Ok(())
    }

    /// Device code (a kernel, a device function, a `__shared__` or `__device__`
    /// variable) inside an `#if` group whose condition depends on a macro of what was not
    /// read: the real build may take another group, so the file is not checked.
    fn check_uncertain_device_code(&self, root: Node<'t>) -> Result<(), CudaError> {
        if self.map.uncertain.is_empty() {
            return Ok(());
        }
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            let device = match n.kind() {
                "function_definition" => {
                    let t = self.text(n);
                    let head = &t[..t.find('{').unwrap_or(t.len())];
                    head.contains("__global__") || head.contains("__device__")
                }
                "declaration" => {
                    let t = self.text(n);
                    t.contains("__shared__") || t.contains("__device__")
                }
                _ => {
                    stack.extend(named_children(n));
                    continue;
                }
            };
            if !device {
                continue;
            }
            let (a, b) = (
                self.map.loc(n.start_byte()),
                self.map.loc(n.end_byte().saturating_sub(1)),
            );
            // The item's text in the group's file (to its end when it leaves that file).
            let hit = self.map.uncertain.iter().find(|(f, r)| {
                let start = if a.file == *f { a.offset } else { 0 };
                let end = if b.file == *f { b.offset } else { usize::MAX };
                (a.file == *f || b.file == *f) && r.start <= end && start < r.end
            });
            if let Some((f, r)) = hit {
                let file = &self.map.files[*f];
                let (line, _) = file.line_col(r.start);
                return Err(self
                    .error(
                        ErrorKind::Unsupported,
                        n,
                        format!(
                            "unsupported: device code under the conditional at {}:{line}, which tests a macro \
                             that {} may define",
                            file.path.display(),
                            self.map.unread.first().map_or("a part not read", String::as_str)
                        ),
                    )
                    .with_help("pass the folder of the missing header with -I (or the build's -D flags)"));
            }
        }
        Ok(())
    }

    /// A syntax error that touches device code fails the file. The others are in code
    /// the kernels do not run (host functions, classes without device code, a
    /// platform's API the front end does not know: `CUDART_CB`, Vulkan, EGL): a note,
    /// and the items they are in are recorded as [`Program::damaged`].
    fn check_syntax(&mut self, root: Node<'t>) -> Result<(), CudaError> {
        if !root.has_error() {
            return Ok(());
        }
        let mut errors: Vec<Node> = Vec::new();
        find_errors(root, &mut |n| errors.push(n));
        // With parts of the file not read, a macro of them may be what broke the parse
        // (`KERNEL void k(...)` with `#define KERNEL __global__`): every error counts.
        let complete = self.map.is_complete();
        if let Some(&n) = errors.iter().find(|&&n| !complete || self.error_matters(n)) {
            return Err(self.syntax_error(n));
        }
        if let Some(&first) = errors.first() {
            let e = self.syntax_error(first);
            self.notes.push(format!(
                "{}:{}:{}: {} ({} in all): read past, as no device code is in it; a launch written \
                 there is not read, so a kernel named there is checked for every launch",
                e.file.display(),
                e.line,
                e.col,
                e.message,
                errors.len()
            ));
        }
        self.damaged = errors.into_iter().map(top_level_item).collect();
        Ok(())
    }

    /// The diagnostic for a syntax error node (a missing token is located right after
    /// the text before it).
    fn syntax_error(&self, n: Node) -> CudaError {
        let message = if n.is_missing() {
            format!("syntax error: missing `{}`", n.kind())
        } else {
            let t = self.text(n).trim();
            match t.chars().next() {
                Some(_) => format!("syntax error: unexpected `{}`", super::error::shorten(t)),
                None => "syntax error".to_string(),
            }
        };
        let mut e = self.error(ErrorKind::Syntax, n, message);
        if n.is_missing() {
            let before = self.src.get(..n.start_byte()).unwrap_or("").trim_end().len();
            let (file, line, col) = self.map.describe(before);
            (e.file, e.line, e.col) = (file, line, col);
        }
        e.construct.clear();
        e.with_help("fix the syntax (does the file compile with nvcc?); autosync reads CUDA C++ as nvcc does")
    }

    /// Errors inside host functions do not concern the kernels. Elsewhere, an error
    /// matters when the top-level item it is in (a declaration, a class, the error text
    /// itself) has device code: the parser may have swallowed a kernel, a device
    /// function or a `__shared__`/`__device__` variable.
    fn error_matters(&self, n: Node) -> bool {
        let mut cur = n.parent();
        while let Some(p) = cur {
            if p.kind() == "function_definition" {
                let t = self.text(p);
                let head = t.split('{').next().unwrap_or("");
                return is_device_text(head);
            }
            cur = p.parent();
        }
        // From the end of the function before: a stray `}` that ended a kernel early
        // leaves the rest of its body as top-level text before the error.
        let item = top_level_item(n);
        let mut start = item.start_byte();
        let mut prev = item.prev_named_sibling();
        while let Some(p) = prev {
            if p.kind() == "function_definition" {
                start = p.end_byte();
                break;
            }
            start = p.start_byte();
            prev = p.prev_named_sibling();
        }
        is_device_text(self.src.get(start..item.end_byte()).unwrap_or(""))
    }

    fn push_func(&mut self, f: FuncDef<'t>) -> usize {
        let i = self.funcs.len();
        self.funcs_by_name.entry(f.name.clone()).or_default().push(i);
        self.funcs.push(f);
        i
    }

    /// Indexes the items of a translation unit, namespace or struct body.
    fn items(&mut self, n: Node<'t>, class: Option<usize>) {
        for c in named_children(n) {
            self.item(c, None, class);
        }
    }

    fn item(&mut self, n: Node<'t>, template: Option<Node<'t>>, class: Option<usize>) {
        match n.kind() {
            "namespace_definition" | "linkage_specification" => {
                let named = (n.kind() == "namespace_definition")
                    .then(|| n.child_by_field_name("name"))
                    .flatten()
                    .map(|x| self.text(x).to_string());
                let depth = self.ns.len();
                if let Some(name) = named {
                    // `namespace a::b {` opens both.
                    self.ns.extend(name.split("::").map(|s| s.trim().to_string()));
                    self.namespaces.insert(self.ns.join("::"));
                    self.namespaces.extend(self.ns.iter().cloned());
                }
                if let Some(b) = n.child_by_field_name("body") {
                    if b.kind() == "declaration_list" || b.kind() == "field_declaration_list" {
                        self.items(b, class);
                    } else {
                        self.item(b, template, class);
                    }
                }
                self.ns.truncate(depth);
            }
            "declaration_list" => self.items(n, class),
            "template_declaration" => {
                let params = n.child_by_field_name("parameters");
                for c in named_children(n) {
                    if Some(c) != params {
                        self.item(c, params, class);
                    }
                }
            }
            "function_definition" => self.function(n, n, template, class),
            "declaration" | "field_declaration" => {
                if let Some(t) = n.child_by_field_name("type") {
                    self.type_specifier(t, template);
                }
                let mut c = n.walk();
                let declarators: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
                for d in declarators {
                    if innermost_function_declarator(d).is_some() {
                        self.function(n, n, template, class);
                    } else if class.is_none()
                        && let Some(name) = declarator_name(d, self.src)
                    {
                        self.globals.insert(
                            name,
                            GlobalDef {
                                decl: n,
                                declarator: d,
                            },
                        );
                    }
                }
            }
            "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier" => {
                self.type_specifier(n, template)
            }
            "type_definition" => {
                if let Some(t) = n.child_by_field_name("type") {
                    self.type_specifier(t, None);
                    let mut c = n.walk();
                    let ds: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
                    for d in ds {
                        if let Some(name) = declarator_name(d, self.src) {
                            let declarator = (d.kind() != "type_identifier").then_some(d);
                            self.aliases.insert(name, AliasDef { ty: t, declarator });
                        }
                    }
                }
            }
            "alias_declaration" => {
                if let (Some(name), Some(t)) = (n.child_by_field_name("name"), n.child_by_field_name("type"))
                {
                    let ty = t.child_by_field_name("type").unwrap_or(t);
                    let declarator = t.child_by_field_name("declarator");
                    self.aliases
                        .insert(self.text(name).to_string(), AliasDef { ty, declarator });
                }
            }
            "template_instantiation" => self.instantiations.push(n),
            _ => {}
        }
    }

    /// Structs and enums defined inside a type specifier.
    fn type_specifier(&mut self, t: Node<'t>, template: Option<Node<'t>>) {
        match t.kind() {
            "struct_specifier" | "class_specifier" | "union_specifier" => {
                let Some(body) = t.child_by_field_name("body") else {
                    return;
                };
                let (name, spec_args) = match t.child_by_field_name("name") {
                    Some(n) if n.kind() == "template_type" => (
                        n.child_by_field_name("name")
                            .map(|x| self.text(x).to_string())
                            .unwrap_or_default(),
                        n.child_by_field_name("arguments"),
                    ),
                    Some(n) => (self.text(n).to_string(), None),
                    None => (format!("<anonymous@{}>", t.start_byte()), None),
                };
                let idx = self.structs.len();
                self.structs.push(StructDef {
                    node: t,
                    name: name.clone(),
                    template,
                    spec_args,
                    methods: Vec::new(),
                });
                self.structs_by_name.entry(name).or_default().push(idx);
                for c in named_children(body) {
                    match c.kind() {
                        "function_definition" => self.function(c, c, None, Some(idx)),
                        "template_declaration" => {
                            let params = c.child_by_field_name("parameters");
                            for d in named_children(c) {
                                if d.kind() == "function_definition" {
                                    self.function(d, d, params, Some(idx));
                                }
                            }
                        }
                        "field_declaration" | "declaration" => {
                            if let Some(ft) = c.child_by_field_name("type") {
                                self.type_specifier(ft, None);
                            }
                            // A method declared here and defined elsewhere (out of line,
                            // or in another file): its parameters say how it takes them.
                            if c.child_by_field_name("declarator")
                                .is_some_and(|d| innermost_function_declarator(d).is_some())
                            {
                                self.function(c, c, None, Some(idx));
                            }
                        }
                        "enum_specifier" | "struct_specifier" | "class_specifier" | "union_specifier" => {
                            self.type_specifier(c, None)
                        }
                        _ => {}
                    }
                }
            }
            "enum_specifier" => {
                if let (Some(name), Some(_)) = (t.child_by_field_name("name"), t.child_by_field_name("body"))
                {
                    self.enums.insert(self.text(name).to_string(), t);
                }
                if let Some(body) = t.child_by_field_name("body") {
                    let mut prev: Option<String> = None;
                    for e in named_children(body) {
                        if e.kind() != "enumerator" {
                            continue;
                        }
                        if let Some(name) = e.child_by_field_name("name") {
                            let name = self.text(name).to_string();
                            self.enumerators
                                .insert(name.clone(), (e.child_by_field_name("value"), prev.clone()));
                            prev = Some(name);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn function(&mut self, n: Node<'t>, decl: Node<'t>, template: Option<Node<'t>>, class: Option<usize>) {
        let Some(d) = n.child_by_field_name("declarator") else {
            return;
        };
        let conversion = (d.kind() == "operator_cast")
            .then(|| d.child_by_field_name("type"))
            .flatten();
        let fdecl = if d.kind() == "operator_cast" {
            Some(d)
        } else {
            innermost_function_declarator(d)
        };
        let Some(fdecl) = fdecl else {
            return;
        };
        let (name, spec_args) = if d.kind() == "operator_cast" {
            ("operator cast".to_string(), None)
        } else {
            let Some(nd) = fdecl.child_by_field_name("declarator") else {
                return;
            };
            match nd.kind() {
                "template_function" => (
                    nd.child_by_field_name("name")
                        .map(|x| self.text(x).to_string())
                        .unwrap_or_default(),
                    nd.child_by_field_name("arguments"),
                ),
                "qualified_identifier" => (last_name(nd, self.src), None),
                _ => (self.text(nd).to_string(), None),
            }
        };
        let head = self.src.get(decl.start_byte()..fdecl.start_byte()).unwrap_or("");
        let has = |kw: &str| {
            head.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == kw)
        };
        // `void Acc::add(float x) {...}`: a method of `Acc` defined out of line.
        let class = class.or_else(|| {
            let nd = fdecl.child_by_field_name("declarator")?;
            if nd.kind() != "qualified_identifier" {
                return None;
            }
            let scope = nd.child_by_field_name("scope")?;
            let owner = self.text(scope).split('<').next().unwrap_or("").trim();
            self.structs_by_name.get(owner)?.first().copied()
        });
        let f = FuncDef {
            node: n,
            name,
            template,
            spec_args,
            class,
            namespace: self.ns.join("::"),
            global: has("__global__"),
            device: has("__device__") || class.is_some(),
            host: has("__host__") || !(has("__global__") || has("__device__")),
            declarator: fdecl,
            body: n.child_by_field_name("body"),
            conversion,
        };
        let i = self.push_func(f);
        if let Some(c) = class {
            self.structs[c].methods.push(i);
        }
    }

    /// Structs, classes and unions defined inside function bodies (`struct { int lo, hi; }
    /// r;`, a local `typedef struct {...} Range;`), indexed like file-scope ones.
    fn find_local_types(&mut self) {
        let mut stack: Vec<Node<'t>> = self.funcs.iter().filter_map(|f| f.body).collect();
        while let Some(n) = stack.pop() {
            if matches!(
                n.kind(),
                "struct_specifier" | "class_specifier" | "union_specifier"
            ) && n.child_by_field_name("body").is_some()
                && !self.structs.iter().any(|s| s.node == n)
            {
                self.type_specifier(n, None);
            }
            stack.extend(named_children(n));
        }
    }

    /// `namespace cg = cooperative_groups;` and `using namespace a::b;`, at file scope
    /// or inside functions.
    fn find_namespace_uses(&mut self, root: Node<'t>) {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "namespace_alias_definition" => {
                    let mut names = named_children(n)
                        .into_iter()
                        .map(|x| self.text(x).trim().to_string());
                    if let (Some(alias), Some(target)) = (names.next(), names.next()) {
                        self.namespace_aliases
                            .insert(alias, target.trim_start_matches("::").to_string());
                    }
                }
                "using_declaration" if self.text(n).contains("namespace") => {
                    if let Some(last) = named_children(n).last() {
                        let name = self.text(*last).trim().trim_start_matches("::").to_string();
                        let mut scope = n.parent();
                        while let Some(p) = scope.filter(|p| p.kind() != "function_definition") {
                            scope = p.parent();
                        }
                        let body = scope.map(|f| f.byte_range());
                        self.using_namespaces.push((name, body));
                    }
                }
                _ => stack.extend(named_children(n)),
            }
        }
    }

    /// Whether every declaration of the type alias `name` in the file (`typedef T name;`
    /// or `using name = T;`, at any scope: in functions, in namespaces) names the same
    /// type text: [`Program::aliases`] keeps one per name, which is then the right one
    /// wherever the name is used.
    pub fn alias_is_unique(&self, name: &str) -> bool {
        let src = self.src;
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        let squash = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut seen: Option<String> = None;
        for (at, _) in src.match_indices(name) {
            let before = &src[..at];
            let rest = &src[at + name.len()..];
            if before.ends_with(ident) || rest.starts_with(ident) {
                continue;
            }
            let after = rest.trim_start();
            let statement = &before[before.rfind([';', '{', '}']).map_or(0, |i| i + 1)..];
            let aliased = if after.starts_with('=') && before.trim_end().ends_with("using") {
                after[1..].split(';').next().map(squash)
            } else if after.starts_with(';') {
                let words = statement.split(|c: char| !ident(c));
                let typedef = words.clone().any(|w| w == "typedef");
                statement
                    .split_once("typedef")
                    .filter(|_| typedef)
                    .map(|(_, t)| squash(t))
            } else {
                None
            };
            match (aliased, &seen) {
                (None, _) => {}
                (Some(t), None) => seen = Some(t),
                (Some(t), Some(s)) if t == *s => {}
                _ => return false,
            }
        }
        true
    }

    /// The namespace a qualifier names (`cg` → `cooperative_groups`, through the file's
    /// aliases; `::a` → `a`).
    pub fn resolve_namespace(&self, qualifier: &str) -> String {
        let q = qualifier.trim().trim_start_matches("::");
        let (first, rest) = q.split_once("::").unwrap_or((q, ""));
        let first = self.namespace_aliases.get(first).map_or(first, String::as_str);
        if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}::{rest}")
        }
    }

    fn find_launches(&mut self, n: Node<'t>) {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            if n.kind() == "call_expression"
                && named_children(n).iter().any(|c| c.kind() == "kernel_call_syntax")
            {
                self.launches.push(n);
            }
            stack.extend(named_children(n));
        }
    }

    /// The definitions (with a body, if any has one) of a free function or method name.
    pub fn functions(&self, name: &str, class: Option<usize>) -> Vec<usize> {
        let all: Vec<usize> = self
            .funcs_by_name
            .get(name)
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|&i| self.funcs[i].class == class)
                    .collect()
            })
            .unwrap_or_default();
        let defined: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&i| self.funcs[i].body.is_some())
            .collect();
        if defined.is_empty() { all } else { defined }
    }
}

/// Whether `w` occurs in `src` as a whole identifier.
pub fn is_word_in(src: &str, w: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    src.match_indices(w).any(|(i, _)| {
        let before = src[..i].chars().next_back().is_some_and(ident);
        let after = src[i + w.len()..].chars().next().is_some_and(ident);
        !before && !after
    })
}

/// Text that declares or looks like device code (the rest of a kernel's body that a
/// stray `}` cut off names its thread).
fn is_device_text(t: &str) -> bool {
    [
        "__global__",
        "__device__",
        "__shared__",
        "threadIdx",
        "blockIdx",
        "__syncthreads",
    ]
    .iter()
    .any(|k| t.contains(k))
}

/// The item of the translation unit (or of a namespace or `extern "C"` block) that `n`
/// is in: `n` itself when it is one.
fn top_level_item(n: Node) -> Node {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if matches!(p.kind(), "translation_unit" | "declaration_list") {
            break;
        }
        cur = p;
    }
    cur
}

fn find_errors<'t>(n: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    if n.is_error() || n.is_missing() {
        f(n);
        return;
    }
    if !n.has_error() {
        return;
    }
    for c in children(n) {
        find_errors(c, f);
    }
}

/// The `function_declarator` inside a declarator, if it declares a function (not a
/// pointer to one).
pub fn innermost_function_declarator(d: Node) -> Option<Node> {
    let mut cur = Some(d);
    while let Some(n) = cur {
        match n.kind() {
            "function_declarator" => {
                let inner = n.child_by_field_name("declarator")?;
                return (inner.kind() != "parenthesized_declarator").then_some(n);
            }
            "pointer_declarator" | "reference_declarator" | "init_declarator" | "attributed_declarator" => {
                cur = n
                    .child_by_field_name("declarator")
                    .or_else(|| n.named_child(n.named_child_count().checked_sub(1)?));
            }
            _ => return None,
        }
    }
    None
}

/// The name a declarator declares.
pub fn declarator_name(d: Node, src: &str) -> Option<String> {
    let mut cur = Some(d);
    while let Some(n) = cur {
        match n.kind() {
            "identifier" | "field_identifier" | "type_identifier" => return Some(text(n, src).to_string()),
            "qualified_identifier" => return Some(last_name(n, src)),
            "operator_name" | "destructor_name" => return Some(text(n, src).to_string()),
            "template_function" => return n.child_by_field_name("name").map(|x| text(x, src).to_string()),
            _ => {
                cur = n.child_by_field_name("declarator").or_else(|| {
                    named_children(n)
                        .into_iter()
                        .find(|c| c.kind().ends_with("declarator") || c.kind().ends_with("identifier"))
                });
            }
        }
    }
    None
}

/// The last component of `a::b::c`.
pub fn last_name(n: Node, src: &str) -> String {
    let mut cur = n;
    while cur.kind() == "qualified_identifier" {
        match cur.child_by_field_name("name") {
            Some(x) => cur = x,
            None => break,
        }
    }
    if (cur.kind() == "template_function" || cur.kind() == "template_type")
        && let Some(x) = cur.child_by_field_name("name")
    {
        return text(x, src).to_string();
    }
    text(cur, src).to_string()
}
