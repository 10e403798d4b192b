//! Text edits that put a placement back into the source file the kernel came from.
//!
//! Every byte the edits do not touch stays as it was: a barrier is inserted on its own
//! line with the indentation of the code around it (or inline when the statement shares
//! its line with more code), and a removed barrier takes its line with it only when the
//! line holds nothing else.

use crate::ir::Span;
use crate::labels::{Label, LabelTree, NodeKind};

/// Replace `start..end` of the source by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
    /// Offset inside `text` of the statement the edit introduces (to report its line).
    pub mark: usize,
}

/// Applies non-overlapping edits; returns the new text and, for every edit in the order
/// given, the 1-based line its marked statement ends up on.
pub fn apply(src: &str, edits: &[Edit]) -> (String, Vec<u32>) {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].start, edits[i].end));
    let mut out = String::with_capacity(src.len() + 32 * edits.len());
    let mut marks = vec![0usize; edits.len()];
    let mut pos = 0;
    for i in order {
        let e = &edits[i];
        let start = e.start.max(pos);
        out.push_str(&src[pos..start]);
        marks[i] = out.len() + e.mark;
        out.push_str(&e.text);
        pos = e.end.max(start);
    }
    out.push_str(&src[pos..]);
    let lines = marks.iter().map(|&m| line_at(&out, m)).collect();
    (out, lines)
}

/// The 1-based line of a byte offset.
pub fn line_at(text: &str, offset: usize) -> u32 {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32
        + 1
}

fn line_start(src: &str, offset: usize) -> usize {
    src[..offset].rfind('\n').map_or(0, |i| i + 1)
}

fn indentation(src: &str, offset: usize) -> &str {
    let start = line_start(src, offset);
    let rest = &src[start..];
    let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..n]
}

/// Whether only blanks or a `//` comment follow `offset` on its line; returns the offset
/// just after that line's newline (or the end of the text).
fn rest_of_line_blank(src: &str, offset: usize) -> Option<usize> {
    let end = src[offset..].find('\n').map_or(src.len(), |i| offset + i);
    let rest = src[offset..end].trim();
    if rest.is_empty() || rest.starts_with("//") {
        Some((end + 1).min(src.len()))
    } else {
        None
    }
}

/// One indentation step, guessed from the file (four spaces when nothing tells).
fn indent_unit(src: &str) -> &'static str {
    if src.lines().any(|l| l.starts_with('\t')) {
        "\t"
    } else if src
        .lines()
        .any(|l| l.starts_with("  ") && !l.starts_with("    ") && !l.trim().is_empty())
    {
        "  "
    } else {
        "    "
    }
}

/// The edit that writes `stmt` (e.g. `barrier;`) as the right sibling of label `l`, or at
/// the top of the block for a start node. `None` for labels with no place in the text.
pub fn insert_after(src: &str, tree: &LabelTree, l: Label, stmt: &str) -> Option<Edit> {
    let node = tree.node(l);
    match node.kind {
        NodeKind::Main => None,
        NodeKind::Start(block) => {
            let braces = tree.node(block).span_block?;
            let open = braces.start + 1; // just after `{`
            if braces.start >= src.len() || !src[braces.start..].starts_with('{') {
                return None;
            }
            // Indent like the block's first statement if it has one on its own line.
            let first = tree.node(block).children.get(1).map(|c| tree.node(*c).span);
            let indent = match first {
                Some(s) if s.line > braces.line => indentation(src, s.start).to_string(),
                _ => format!("{}{}", indentation(src, braces.start), indent_unit(src)),
            };
            Some(match rest_of_line_blank(src, open) {
                Some(next) if next > open && src[..next].ends_with('\n') => Edit {
                    start: next,
                    end: next,
                    text: format!("{indent}{stmt}\n"),
                    mark: indent.len(),
                },
                _ => Edit {
                    start: open,
                    end: open,
                    text: format!(" {stmt}"),
                    mark: 1,
                },
            })
        }
        NodeKind::Stmt(_) | NodeKind::Else(_) => {
            let span = node.span;
            if span.end == 0 || span.end > src.len() {
                return None;
            }
            let indent = indentation(src, span_start_of_stmt(tree, l)).to_string();
            Some(match rest_of_line_blank(src, span.end) {
                Some(next) if src[..next].ends_with('\n') => Edit {
                    start: next,
                    end: next,
                    text: format!("{indent}{stmt}\n"),
                    mark: indent.len(),
                },
                Some(next) => Edit {
                    // Last line of a file without a final newline.
                    start: next,
                    end: next,
                    text: format!("\n{indent}{stmt}"),
                    mark: 1 + indent.len(),
                },
                None => Edit {
                    start: span.end,
                    end: span.end,
                    text: format!(" {stmt}"),
                    mark: 1,
                },
            })
        }
    }
}

/// Where the statement a label stands for begins (for an else branch: its `if`).
fn span_start_of_stmt(tree: &LabelTree, l: Label) -> usize {
    match tree.node(l).kind {
        NodeKind::Else(id) => tree
            .label_of(id)
            .map_or(tree.node(l).span.start, |i| tree.node(i).span.start),
        _ => tree.node(l).span.start,
    }
}

/// The edit that deletes the statement at `span`: its whole line when nothing else is on
/// it (a trailing `//` comment goes with it), otherwise just the statement.
pub fn remove(src: &str, span: Span) -> Edit {
    let ls = line_start(src, span.start);
    let before_blank = src[ls..span.start].trim().is_empty();
    match rest_of_line_blank(src, span.end) {
        Some(next) if before_blank => Edit {
            start: ls,
            end: next,
            text: String::new(),
            mark: 0,
        },
        _ => {
            // Take one separating blank with it so `a; barrier; b;` becomes `a; b;`.
            let start = if span.start > 0 && src.as_bytes()[span.start - 1] == b' ' {
                span.start - 1
            } else {
                span.start
            };
            Edit {
                start,
                end: span.end,
                text: String::new(),
                mark: 0,
            }
        }
    }
}
