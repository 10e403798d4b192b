//! Parse-tree questions the host reader asks: declarations and their declarators,
//! initializers, constant tables, integer types and their sizes, callee names.

use tree_sitter::Node;

use crate::program::{Program, named_children};

use super::Reader;

/// Whether `n` has the operator `op` (`&x`, `a >> b`, `x = e`).
pub(super) fn has_operator(prog: &Program, n: Node, op: &str) -> bool {
    n.child_by_field_name("operator")
        .is_some_and(|o| prog.text(o) == op)
}

/// The operand of `&e`; any other expression is itself.
pub(super) fn address_operand<'t>(prog: &Program, e: Node<'t>) -> Node<'t> {
    match e.child_by_field_name("argument") {
        Some(a) if e.kind() == "pointer_expression" && has_operator(prog, e, "&") => a,
        _ => e,
    }
}

/// The plain assignment `n = e` whose whole left side is `n`.
pub(super) fn plain_assignment_to<'t>(prog: &Program, n: Node<'t>) -> Option<Node<'t>> {
    n.parent().filter(|a| {
        a.kind() == "assignment_expression"
            && a.child_by_field_name("left").is_some_and(|l| l.id() == n.id())
            && has_operator(prog, *a, "=")
    })
}

/// Whether `at` is inside a lambda of the function body `body` (a lambda runs later
/// than it is written).
pub(super) fn in_lambda(at: Node, body: Node) -> bool {
    std::iter::successors(at.parent(), |n| n.parent())
        .take_while(|n| n.id() != body.id())
        .any(|n| n.kind() == "lambda_expression")
}

/// Whether a function body has a `goto`, or a `case`/`default` label that is not a
/// statement of its `switch`'s own block (Duff's device, `case 1: { case 2: ... }`).
pub(super) fn has_jump_into_branches(body: Node) -> bool {
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
pub(super) fn function_key(prog: &Program, f: usize) -> String {
    format!("{}@{}", prog.funcs[f].name, prog.funcs[f].node.start_byte())
}

/// Whether declaration `decl` declares `x` as a reference (`const int &x = n;`).
pub(super) fn declares_reference(prog: &Program, decl: Node, x: &str) -> bool {
    named_children(decl).into_iter().any(|d| {
        declares_node(prog, d, x)
            && (d.kind() == "reference_declarator"
                || d.child_by_field_name("declarator")
                    .is_some_and(|i| i.kind() == "reference_declarator"))
    })
}

/// Whether a cast to `ty` keeps an integer (launch sizes and counts are non-negative
/// and small, so a conversion between integer types does not change them).
pub(super) fn integer_type(ty: &str) -> bool {
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
pub(super) fn split_template_args(text: &str) -> Vec<String> {
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
pub(super) fn size_of(ty: &str) -> Option<i64> {
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
pub(super) fn callee_name(prog: &Program, fun: Node) -> Option<String> {
    match fun.kind() {
        "identifier" => Some(prog.text(fun).to_string()),
        "qualified_identifier" => Some(prog.text(fun).replace(' ', "")),
        "template_function" => Some(prog.text(fun.child_by_field_name("name")?).to_string()),
        _ => None,
    }
}

/// The name a parameter declaration declares.
pub(super) fn param_name(prog: &Program, p: Node) -> Option<String> {
    let d = p.child_by_field_name("declarator")?;
    crate::program::declarator_name(d, prog.src)
}

/// Whether `decl` declares `x`.
/// Whether identifier `n` is the name a declaration declares (`int n = 3;`, `dim3 n;`,
/// `dim3 n(a, b);`, `int &n = m;`, `float n[4];`, `int a, n;`, a parameter).
pub(super) fn declared_name(n: Node) -> bool {
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
        | "function_declarator"
        | "for_range_loop" => is_declarator,
        // `int &n = m;`: the name is the declarator's only named child.
        "reference_declarator" => named_children(p).first().is_some_and(|c| c.id() == n.id()),
        _ => false,
    }
}

pub(super) fn declares(prog: &Program, decl: Node, x: &str) -> bool {
    named_children(decl)
        .into_iter()
        .any(|c| declares_node(prog, c, x))
}

/// Whether identifier `id` is the name a declarator of `decl` declares.
pub(super) fn declares_node_exact(decl: Node, id: Node) -> bool {
    id.parent().is_some_and(|p| {
        p.child_by_field_name("declarator")
            .is_some_and(|d| d.id() == id.id())
            && decl.start_byte() <= p.start_byte()
            && p.end_byte() <= decl.end_byte()
    })
}

pub(super) fn declares_node(prog: &Program, c: Node, x: &str) -> bool {
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

pub(super) fn is_dim3_declaration(prog: &Program, decl: Node) -> bool {
    decl.child_by_field_name("type")
        .is_some_and(|t| prog.text(t) == "dim3")
}

/// The key of local `x` declared by `decl` among an environment's bindings.
pub(super) fn local_key(x: &str, decl: Node) -> String {
    format!("{x}@{}", decl.start_byte())
}

/// The initializer list of array `x` in a declaration or init declarator
/// (`int sizes[] = {32, 64};`), and the array's size when it is written.
pub(super) fn table_list<'t>(
    prog: &Program,
    decl: Node<'t>,
    x: &str,
) -> Option<(Node<'t>, Option<Node<'t>>)> {
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
pub(super) fn declarations(prog: &Program, root: Node, x: &str) -> usize {
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
///
/// The mention `besides` (the range of a `for (int v : x)` loop whose variable is a
/// copy) also counts as a read.
pub(super) fn only_elements_read_besides(r: &Reader, root: Node, x: &str, besides: Option<Node>) -> bool {
    let prog = r.prog;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        stack.extend(named_children(n));
        if n.kind() != "identifier" || prog.text(n) != x || besides.is_some_and(|b| b.id() == n.id()) {
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
        if !element || !is_rvalue(r, p) {
            return false;
        }
    }
    true
}

/// Whether expression `e` is only read where it stands: not assigned, incremented,
/// its address taken, read into (`>>` of a stream) or passed other than by value.
fn is_rvalue(r: &Reader, e: Node) -> bool {
    let prog = r.prog;
    let mut e = e;
    while let Some(p) = e.parent() {
        if p.kind() != "parenthesized_expression" {
            let is = |field: &str| p.child_by_field_name(field).is_some_and(|c| c.id() == e.id());
            return match p.kind() {
                "assignment_expression" => !is("left"),
                "update_expression" => false,
                "pointer_expression" => has_operator(prog, p, "*"),
                "binary_expression" => !(is("right") && has_operator(prog, p, ">>")),
                // `grow(t[0])` may write the element through a reference parameter.
                "argument_list" => r.by_value_argument(p, e),
                _ => true,
            };
        }
        e = p;
    }
    true
}

/// Whether a declaration has a `const` or `constexpr` qualifier.
pub(super) fn is_const(r: &Reader, decl: Node) -> bool {
    named_children(decl)
        .into_iter()
        .any(|c| c.kind() == "type_qualifier" && matches!(r.text(c), "const" | "constexpr"))
}

/// Whether a declaration's type is an integer type of at least 32 bits (a table or a
/// copy of one holds its values unchanged; a narrower one would convert them).
pub(super) fn wide_int(r: &Reader, decl: Node) -> bool {
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
pub(super) fn narrow_or_floating(r: &Reader, decl: Node) -> bool {
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
pub(super) fn initializer<'t>(prog: &Program, decl: Node<'t>, x: &str) -> Option<Node<'t>> {
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
