//! Parentheses added where tree-sitter-cuda misreads valid CUDA C++, before the file is
//! parsed for good. Each repair inserts parentheses that do not change the meaning of
//! the C++ (so the lowering sees the program the compiler sees), and the preprocessed
//! text keeps its [`SourceMap`]: the inserted bytes are like a tiny macro expansion at
//! their position, so spans and barrier places of the statements around them stay
//! exact. A repaired parse is kept only when it has fewer syntax errors than the
//! original (or as few, for a repair of a tree without errors).
//!
//! - A comparison read as a template argument list: in `while (i < n && s[k] >= 0)`
//!   the parser takes `i<n && s[k]>` for a template-id and the rest for `= 0`. When the
//!   "template" is a variable declared in the function (or at file scope; a variable
//!   is never a template, even where the parser reads `a < b && c > (d)` as a call),
//!   the variable is wrapped: `(i) < n && s[k] >= 0`.
//! - An assignment as the first operand of a parenthesized comma expression
//!   (`y[(j = i + 1, i)]`, `(j = 3, x[j])`) is a syntax error for the parser; the
//!   assignment is wrapped: `((j = i + 1), i)`.

use std::collections::HashSet;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::error::CudaError;
use crate::program::{children, parse_tree};
use crate::source_map::{Origin, Segment, SourceMap};

/// Rounds of repairs (each may uncover another misreading).
const ROUNDS: usize = 3;

/// The preprocessed text and its parse, repaired where a repair helps.
pub fn repaired(mut map: SourceMap, mut tree: Tree) -> Result<(SourceMap, Tree), CudaError> {
    for _ in 0..ROUNDS {
        let errors = count_errors(tree.root_node());
        let mut edits = comparison_edits(&map.text, tree.root_node());
        if errors > 0 {
            edits.extend(comma_edits(&map.text));
        }
        if edits.is_empty() {
            break;
        }
        let new_map = insert(&map, edits);
        let new_tree = parse_tree(&new_map)?;
        let new_errors = count_errors(new_tree.root_node());
        if new_errors > errors || (errors > 0 && new_errors == errors) {
            break;
        }
        (map, tree) = (new_map, new_tree);
    }
    Ok((map, tree))
}

fn count_errors(n: Node) -> usize {
    if n.is_error() || n.is_missing() {
        return 1;
    }
    if !n.has_error() {
        return 0;
    }
    children(n).into_iter().map(count_errors).sum()
}

/// The text with `edits` (position, text to insert before the byte there) applied,
/// and its source map: inserted text maps to its position, like a macro expansion.
pub fn insert(map: &SourceMap, mut edits: Vec<(usize, String)>) -> SourceMap {
    edits.sort_by_key(|e| e.0);
    edits.dedup();
    let old = &map.text;
    let mut text = String::with_capacity(old.len() + edits.len() * 2);
    let mut segments: Vec<Segment> = Vec::with_capacity(map.segments.len() + edits.len() * 2);
    let mut next = edits.into_iter().peekable();
    for seg in &map.segments {
        let mut pos = seg.out.start;
        loop {
            let at = match next.peek() {
                Some((at, _)) if *at < seg.out.end && *at >= pos => *at,
                Some((at, _)) if *at < pos => {
                    // Not inside any segment (cannot happen: segments are contiguous).
                    next.next();
                    continue;
                }
                _ => break,
            };
            copy(map, seg, pos..at, &mut text, &mut segments);
            let Some((_, ins)) = next.next() else { break };
            let loc = map.loc(at);
            segments.push(Segment {
                out: text.len()..text.len() + ins.len(),
                origin: Origin::Macro {
                    file: loc.file,
                    call: loc.offset..loc.offset,
                },
            });
            text.push_str(&ins);
            pos = at;
        }
        copy(map, seg, pos..seg.out.end, &mut text, &mut segments);
    }
    // Text after the last segment (none in practice), and insertions at the very end.
    if let Some(last) = map.segments.last()
        && last.out.end < old.len()
    {
        text.push_str(&old[last.out.end..]);
    }
    for (_, ins) in next {
        text.push_str(&ins);
    }
    SourceMap {
        files: map.files.clone(),
        text,
        segments,
        notes: map.notes.clone(),
        unread: map.unread.clone(),
        uncertain: map.uncertain.clone(),
    }
}

/// Copies `r` (inside `seg`) of the old text, with its origin.
fn copy(map: &SourceMap, seg: &Segment, r: Range<usize>, text: &mut String, segments: &mut Vec<Segment>) {
    if r.start >= r.end {
        return;
    }
    let origin = match &seg.origin {
        Origin::Verbatim { file, start } => Origin::Verbatim {
            file: *file,
            start: start + (r.start - seg.out.start),
        },
        m @ Origin::Macro { .. } => m.clone(),
    };
    let start = text.len();
    text.push_str(&map.text[r]);
    segments.push(Segment {
        out: start..text.len(),
        origin,
    });
}

// ---- comparisons read as template arguments -------------------------------------

/// `(`/`)` around variables that the parser took for the name of a template-id.
fn comparison_edits(src: &str, root: Node) -> Vec<(usize, String)> {
    let mut globals = HashSet::new();
    for c in children(root) {
        if c.kind() == "declaration" {
            declared_names(src, c, &mut globals);
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![(root, None::<Node>)];
    while let Some((n, func)) = stack.pop() {
        let func = if n.kind() == "function_definition" {
            Some(n)
        } else {
            func
        };
        if n.kind() == "template_function"
            && let Some(name) = n.child_by_field_name("name")
            && name.kind() == "identifier"
            && !is_qualified(n)
            && let Some(f) = func
        {
            let ident = &src[name.byte_range()];
            let mut locals = HashSet::new();
            declared_names(src, f, &mut locals);
            if locals.contains(ident) || globals.contains(ident) {
                out.push((name.start_byte(), "(".to_string()));
                out.push((name.end_byte(), ")".to_string()));
                continue;
            }
        }
        for c in children(n) {
            stack.push((c, func));
        }
    }
    out
}

/// Whether a template-id is part of a qualified name (`ns::x<...>` names no local).
fn is_qualified(n: Node) -> bool {
    n.parent().is_some_and(|p| p.kind() == "qualified_identifier")
}

/// Names of the variables (and parameters) declared in `n`, not in templates.
fn declared_names(src: &str, n: Node, out: &mut HashSet<String>) {
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        match n.kind() {
            // Variable templates are templates.
            "template_declaration" => continue,
            "declaration"
            | "parameter_declaration"
            | "optional_parameter_declaration"
            | "init_declarator"
            | "array_declarator"
            | "pointer_declarator"
            | "reference_declarator" => {
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    if d.kind() == "identifier" {
                        out.insert(src[d.byte_range()].to_string());
                    }
                }
            }
            _ => {}
        }
        stack.extend(children(n));
    }
}

// ---- assignments in comma expressions ---------------------------------------------

/// `(`/`)` around an assignment that is the first operand of a parenthesized comma
/// expression: `(x = e, y)` becomes `((x = e), y)`. The parenthesis must group (not
/// follow a name, `)`, `]` or `>`, which would make it a call, a cast or a declarator).
fn comma_edits(src: &str) -> Vec<(usize, String)> {
    let b = src.as_bytes();
    let code = code_mask(b);
    let mut out = Vec::new();
    for open in 0..b.len() {
        if b[open] != b'(' || !code[open] {
            continue;
        }
        let before = (0..open).rev().find(|&i| !b[i].is_ascii_whitespace());
        if before.is_some_and(|i| is_ident(b[i]) || matches!(b[i], b')' | b']' | b'>')) {
            continue;
        }
        let Some(start) = (open + 1..b.len()).find(|&i| !b[i].is_ascii_whitespace()) else {
            continue;
        };
        if let Some(comma) = assignment_then_comma(b, &code, start) {
            out.push((start, "(".to_string()));
            out.push((comma, ")".to_string()));
        }
    }
    out
}

/// From `start`: a name (with `.f`, `->f`, `[...]` after it), an assignment operator,
/// then the position of the first comma at this nesting depth, if one comes before the
/// group closes.
fn assignment_then_comma(b: &[u8], code: &[bool], start: usize) -> Option<usize> {
    let mut i = start;
    if !b.get(i).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
        return None;
    }
    while i < b.len() && is_ident(b[i]) {
        i += 1;
    }
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        match b.get(i) {
            Some(b'.') => i += 1,
            Some(b'-') if b.get(i + 1) == Some(&b'>') => i += 2,
            Some(b'[') => {
                i = close_of(b, code, i)? + 1;
                continue;
            }
            _ => break,
        }
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
    }
    // An assignment operator: `=` (not `==`), or `op=` for the arithmetic/bit ops.
    let rest = &b[i..];
    let len = if rest.starts_with(b"<<=") || rest.starts_with(b">>=") {
        3
    } else if rest.len() >= 2 && rest[1] == b'=' && b"+-*/%&|^".contains(&rest[0]) {
        2
    } else if rest.first() == Some(&b'=') && rest.get(1) != Some(&b'=') {
        1
    } else {
        return None;
    };
    let mut depth = 0i32;
    for (j, &c) in b.iter().enumerate().skip(i + len) {
        if !code[j] {
            continue;
        }
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            b',' if depth == 0 => return Some(j),
            b';' => return None,
            _ => {}
        }
    }
    None
}

/// The matching `]` of the `[` at `open`.
fn close_of(b: &[u8], code: &[bool], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (j, &c) in b.iter().enumerate().skip(open) {
        if !code[j] {
            continue;
        }
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            b';' => return None,
            _ => {}
        }
    }
    None
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Which bytes are code (not inside comments, string or character literals).
fn code_mask(b: &[u8]) -> Vec<bool> {
    let mut mask = vec![true; b.len()];
    let mut i = 0;
    while i < b.len() {
        let (end, skip) = match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => (find_from(b, i + 2, b"\n").unwrap_or(b.len()), true),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                (find_from(b, i + 2, b"*/").map_or(b.len(), |e| e + 2), true)
            }
            q @ (b'"' | b'\'') => {
                let mut j = i + 1;
                while j < b.len() && b[j] != q && b[j] != b'\n' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                ((j + 1).min(b.len()), true)
            }
            _ => (i + 1, false),
        };
        if skip {
            for m in &mut mask[i..end] {
                *m = false;
            }
        }
        i = end.max(i + 1);
    }
    mask
}

fn find_from(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comma_edits_wrap_the_assignment_of_a_grouping_parenthesis_only() {
        let src =
            "y[(j = i + 1, i)] = f(a = 1, b); for (i = 0, j = 1; ; ) {} z = (q[1] += 2, \"(x = 1, y)\");";
        let edits = comma_edits(src);
        let mut s = src.to_string();
        let mut e = edits.clone();
        e.sort_by_key(|x| std::cmp::Reverse(x.0));
        for (at, t) in e {
            s.insert_str(at, &t);
        }
        assert_eq!(
            s,
            "y[((j = i + 1), i)] = f(a = 1, b); for (i = 0, j = 1; ; ) {} z = ((q[1] += 2), \"(x = 1, y)\");"
        );
    }

    #[test]
    fn inserted_parentheses_map_back_to_their_position() {
        use crate::source_map::SourceFile;
        let text = "x = (j = 1, k);".to_string();
        let map = SourceMap {
            files: vec![SourceFile::new("a.cu".into(), text.clone(), None)],
            segments: vec![Segment {
                out: 0..text.len(),
                origin: Origin::Verbatim { file: 0, start: 0 },
            }],
            text,
            notes: Vec::new(),
            unread: Vec::new(),
            uncertain: Vec::new(),
        };
        let new = insert(&map, comma_edits(&map.text));
        assert_eq!(new.text, "x = ((j = 1), k);");
        // The whole statement is still exactly its text in the file.
        assert_eq!(new.main_range(0..new.text.len()), Some(0..map.text.len()));
        // `k` comes from where it was written.
        let k = new.text.find('k').unwrap_or_default();
        assert_eq!(new.loc(k).offset, map.text.find('k').unwrap_or_default());
    }

    #[test]
    fn no_comma_no_edit() {
        assert!(comma_edits("x = (a = b); y = (a == b, c);").is_empty());
    }
}
