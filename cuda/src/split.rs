//! Writing a split self-racing statement back into CUDA source ([`kpl::split`]):
//! `A[tid] = A[tid] + A[tid + 1];` becomes
//!
//! ```text
//! int a_tid_1 = A[tid + 1];
//! __syncthreads();
//! A[tid] = A[tid] + a_tid_1;
//! ```
//!
//! The statement's shape is checked on the tree-sitter parse of the file as written: an
//! expression statement directly inside braces that assigns (`=` or a compound `op=`),
//! whose racing operands are array elements `a[i]...[j]` of a named array, evaluated
//! unconditionally (not under `?:`, `&&`, `||` or a comma) and free of side effects. The
//! local's type is the element type the array is declared with (the parameter or local
//! declaration in scope, as written, so a template's `T` stays `T`); `auto` when the
//! declaration is not found. This reads the file only; the lowering is not involved.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::{Node, Parser, Tree};

use super::program::{is_word_in, named_children, text};
use kpl::ir::Span;
use kpl::rewrite::Edit;
use kpl::split::SplitSite;

/// Fresh local names handed out for one file, so that every operand keeps its name
/// (instantiations of one template must get identical edits) and no two clash.
#[derive(Clone, Debug, Default)]
pub struct Names {
    by_operand: BTreeMap<(usize, usize), String>,
    used: BTreeSet<String>,
}

impl Names {
    /// A new kernel (a new scope): names of other kernels may be used again, and the
    /// operands of a template's instantiations keep theirs.
    pub fn next_kernel(&mut self) {
        self.used.clear();
    }
}

fn parse(src: &str) -> Result<Tree, String> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_cuda::LANGUAGE.into())
        .map_err(|e| format!("tree-sitter: {e}"))?;
    parser
        .parse(src, None)
        .ok_or_else(|| "the parser gave up on this file".to_string())
}

/// The node spanning exactly `span` (the outermost one of that range), if any.
fn exact<'t>(tree: &'t Tree, span: Span) -> Option<Node<'t>> {
    let mut n = tree.root_node().descendant_for_byte_range(span.start, span.end)?;
    if n.byte_range() != (span.start..span.end) {
        return None;
    }
    while let Some(p) = n.parent().filter(|p| p.byte_range() == (span.start..span.end)) {
        n = p;
    }
    Some(n)
}

fn contains_kind(n: Node, kinds: &[&str]) -> bool {
    if kinds.contains(&n.kind()) {
        return true;
    }
    named_children(n).into_iter().any(|c| contains_kind(c, kinds))
}

/// The checked statement: its node, and per operand the node, the array's name and the
/// number of subscripts.
struct Shape<'t> {
    stmt: Node<'t>,
    operands: Vec<(Node<'t>, String, usize)>,
}

fn shape<'t>(src: &str, tree: &'t Tree, site: &SplitSite) -> Result<Shape<'t>, String> {
    let stmt = exact(tree, site.statement)
        .filter(|n| n.kind() == "expression_statement")
        .ok_or(
            "it is not a single expression statement as written (a macro, a declaration, a `for` header?)",
        )?;
    if stmt.parent().is_none_or(|p| p.kind() != "compound_statement") {
        return Err(
            "it is not directly inside braces (the body of a brace-less `if`/`for`/`while`, or a label); add braces"
                .into(),
        );
    }
    let assign = stmt
        .named_child(0)
        .filter(|a| a.kind() == "assignment_expression")
        .ok_or("it is not an assignment `a[i] = ...` or `a[i] op= ...`")?;
    let left = assign
        .child_by_field_name("left")
        .ok_or("it has no left-hand side")?;
    let mut operands = Vec::new();
    for o in &site.operands {
        let n = exact(tree, *o)
            .filter(|n| n.kind() == "subscript_expression")
            .ok_or("a racing operand is not an array element `a[i]` as written")?;
        if left.start_byte() <= n.start_byte() && n.end_byte() <= left.end_byte() {
            return Err("the racing read is part of the left-hand side".into());
        }
        if contains_kind(
            n,
            &[
                "call_expression",
                "assignment_expression",
                "update_expression",
                "comma_expression",
            ],
        ) {
            return Err(format!(
                "the racing operand `{}` has side effects or calls",
                text(n, src)
            ));
        }
        let mut up = n.parent();
        while let Some(p) = up.filter(|p| p.id() != stmt.id()) {
            let conditional = match p.kind() {
                "conditional_expression" | "comma_expression" | "lambda_expression" => true,
                "binary_expression" => p
                    .child_by_field_name("operator")
                    .is_some_and(|op| matches!(text(op, src), "&&" | "||")),
                _ => false,
            };
            if conditional {
                return Err(format!(
                    "the racing operand `{}` is evaluated only under a condition (`?:`, `&&`, `||`)",
                    text(n, src)
                ));
            }
            up = p.parent();
        }
        let mut base = n;
        let mut subscripts = 0;
        while base.kind() == "subscript_expression" {
            subscripts += 1;
            base = base
                .child_by_field_name("argument")
                .ok_or("a racing operand has no array")?;
        }
        if base.kind() != "identifier" {
            return Err(format!(
                "the array of the racing operand `{}` is not a plain name",
                text(n, src)
            ));
        }
        operands.push((n, text(base, src).to_string(), subscripts));
    }
    Ok(Shape { stmt, operands })
}

/// Whether the statement of `site` can be split in `src` (see the module comment).
pub fn check(src: &str, site: &SplitSite) -> Result<(), String> {
    let tree = parse(src)?;
    shape(src, &tree, site).map(|_| ())
}

/// The element type of array `name` (accessed with `subscripts` subscripts) as declared
/// in the scope of `at`: the declaration's type when the declarator has exactly that
/// many `*`/`[]` levels.
fn element_type(src: &str, at: Node, name: &str, subscripts: usize) -> Option<String> {
    let mut child = at;
    let mut up = at.parent();
    while let Some(p) = up {
        let decls: Vec<Node> = match p.kind() {
            "compound_statement" | "translation_unit" => named_children(p)
                .into_iter()
                .take_while(|c| c.start_byte() < child.start_byte())
                .filter(|c| c.kind() == "declaration")
                .collect(),
            "function_definition" => p
                .child_by_field_name("declarator")
                .and_then(|d| super::program::innermost_function_declarator(d))
                .and_then(|f| f.child_by_field_name("parameters"))
                .map(|ps| {
                    named_children(ps)
                        .into_iter()
                        .filter(|c| c.kind() == "parameter_declaration")
                        .collect()
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        for d in decls.iter().rev() {
            let Some(ty) = d.child_by_field_name("type") else {
                continue;
            };
            let mut cursor = d.walk();
            for decl in d.children_by_field_name("declarator", &mut cursor) {
                let mut levels = 0;
                let mut cur = decl;
                loop {
                    match cur.kind() {
                        "pointer_declarator" | "array_declarator" => levels += 1,
                        "init_declarator" | "reference_declarator" | "attributed_declarator" => {}
                        _ => break,
                    }
                    match cur.child_by_field_name("declarator").or_else(|| {
                        named_children(cur)
                            .into_iter()
                            .find(|c| c.kind().ends_with("declarator"))
                    }) {
                        Some(c) => cur = c,
                        None => break,
                    }
                }
                if cur.kind() == "identifier" && text(cur, src) == name {
                    return (levels == subscripts)
                        .then(|| text(ty, src).split_whitespace().collect::<Vec<_>>().join(" "));
                }
            }
        }
        child = p;
        up = p.parent();
    }
    None
}

/// A local name for an operand: its text in lower case, words joined by `_`
/// (`A[tid + 1]` → `a_tid_1`), made unique in the file.
fn name_for(src: &str, operand: &str, names: &mut Names, key: (usize, usize)) -> String {
    if let Some(n) = names.by_operand.get(&key) {
        names.used.insert(n.clone());
        return n.clone();
    }
    let mut base = String::new();
    let mut minus = false;
    for w in operand.split_inclusive(|c: char| !c.is_ascii_alphanumeric()) {
        let word = w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        if !word.is_empty() && base.len() + word.len() <= 24 {
            if !base.is_empty() {
                base.push('_');
            }
            if minus {
                base.push('m');
            }
            base.push_str(&word.to_ascii_lowercase());
        }
        // `A[i - 1]` is `a_i_m1`, `A[i + 1]` is `a_i_1`.
        if !word.is_empty() || w.ends_with('-') {
            minus = w.ends_with('-');
        }
    }
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base = format!("v_{base}");
    }
    let mut name = base.clone();
    let mut i = 2;
    while is_word_in(src, &name) || names.used.contains(&name) {
        name = format!("{base}_{i}");
        i += 1;
    }
    names.used.insert(name.clone());
    names.by_operand.insert(key, name.clone());
    name
}

/// The edit that splits the statement of `site` around `barrier` (see the module
/// comment); its `mark` points at the barrier.
pub fn rewrite(src: &str, site: &SplitSite, barrier: &str, names: &mut Names) -> Result<Edit, String> {
    let tree = parse(src)?;
    let sh = shape(src, &tree, site)?;
    let s = site.statement;
    let line_start = src[..s.start].rfind('\n').map_or(0, |i| i + 1);
    let before = &src[line_start..s.start];
    let sep = if before.trim().is_empty() {
        format!("\n{before}")
    } else {
        " ".to_string()
    };
    let mut decls = String::new();
    let mut stmt = src[s.start..s.end].to_string();
    for (n, array, subscripts) in sh.operands.iter().rev() {
        let operand = text(*n, src);
        let name = name_for(src, operand, names, (n.start_byte(), n.end_byte()));
        let ty = element_type(src, sh.stmt, array, *subscripts).unwrap_or_else(|| "auto".to_string());
        decls = format!("{ty} {name} = {operand};{sep}{decls}");
        stmt.replace_range(n.start_byte() - s.start..n.end_byte() - s.start, &name);
    }
    let mark = decls.len();
    Ok(Edit {
        start: s.start,
        end: s.end,
        text: format!("{decls}{barrier}{sep}{stmt}"),
        mark,
    })
}
