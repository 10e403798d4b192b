//! Text edits that put a placement back into the source file the kernel came from.
//!
//! Every byte the edits do not touch stays as it was: a barrier is inserted on its own
//! line with the indentation of the code around it (or inline when the statement shares
//! its line with more code), and a removed barrier takes its line with it only when the
//! line holds nothing else.

use crate::ir::{Place, Span};
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

/// The line ending a text uses: `"\r\n"` when its first line break is one, else `"\n"`.
pub fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// The edits with every line break they insert written as `eol`, so that a CRLF file
/// stays CRLF (`mark`s move with their text).
pub fn with_line_ending(edits: Vec<Edit>, eol: &str) -> Vec<Edit> {
    if eol == "\n" {
        return edits;
    }
    edits
        .into_iter()
        .map(|e| {
            let mut text = String::with_capacity(e.text.len() + 8);
            let mut mark = e.mark;
            for (i, c) in e.text.char_indices() {
                if c == '\n' && !text.ends_with('\r') {
                    text.push_str(eol);
                    if i < e.mark {
                        mark += eol.len() - 1;
                    }
                } else {
                    text.push(c);
                }
            }
            Edit { text, mark, ..e }
        })
        .collect()
}

/// Applies non-overlapping edits; returns the new text and, for every edit in the order
/// given, the 1-based line its marked statement ends up on. Insertions at the same offset
/// appear in the order given.
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

/// The edit that deletes the statement labelled `l` (a barrier, for `--strip`): like
/// [`remove`], except that the whole body of a brace-less `if`/`for`/`while`/`else`
/// becomes the empty statement `;`, so the code after it does not become the body, and
/// so does the last statement after a `case`, `default` or goto label (`case 1: }` and
/// `done: }` do not compile).
pub fn remove_stmt(src: &str, tree: &LabelTree, l: Label) -> Edit {
    let span = tree.node(l).span;
    let braceless = tree.parent(l).is_some_and(|p| !tree.node(p).braces);
    if braceless || ends_labelled_block(src, span) {
        return Edit {
            start: span.start,
            end: span.end,
            text: ";".to_string(),
            mark: 0,
        };
    }
    remove(src, span)
}

/// Whether the statement at `span` is all that follows a label before a closing brace:
/// the text before it ends in `:` (not `::`) and the text after it starts with `}`.
fn ends_labelled_block(src: &str, span: Span) -> bool {
    let before = src[..span.start.min(src.len())].trim_end();
    let after = src[span.end.min(src.len())..].trim_start();
    before.ends_with(':') && !before.ends_with("::") && after.starts_with('}')
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

/// The edits that write `stmt` at each of `labels` (docs/semantics.md, Kernels and labels:
/// after a statement, or at the top of a block), for front ends whose blocks may lack
/// braces or whose labels carry a [`Place`] other than "right after the statement".
///
/// A block without braces (the body of a brace-less `if`, `else`, `for`, `while` or
/// `do` in C) that receives a statement gets `{` and `}` around its body, once however
/// many statements go into it. Edits that share an offset are returned in the order they
/// must appear, and [`apply`] keeps that order.
pub fn insert_at(src: &str, tree: &LabelTree, labels: &[Label], stmt: &str) -> Result<Insertion, Label> {
    let mut planned: Vec<(Key, Edit, Option<usize>)> = Vec::new();
    let mut opened: Vec<Label> = Vec::new();
    for (i, &l) in labels.iter().enumerate() {
        let (block, top) = site(tree, l).ok_or(l)?;
        let depth = tree.blks(block).len() + 1;
        if tree.node(block).braces {
            let edit = if top {
                insert_after(src, tree, tree.start(block), stmt)
            } else {
                insert_after(src, tree, l, stmt)
            }
            .ok_or(l)?;
            let key = if top {
                Key::open(depth, 1)
            } else {
                Key::close(depth, 0)
            };
            planned.push((key, edit, Some(i)));
            continue;
        }
        let layout = Braceless::new(src, tree, block).ok_or(l)?;
        if !opened.contains(&block) {
            opened.push(block);
            planned.push((Key::open(depth, 0), layout.open_brace(), None));
            planned.push((Key::close(depth, 1), layout.close_brace(), None));
        }
        let edit = if top {
            layout.top(stmt)
        } else if tree.node(l).span.end == layout.body.end {
            layout.after(stmt)
        } else {
            insert_after(src, tree, l, stmt).ok_or(l)?
        };
        let key = if top {
            Key::open(depth, 1)
        } else {
            Key::close(depth, 0)
        };
        planned.push((key, edit, Some(i)));
    }
    planned.sort_by_key(|(k, e, _)| (e.start, *k));
    let mut of_label = vec![0; labels.len()];
    let mut edits = Vec::with_capacity(planned.len());
    for (j, (_, e, owner)) in planned.into_iter().enumerate() {
        if let Some(i) = owner {
            of_label[i] = j;
        }
        edits.push(e);
    }
    Ok(Insertion { edits, of_label })
}

/// What [`insert_at`] returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insertion {
    /// All edits, braces included, in the order they apply.
    pub edits: Vec<Edit>,
    /// For every label given (in that order), the index in `edits` of the edit that
    /// writes its statement (whose `mark` points at it).
    pub of_label: Vec<usize>,
}

/// Where a label's statement goes: into which block, at its top or after the label.
fn site(tree: &LabelTree, l: Label) -> Option<(Label, bool)> {
    let node = tree.node(l);
    match node.kind {
        NodeKind::Main => None,
        NodeKind::Start(block) => Some((block, true)),
        NodeKind::Stmt(_) | NodeKind::Else(_) => match node.place {
            Place::After => Some((node.parent?, false)),
            Place::BlockTop => Some((node.parent?, true)),
            // Splitting a statement is not an insertion (see `split_stmt`).
            Place::Nowhere | Place::Split => None,
        },
    }
}

/// Orders edits at one offset: everything that closes a block (statements after the last
/// one of a block, then its `}`; inner blocks first) before everything that opens one
/// (a `{`, then statements at the top of its block; outer blocks first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    opening: bool,
    /// Depth, negated on the closing side so that inner blocks come first.
    depth: i64,
    rank: u8,
}

impl Key {
    fn open(depth: usize, rank: u8) -> Key {
        Key {
            opening: true,
            depth: depth as i64,
            rank,
        }
    }

    fn close(depth: usize, rank: u8) -> Key {
        Key {
            opening: false,
            depth: -(depth as i64),
            rank,
        }
    }
}

/// The text around a block without braces: its body statement, and the token before it
/// (`)` of an `if`/`for`/`while`, `else`, `do`).
struct Braceless<'a> {
    src: &'a str,
    body: Span,
    /// Just after the last token before the body.
    head_end: usize,
    /// Only blanks between that token and the body (no comment in between).
    clean_gap: bool,
    /// The body starts its own line.
    own_line: bool,
    head_indent: String,
    body_indent: String,
}

impl<'a> Braceless<'a> {
    fn new(src: &'a str, tree: &LabelTree, block: Label) -> Option<Braceless<'a>> {
        let body = tree.node(block).span_block?;
        if body.end == 0 || body.end > src.len() || body.start >= body.end {
            return None;
        }
        let head_end = src[..body.start].trim_end().len();
        let line_of_head = line_start(src, head_end);
        let head_line = &src[line_of_head..head_end];
        let clean_gap = head_end > 0 && !head_line.contains("//") && !src[..head_end].ends_with("*/");
        let own_line = src[line_start(src, body.start)..body.start].trim().is_empty();
        // The line of the last character before the body (which may be several bytes).
        let last_char = src[..head_end].char_indices().last().map_or(0, |(i, _)| i);
        let head_indent = indentation(src, last_char).to_string();
        let body_indent = if own_line {
            indentation(src, body.start).to_string()
        } else {
            format!("{head_indent}{}", indent_unit(src))
        };
        Some(Braceless {
            src,
            body,
            head_end,
            clean_gap,
            own_line,
            head_indent,
            body_indent,
        })
    }

    fn insertion(at: usize, text: String, mark: usize) -> Edit {
        Edit {
            start: at,
            end: at,
            text,
            mark,
        }
    }

    fn open_brace(&self) -> Edit {
        match (self.own_line, self.clean_gap) {
            (true, true) => Self::insertion(self.head_end, " {".into(), 1),
            (true, false) => Self::insertion(
                line_start(self.src, self.body.start),
                format!("{}{{\n", self.head_indent),
                self.head_indent.len(),
            ),
            (false, _) => Self::insertion(self.body.start, "{ ".into(), 0),
        }
    }

    fn top(&self, stmt: &str) -> Edit {
        if self.own_line {
            Self::insertion(
                line_start(self.src, self.body.start),
                format!("{}{stmt}\n", self.body_indent),
                self.body_indent.len(),
            )
        } else {
            Self::insertion(self.body.start, format!("{stmt} "), 0)
        }
    }

    /// The offset where closing text goes on its own line, if it does.
    fn next_line(&self) -> Option<usize> {
        let next = rest_of_line_blank(self.src, self.body.end)?;
        let multi_line = self.own_line || line_at(self.src, self.body.end) > line_at(self.src, self.head_end);
        (multi_line && self.src[..next].ends_with('\n')).then_some(next)
    }

    fn after(&self, stmt: &str) -> Edit {
        match self.next_line() {
            Some(next) => Self::insertion(
                next,
                format!("{}{stmt}\n", self.body_indent),
                self.body_indent.len(),
            ),
            None => Self::insertion(self.body.end, format!(" {stmt}"), 1),
        }
    }

    fn close_brace(&self) -> Edit {
        match self.next_line() {
            Some(next) => Self::insertion(next, format!("{}}}\n", self.head_indent), self.head_indent.len()),
            None => Self::insertion(self.body.end, " }".into(), 1),
        }
    }
}
