//! Directive lines: `#define`, `#undef`, the `#if` family with its condition groups,
//! `#pragma`, `#error`, `#line`; include guards and where a directive ends.

use std::ops::Range;

use crate::error::{CudaError, ErrorKind};

use super::expand::parse_define;
use super::if_expr::IfExpr;
use super::lexer::{Kind, Tok, lex, text_of, tokens_of};
use super::{Cond, Preprocessor, canonical};

impl Preprocessor<'_> {
    pub(super) fn directive(
        &mut self,
        file: usize,
        text: &str,
        range: Range<usize>,
        conds: &mut Vec<Cond>,
    ) -> Result<(), CudaError> {
        let line = &text[range.clone()];
        let toks = tokens_of(line);
        // toks[0] is `#`.
        let name = toks
            .get(1)
            .filter(|t| t.kind == Kind::Ident)
            .map_or("", |t| t.text.as_str());
        let rest: Vec<Tok> = toks.iter().skip(2).cloned().collect();
        let active = conds.iter().all(|c| c.parent && c.taking);
        let err = |pp: &Self, kind, msg: String| pp.error(kind, file, range.start, line, msg);
        match name {
            "if" | "ifdef" | "ifndef" => {
                let taking = active
                    && self
                        .condition(name, &rest)
                        .map_err(|m| err(self, ErrorKind::Preprocessor, m))?;
                let uncertain = active
                    && self.tests_unknown_macro(&rest)
                    && !(name == "ifndef" && is_guard(text, &range, &rest));
                conds.push(Cond {
                    parent: active,
                    taking,
                    done: taking,
                    seen_else: false,
                    at: range.start,
                    uncertain,
                });
            }
            "elif" | "elifdef" | "elifndef" => {
                let Some(&top) = conds.last() else {
                    return Err(err(
                        self,
                        ErrorKind::Preprocessor,
                        format!("`#{name}` without `#if`"),
                    ));
                };
                if top.seen_else {
                    return Err(err(
                        self,
                        ErrorKind::Preprocessor,
                        format!("`#{name}` after `#else`"),
                    ));
                }
                let kind = match name {
                    "elif" => "if",
                    "elifdef" => "ifdef",
                    _ => "ifndef",
                };
                let taking = top.parent
                    && !top.done
                    && self
                        .condition(kind, &rest)
                        .map_err(|m| err(self, ErrorKind::Preprocessor, m))?;
                let uncertain = top.parent && !top.done && self.tests_unknown_macro(&rest);
                if let Some(c) = conds.last_mut() {
                    c.taking = taking;
                    c.done |= taking;
                    c.uncertain |= uncertain;
                }
            }
            "else" => {
                let Some(c) = conds.last_mut() else {
                    return Err(err(self, ErrorKind::Preprocessor, "`#else` without `#if`".into()));
                };
                if c.seen_else {
                    return Err(err(self, ErrorKind::Preprocessor, "a second `#else`".into()));
                }
                c.taking = c.parent && !c.done;
                c.done = true;
                c.seen_else = true;
            }
            "endif" => {
                if let Some(c) = conds.last().filter(|c| c.uncertain) {
                    let (start, end) = (c.at, directive_end(text, range.start));
                    self.uncertain.push((file, start..end));
                }
                if conds.pop().is_none() {
                    return Err(err(
                        self,
                        ErrorKind::Preprocessor,
                        "`#endif` without `#if`".into(),
                    ));
                }
            }
            _ if !active => {}
            "define" => {
                let (name, m) = parse_define(&rest).map_err(|m| err(self, ErrorKind::Preprocessor, m))?;
                self.macros.insert(name, m);
            }
            "undef" => {
                if let Some(t) = rest.first() {
                    self.macros.remove(&t.text);
                }
            }
            "include" | "include_next" | "import" => self.include(file, line, range.clone(), &rest)?,
            "pragma" => {
                if rest.first().is_some_and(|t| t.is("once")) {
                    self.once.insert(canonical(&self.files[file].path));
                }
            }
            "error" => {
                // A platform or configuration check (`#error "needs Vulkan"`) stops nvcc
                // only under macros autosync may not share: the kernels are read anyway.
                let place = self.place(file, range.start);
                self.notes.push(format!(
                    "{place}: the file stops compilation here under autosync's macros (`#error {}`); \
                     the rest of the file is read as if the directive were not there, and a kernel that \
                     uses a name nothing declares is unsupported (pass the `-D` flags of the real build \
                     to take the intended path)",
                    text_of(&rest)
                ));
                self.missing
                    .push(format!("the configuration that the `#error` at {place} asks for"));
            }
            "" | "warning" | "line" | "ident" | "sccs" | "assert" | "unassert" => {}
            _ if toks.get(1).is_some_and(|t| t.kind == Kind::Number) => {} // `# 12 "file"` line markers
            other => {
                return Err(err(
                    self,
                    ErrorKind::Preprocessor,
                    format!("unknown preprocessor directive `#{other}`"),
                ));
            }
        }
        Ok(())
    }

    /// Whether a condition names a macro that nothing read defines, while a part of the
    /// file was not read (which may define it).
    fn tests_unknown_macro(&self, rest: &[Tok]) -> bool {
        !self.missing.is_empty()
            && rest.iter().any(|t| {
                t.kind == Kind::Ident
                    && !self.macros.contains_key(&t.text)
                    && !["defined", "true", "false", "__has_include", "__has_include_next"]
                        .contains(&t.text.as_str())
            })
    }

    /// Evaluates the condition of `#if`, `#ifdef` or `#ifndef`.
    fn condition(&mut self, kind: &str, rest: &[Tok]) -> Result<bool, String> {
        match kind {
            "ifdef" | "ifndef" => {
                let name = rest
                    .first()
                    .filter(|t| t.kind == Kind::Ident)
                    .ok_or_else(|| format!("`#{kind}` needs a macro name"))?;
                Ok(self.macros.contains_key(&name.text) == (kind == "ifdef"))
            }
            _ => {
                let mut toks = Vec::new();
                let mut i = 0;
                while i < rest.len() {
                    let t = &rest[i];
                    if t.is("defined") || t.is("__has_include") || t.is("__has_include_next") {
                        let (name, next) = if rest.get(i + 1).is_some_and(|n| n.is("(")) {
                            let close = rest[i..]
                                .iter()
                                .position(|t| t.is(")"))
                                .map_or(rest.len(), |p| i + p);
                            (rest.get(i + 2).map(|t| t.text.clone()), close + 1)
                        } else {
                            (rest.get(i + 1).map(|t| t.text.clone()), i + 2)
                        };
                        let v = t.is("defined") && name.is_some_and(|n| self.macros.contains_key(&n));
                        toks.push(Tok::new(Kind::Number, if v { "1" } else { "0" }, true));
                        i = next;
                    } else {
                        toks.push(t.clone());
                        i += 1;
                    }
                }
                let toks = self.expand_list(toks, &[], 0)?;
                if toks.is_empty() {
                    return Err("`#if` needs an expression".into());
                }
                let mut e = IfExpr { toks: &toks, pos: 0 };
                let v = e.ternary()?;
                if e.pos < toks.len() {
                    return Err(format!(
                        "unexpected `{}` in the `#if` expression",
                        toks[e.pos].text
                    ));
                }
                Ok(v != 0)
            }
        }
    }
}

/// Whether `#ifndef X` at `range` is an include guard: the next line defines `X`.
fn is_guard(text: &str, range: &Range<usize>, rest: &[Tok]) -> bool {
    let Some(x) = rest.first() else { return false };
    let next = text[directive_end(text, range.start)..].trim_start();
    let Some(def) = next.strip_prefix('#') else {
        return false;
    };
    let mut words = def.split_whitespace();
    words.next() == Some("define") && words.next() == Some(x.text.as_str())
}

/// Where a directive that starts at `from` ends: the newline that is not escaped and
/// not inside a comment (or the end of the text).
pub(super) fn directive_end(text: &str, from: usize) -> usize {
    let mut pos = from;
    while pos < text.len() {
        let lx = lex(text, pos);
        if lx.kind == Kind::Newline {
            return lx.start;
        }
        pos = lx.end.max(pos + 1);
    }
    text.len()
}
