//! Template argument deduction for a launch that gives no template arguments: C++
//! deduces them from the kernel's arguments, and so does the reader, where the types
//! are written in the host code.
//!
//! `matmul_backward_bias_kernel8<<<grid, block>>>(dbias_buffer, dout, B, T, OC,
//! std::bool_constant<true>{})` of `template <typename OutFloat, bool Atomic>
//! __global__ void matmul_backward_bias_kernel8(OutFloat *dbias, ...,
//! std::bool_constant<Atomic>)` launches `matmul_backward_bias_kernel8<float, true>`
//! when `dbias_buffer` is declared `float *`. Each kernel parameter whose type names a
//! template parameter is matched, token by token, against the type of its argument:
//! a local's or a parameter's declared type, a cast, `&x`, a literal, or a temporary
//! `T{}`/`T()` (whose own template arguments are evaluated like a launch's). A
//! template parameter no argument pins, or pinned two different ways, leaves the
//! launch's template arguments unknown: the open instance covers it, as before.
//!
//! Deviation from C++ (sound for the verifier, which reads no qualifier): qualifiers
//! are not deduced (`T *` against `const float *` gives `float`, not `const float`).

use std::collections::HashMap;

use tree_sitter::Node;

use crate::preprocess::int_literal;
use crate::program::named_children;

use super::syntax::param_name;
use super::{Env, Reader, TemplateArg, host_template_parameters};

/// A type's text as tokens, without the qualifiers deduction ignores.
type Tokens = Vec<String>;

impl<'t> Reader<'_, 't> {
    /// The kernel a launch without template arguments names, when it is the file's one
    /// kernel template of that name: C++ deduces its template arguments.
    pub(super) fn deducible_kernel(&self, name: &str) -> Option<usize> {
        let mut found = self
            .prog
            .funcs
            .iter()
            .enumerate()
            .filter(|(_, f)| f.name == name && f.global && f.body.is_some());
        let (i, f) = found.next()?;
        (found.next().is_none() && f.template.is_some() && f.spec_args.is_none()).then_some(i)
    }

    /// The template arguments C++ deduces for kernel `k` launched from host function
    /// `host` with arguments `args`, in context `env`: one per template parameter up to
    /// the last one deduced (later ones keep their defaults), or `None` when one is not
    /// deduced and has no default, or is deduced two different ways.
    pub(super) fn deduced_template_args(
        &self,
        host: usize,
        k: usize,
        args: &[Node<'t>],
        env: &Env,
    ) -> Option<Vec<TemplateArg>> {
        let def = &self.prog.funcs[k];
        let tparams = template_parameters(self, def.template?)?;
        // A launch in a lambda sees its captures (`[q = d]`), which the reader does
        // not follow.
        let body = self.prog.funcs[host].body?;
        if args.first().is_some_and(|a| super::syntax::in_lambda(*a, body)) {
            return None;
        }
        let names: Vec<&str> = tparams.iter().map(|p| p.name.as_str()).collect();
        let params = def.params();
        if params.len() < args.len() {
            return None;
        }
        let mut bound: HashMap<String, Tokens> = HashMap::new();
        for (p, a) in params.iter().zip(args) {
            let pattern = param_type(self, *p)?;
            if !pattern.iter().any(|t| names.contains(&t.as_str())) {
                continue;
            }
            let actual = self.argument_type(host, *a, env)?;
            if !unify(&pattern, &actual, &names, &mut bound) {
                return None;
            }
        }
        let last = tparams.iter().rposition(|p| bound.contains_key(&p.name))?;
        tparams[..=last]
            .iter()
            .map(|p| {
                let tokens = bound.get(&p.name)?;
                if p.is_type {
                    Some(TemplateArg::Type(join(tokens)))
                } else {
                    value_argument(tokens)
                }
            })
            .collect()
    }

    /// The type of host expression `e` in function `f`, as tokens: what deduction
    /// matches a kernel parameter's type against. `None` when it is not written in the
    /// host code (`auto`, a call's result, a member).
    fn argument_type(&self, f: usize, e: Node<'t>, env: &Env) -> Option<Tokens> {
        match e.kind() {
            "parenthesized_expression" => self.argument_type(f, *named_children(e).first()?, env),
            "identifier" => {
                let x = self.text(e);
                let (ty, declarator) = match self.local_declaration(f, e, x) {
                    Some(decl) => (
                        decl.child_by_field_name("type")?,
                        named_children(decl)
                            .into_iter()
                            .find(|d| d.kind().ends_with("declarator") && self.declarator_is(*d, x))?,
                    ),
                    None if self.declared_in_a_scope_not_followed(f, e, x) => return None,
                    None => match self.prog.funcs[f]
                        .params()
                        .into_iter()
                        .find(|p| param_name(self.prog, *p).as_deref() == Some(x))
                    {
                        Some(p) => (
                            p.child_by_field_name("type")?,
                            p.child_by_field_name("declarator")?,
                        ),
                        None if self.defined_more_than_once(x) => return None,
                        None => {
                            let g = self.prog.globals.get(x)?;
                            (g.decl.child_by_field_name("type")?, g.declarator)
                        }
                    },
                };
                with_pointers(self.written_type(f, ty, env)?, Some(declarator))
            }
            "cast_expression" => {
                let d = e.child_by_field_name("type")?;
                let t = self.written_type(f, d.child_by_field_name("type")?, env)?;
                with_pointers(t, d.child_by_field_name("declarator"))
            }
            "pointer_expression" if self.text(e).starts_with('&') => {
                let mut t = self.argument_type(f, e.child_by_field_name("argument")?, env)?;
                t.push("*".to_string());
                Some(t)
            }
            "compound_literal_expression" => self.written_type(f, e.child_by_field_name("type")?, env),
            // `std::integral_constant<int, 4>()`: a temporary of a class template.
            "call_expression"
                if e.child_by_field_name("arguments")
                    .is_some_and(|a| named_children(a).is_empty()) =>
            {
                let fun = e.child_by_field_name("function")?;
                (fun.kind() == "qualified_identifier" || fun.kind() == "template_function")
                    .then(|| self.written_type(f, fun, env))
                    .flatten()
            }
            "true" | "false" => Some(vec!["bool".to_string()]),
            "number_literal" => Some(vec![literal_type(self.text(e))?.to_string()]),
            _ => None,
        }
    }

    /// The types host function `f` defines in its body (`using T = float;`, a local
    /// `struct`): the front end, which reads types at namespace scope, does not see them.
    fn local_types(&self, f: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack: Vec<Node<'t>> = self.prog.funcs[f].body.into_iter().collect();
        while let Some(n) = stack.pop() {
            let name = match n.kind() {
                "type_definition" => n.child_by_field_name("declarator"),
                "alias_declaration" => n.child_by_field_name("name"),
                "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier"
                    if n.child_by_field_name("body").is_some() =>
                {
                    n.child_by_field_name("name")
                }
                _ => None,
            };
            out.extend(name.and_then(|d| crate::program::declarator_name(d, self.prog.src)));
            stack.extend(named_children(n));
        }
        out
    }

    /// Whether declarator `d` declares `x` (`*p`, `p = e`, `p[4]`).
    fn declarator_is(&self, d: Node<'t>, x: &str) -> bool {
        crate::program::declarator_name(d, self.prog.src).as_deref() == Some(x)
    }

    /// A type as written in host function `f`, as tokens: through the file's plain
    /// typedefs, its template arguments evaluated in `env` (`std::bool_constant<kAtomic>` with `constexpr bool kAtomic =
    /// true` is `std::bool_constant<true>`), the host template's type parameters
    /// replaced by what they stand for. `None` when it is `auto`, or names a template
    /// parameter of the host code that is not bound.
    fn written_type(&self, f: usize, ty: Node<'t>, env: &Env) -> Option<Tokens> {
        let text = self.text(ty);
        let mut lists = Vec::new();
        let mut stack = vec![ty];
        while let Some(n) = stack.pop() {
            if n.kind() == "template_argument_list" {
                lists.push(n);
            } else {
                stack.extend(named_children(n));
            }
        }
        // Only the outermost list is evaluated (nested ones are written types).
        let written = match lists.as_slice() {
            [] => text.to_string(),
            [list] if list.end_byte() == ty.end_byte() => {
                let args = self.template_args(f, *list, env)?;
                let shown: Vec<String> = args.iter().map(ToString::to_string).collect();
                let head = &self.prog.src[ty.start_byte()..list.start_byte()];
                format!("{head}<{}>", shown.join(","))
            }
            _ => return None,
        };
        // Through the file's typedefs, as C++ compares types (`real *` and `1.0f` agree
        // on `T` with `typedef float real`).
        let written = self.resolve_type(&written, env);
        let host_params = host_template_parameters(self.prog, ty);
        let local = self.local_types(f);
        let mut out = Vec::new();
        for t in tokens(&written) {
            if t == "auto" || t == "decltype" || local.contains(&t) {
                return None;
            }
            match env.types.iter().find(|(p, _)| *p == t) {
                Some((_, u)) => out.extend(tokens(u)),
                None if host_params.contains(t.as_str()) => return None,
                None => out.push(t),
            }
        }
        self.means_the_same_at_namespace_scope(f, &out)
            .then(|| normalize(out))
    }

    /// Whether the names of type `t`, written in host function `f`, mean there what
    /// they mean at namespace scope, where the front end reads a kernel's type
    /// arguments: in a method or a namespace only C++'s own type words do (a class's
    /// or a namespace's `using elem = double;` may hide the global `elem`); anywhere, a
    /// name the file defines as a type more than once, or a qualified name other than
    /// `std::`'s, is not known to.
    fn means_the_same_at_namespace_scope(&self, f: usize, t: &[String]) -> bool {
        const CXX: &[&str] = &[
            "void",
            "bool",
            "char",
            "short",
            "int",
            "long",
            "signed",
            "unsigned",
            "float",
            "double",
            "std",
            "integral_constant",
            "true",
            "false",
        ];
        let def = &self.prog.funcs[f];
        let scoped = def.class.is_some() || !def.namespace.is_empty();
        t.iter().enumerate().all(|(i, x)| {
            let word = x.starts_with(|c: char| c.is_alphabetic() || c == '_');
            if x == "::" {
                return i > 0 && t[i - 1] == "std";
            }
            if !word || CXX.contains(&x.as_str()) {
                return true;
            }
            !scoped
                && (!self.prog.aliases.contains_key(x.as_str()) || self.prog.alias_is_unique(x))
                && self
                    .prog
                    .structs_by_name
                    .get(x.as_str())
                    .is_none_or(|v| v.len() == 1)
        })
    }
}

/// One template parameter of a kernel template.
struct TemplateParam {
    name: String,
    is_type: bool,
}

/// The parameters of template parameter list `list`; `None` for a parameter pack.
fn template_parameters(r: &Reader, list: Node) -> Option<Vec<TemplateParam>> {
    let mut out = Vec::new();
    for p in named_children(list) {
        let (name, is_type) = match p.kind() {
            "type_parameter_declaration" => (
                named_children(p)
                    .into_iter()
                    .find(|c| c.kind() == "type_identifier")?,
                true,
            ),
            "optional_type_parameter_declaration" => (p.child_by_field_name("name")?, true),
            "parameter_declaration" | "optional_parameter_declaration" => {
                let d = p.child_by_field_name("declarator")?;
                (d, false)
            }
            "comment" => continue,
            _ => return None,
        };
        out.push(TemplateParam {
            name: crate::program::declarator_name(name, r.prog.src)
                .unwrap_or_else(|| r.text(name).to_string()),
            is_type,
        });
    }
    Some(out)
}

/// A kernel parameter's type as tokens, its pointers included (`const T *in` is
/// `T *`; an array parameter `T in[]` is a pointer too).
fn param_type(r: &Reader, p: Node) -> Option<Tokens> {
    let t = normalize(tokens(r.text(p.child_by_field_name("type")?)));
    with_pointers(t, p.child_by_field_name("declarator"))
}

/// Type `t` with the pointers declarator `d` adds (none without one); `None` for a
/// declarator shape deduction does not follow ([`indirections`]).
fn with_pointers(mut t: Tokens, d: Option<Node>) -> Option<Tokens> {
    let n = match d {
        Some(d) => indirections(d)?,
        None => 0,
    };
    t.extend(std::iter::repeat_n("*".to_string(), n));
    Some(t)
}

/// How many pointers a declarator adds to its type, one array (which decays to a
/// pointer in a parameter or an argument) included; `None` for any other shape (an
/// array of arrays, a pointer to an array, a function), whose deduction would need
/// the array's extents.
fn indirections(d: Node) -> Option<usize> {
    let (mut pointers, mut arrays) = (0, 0);
    let mut cur = Some(d);
    while let Some(d) = cur {
        match d.kind() {
            "identifier" | "field_identifier" | "qualified_identifier" => break,
            "pointer_declarator" | "abstract_pointer_declarator" => pointers += 1,
            "array_declarator" | "abstract_array_declarator" => arrays += 1,
            "reference_declarator" | "abstract_reference_declarator" | "init_declarator" => {}
            _ => return None,
        }
        cur = d.child_by_field_name("declarator").or_else(|| {
            named_children(d)
                .into_iter()
                .find(|c| c.kind().ends_with("declarator") || c.kind() == "identifier")
        });
    }
    // An array decays only as the outermost level of the type (next to the name).
    (arrays == 0 || (arrays == 1 && pointers == 0)).then_some(pointers + arrays)
}

/// A type's tokens: names, numbers and punctuation, without what deduction ignores
/// (qualifiers, `struct`, references).
fn tokens(text: &str) -> Tokens {
    const IGNORED: &[&str] = &[
        "const",
        "volatile",
        "__restrict__",
        "__restrict",
        "restrict",
        "struct",
        "class",
        "typename",
        "&",
    ];
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_alphanumeric() || c == '_' {
            let mut word = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_alphanumeric() || **d == '_') {
                word.push(d);
                chars.next();
            }
            out.push(word);
        } else if c == ':' {
            chars.next();
            if chars.peek() == Some(&':') {
                chars.next();
            }
            out.push("::".to_string());
        } else {
            chars.next();
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
        }
    }
    out.retain(|t| !IGNORED.contains(&t.as_str()));
    out
}

/// The standard library's integral-constant spellings as one: `std::bool_constant<B>`,
/// `std::true_type` and `std::false_type` are `std::integral_constant<bool, B>`. Only
/// with `std::` written: a name of the file's own may mean anything.
fn normalize(t: Tokens) -> Tokens {
    let word = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Tokens>();
    let mut out: Tokens = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let std = i >= 2 && t[i - 1] == "::" && t[i - 2] == "std";
        let next = t.get(i + 1).map(String::as_str);
        match (t[i].as_str(), next) {
            ("true_type", _) if std => {
                out.extend(word(&["integral_constant", "<", "bool", ",", "true", ">"]))
            }
            ("false_type", _) if std => {
                out.extend(word(&["integral_constant", "<", "bool", ",", "false", ">"]))
            }
            ("bool_constant", Some("<")) if std => {
                out.extend(word(&["integral_constant", "<", "bool", ","]));
                i += 1;
            }
            (x, _) => out.push(x.to_string()),
        }
        i += 1;
    }
    out
}

/// Matches `pattern` (a parameter's type, naming template parameters `names`)
/// against `actual` (an argument's type), extending `bound`; a template parameter
/// stands for a balanced run of tokens, and one bound already must match as bound.
fn unify(pattern: &[String], actual: &[String], names: &[&str], bound: &mut HashMap<String, Tokens>) -> bool {
    let Some((p, rest)) = pattern.split_first() else {
        return actual.is_empty();
    };
    if !names.contains(&p.as_str()) {
        return actual.first() == Some(p) && unify(rest, &actual[1..], names, bound);
    }
    if let Some(b) = bound.get(p).cloned() {
        return actual.starts_with(&b) && unify(rest, &actual[b.len()..], names, bound);
    }
    for end in 1..=actual.len() {
        if !balanced(&actual[..end]) {
            continue;
        }
        bound.insert(p.clone(), actual[..end].to_vec());
        if unify(rest, &actual[end..], names, bound) {
            return true;
        }
        bound.remove(p);
    }
    false
}

/// Whether a run of tokens opens as many `<` as it closes, never closing first, and
/// is not cut inside a `::` path or before a `,` of an enclosing list.
fn balanced(t: &[String]) -> bool {
    let mut depth = 0i32;
    for x in t {
        match x.as_str() {
            "<" => depth += 1,
            ">" => depth -= 1,
            "," if depth == 0 => return false,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0 && t.last().is_some_and(|x| x != "::")
}

/// Tokens back to a type's text: `unsigned int`, `Packed128<float>`, `float*`.
fn join(t: &[String]) -> String {
    let word = |s: &str| s.chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::new();
    for (i, x) in t.iter().enumerate() {
        if i > 0 && word(x) && word(&t[i - 1]) {
            out.push(' ');
        }
        out.push_str(x);
    }
    out
}

/// A non-type template argument deduced as tokens: an integer or a truth value.
fn value_argument(t: &[String]) -> Option<TemplateArg> {
    match t {
        [b] if b == "true" || b == "false" => Some(TemplateArg::Written(b.clone())),
        [v] => int_literal(v).map(TemplateArg::Value),
        [minus, v] if minus == "-" => int_literal(v).map(|v| TemplateArg::Value(-v)),
        _ => None,
    }
}

/// The type of a numeric literal: `2` is `int`, `2u` `unsigned int`, `2.0f` `float`;
/// `None` where C++ would pick a type by the value (a decimal beyond `int`, a hex
/// literal beyond it, which may be `unsigned`) or for a hexadecimal float.
fn literal_type(text: &str) -> Option<&'static str> {
    let t = text.to_ascii_lowercase().replace('\'', "");
    let hex = t.starts_with("0x");
    if hex && t.contains('p') {
        return None;
    }
    if !hex && (t.contains('.') || t.contains('e')) {
        return Some(if t.ends_with('f') { "float" } else { "double" });
    }
    let digits = t.trim_end_matches(['u', 'l']);
    let suffix = &t[digits.len()..];
    let value = int_literal(digits)?;
    let (unsigned, longs) = (suffix.contains('u'), suffix.matches('l').count());
    Some(match (unsigned, longs) {
        _ if value < 0 => return None,
        (false, 0) if value <= i64::from(i32::MAX) => "int",
        (true, 0) if value <= i64::from(u32::MAX) => "unsigned int",
        (false, 1) => "long",
        (true, 1) => "unsigned long",
        (false, 2) => "long long",
        (true, 2) => "unsigned long long",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Tokens {
        normalize(tokens(s))
    }

    #[test]
    fn a_type_parameter_binds_the_run_of_tokens_its_place_holds() {
        let mut b = HashMap::new();
        assert!(unify(
            &toks("T * *"),
            &toks("const unsigned int **"),
            &["T"],
            &mut b
        ));
        assert_eq!(join(&b["T"]), "unsigned int");
        let mut b = HashMap::new();
        assert!(unify(
            &toks("std::bool_constant<A>"),
            &toks("std::integral_constant<bool, true>"),
            &["A"],
            &mut b
        ));
        assert_eq!(value_argument(&b["A"]), Some(TemplateArg::Written("true".into())));
        let mut b = HashMap::new();
        assert!(unify(
            &toks("Pair<K, V>"),
            &toks("Pair<Box<int>, float>"),
            &["K", "V"],
            &mut b
        ));
        assert_eq!(
            (join(&b["K"]), join(&b["V"])),
            ("Box<int>".into(), "float".into())
        );
        // Bound once, it must match the same way again.
        let mut b = HashMap::new();
        assert!(unify(&toks("T *"), &toks("float *"), &["T"], &mut b));
        assert!(!unify(&toks("T"), &toks("double"), &["T"], &mut b));
        // A pointer parameter does not take a non-pointer argument.
        assert!(!unify(&toks("T *"), &toks("float"), &["T"], &mut HashMap::new()));
        assert_eq!(
            toks("std::false_type"),
            toks("std::integral_constant<bool,false>")
        );
        // A name of the file's own is not the standard library's.
        assert_ne!(toks("false_type"), toks("std::integral_constant<bool,false>"));
        assert!(!unify(
            &toks("std::bool_constant<A>"),
            &toks("bool_constant<true>"),
            &["A"],
            &mut HashMap::new()
        ));
    }

    #[test]
    fn a_literal_has_the_type_its_suffix_says() {
        assert_eq!(literal_type("2"), Some("int"));
        assert_eq!(literal_type("2u"), Some("unsigned int"));
        assert_eq!(literal_type("2UL"), Some("unsigned long"));
        assert_eq!(literal_type("1.5f"), Some("float"));
        assert_eq!(literal_type("1e3"), Some("double"));
        assert_eq!(literal_type("0xff"), Some("int"));
        // C++ picks these by the value: not deduced.
        assert_eq!(literal_type("3000000000"), None);
        assert_eq!(literal_type("0xFFFFFFFF"), None);
        assert_eq!(literal_type("0x1p3"), None);
        assert_eq!(literal_type("3000000000u"), Some("unsigned int"));
    }
}
