//! Macro expansion: a macro call in the file text or in a token list is replaced by
//! its body with the arguments substituted (`#`, `##`, `__VA_ARGS__`), rescanned with
//! the macros being expanded disabled; and how `#define` reads a macro.

use crate::error::{CudaError, ErrorKind};

use super::lexer::{Kind, Lexeme, Tok, lex, tokens_of};
use super::{MAX_EXPANSIONS, MAX_MACRO_DEPTH, MAX_TOKENS, Macro, Preprocessor};

impl Preprocessor<'_> {
    /// Expands the macro named by `lx` in the file text; returns where the call ends.
    pub(super) fn expand_call(&mut self, file: usize, text: &str, lx: Lexeme) -> Result<usize, CudaError> {
        let name = &text[lx.start..lx.end];
        let Some(m) = self.macros.get(name).cloned() else {
            self.copy(file, lx.start..lx.end);
            return Ok(lx.end);
        };
        let (args, end) = if m.params.is_some() {
            // A function-like macro name not followed by `(` is just a name.
            let mut q = lx.end;
            while q < text.len() {
                let l = lex(text, q);
                if !matches!(l.kind, Kind::Space | Kind::Newline) {
                    break;
                }
                q = l.end;
            }
            if !text[q..].starts_with('(') {
                self.copy(file, lx.start..lx.end);
                return Ok(lx.end);
            }
            let (args, end) = self.file_args(file, text, q)?;
            (Some(args), end)
        } else {
            (None, lx.end)
        };
        let toks = self
            .substitute(name, &m, args, &[], 0)
            .map_err(|e| self.error(ErrorKind::Preprocessor, file, lx.start, &text[lx.start..end], e))?;
        self.emit_expansion(file, lx.start..end, &toks);
        Ok(end)
    }

    /// The arguments of a macro call in the file, from the `(` at `open`.
    fn file_args(&self, file: usize, text: &str, open: usize) -> Result<(Vec<Vec<Tok>>, usize), CudaError> {
        let mut args = vec![Vec::new()];
        let mut depth = 0usize;
        let mut pos = open + 1;
        let mut space = false;
        while pos < text.len() {
            let lx = lex(text, pos);
            let word = &text[lx.start..lx.end];
            pos = lx.end;
            match lx.kind {
                Kind::Space | Kind::Newline => {
                    space = true;
                    continue;
                }
                Kind::Punct if word == ")" && depth == 0 => return Ok((args, pos)),
                Kind::Punct if word == "," && depth == 0 => {
                    args.push(Vec::new());
                    space = false;
                    continue;
                }
                Kind::Punct if word == "(" => depth += 1,
                Kind::Punct if word == ")" => depth -= 1,
                _ => {}
            }
            if let Some(a) = args.last_mut() {
                a.push(Tok::new(lx.kind, word, space));
            }
            space = false;
        }
        Err(self.error(
            ErrorKind::Preprocessor,
            file,
            open,
            "(",
            "this macro call has no closing `)`",
        ))
    }

    /// The tokens a macro call stands for, fully expanded.
    fn substitute(
        &mut self,
        name: &str,
        m: &Macro,
        args: Option<Vec<Vec<Tok>>>,
        disabled: &[String],
        depth: usize,
    ) -> Result<Vec<Tok>, String> {
        self.expansions += 1;
        if self.expansions > MAX_EXPANSIONS || depth > MAX_MACRO_DEPTH {
            return Err(format!(
                "the expansion of macro `{name}` does not end (or is too large)"
            ));
        }
        let mut inner: Vec<String> = disabled.to_vec();
        inner.push(name.to_string());
        let params = m.params.clone().unwrap_or_default();
        let mut args = args.unwrap_or_default();
        if m.params.is_some() {
            // `M()` of a one-parameter macro has one empty argument; variadic extras join.
            if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                args.clear();
            }
            if m.variadic && args.len() > params.len() && !params.is_empty() {
                let extra: Vec<Vec<Tok>> = args.split_off(params.len() - 1);
                let mut joined = Vec::new();
                for (i, a) in extra.into_iter().enumerate() {
                    if i > 0 {
                        joined.push(Tok::new(Kind::Punct, ",", false));
                    }
                    joined.extend(a);
                }
                args.push(joined);
            } else if m.variadic && args.len() + 1 == params.len() {
                args.push(Vec::new());
            }
            if args.len() != params.len() {
                return Err(format!(
                    "macro `{name}` takes {} argument(s), this call passes {}",
                    params.len(),
                    args.len()
                ));
            }
        }
        let param_of = |t: &Tok| -> Option<usize> {
            (t.kind == Kind::Ident)
                .then(|| params.iter().position(|p| *p == t.text))
                .flatten()
        };
        let body = &m.body;
        let mut out: Vec<Tok> = Vec::new();
        let mut i = 0;
        while i < body.len() {
            let t = &body[i];
            let next_is_paste = body.get(i + 1).is_some_and(|n| n.is("##"));
            if m.params.is_some()
                && (t.is("#") || t.is("%:"))
                && let Some(p) = body.get(i + 1).and_then(param_of)
            {
                out.push(Tok::new(Kind::Literal, &stringify(&args[p]), t.space));
                i += 2;
                continue;
            }
            if t.is("##") {
                // Paste the last token written with the next one (unexpanded).
                let rhs: Vec<Tok> = match body.get(i + 1) {
                    Some(n) => match param_of(n) {
                        Some(p) => args[p].clone(),
                        None => vec![n.clone()],
                    },
                    None => Vec::new(),
                };
                let mut rhs = rhs.into_iter();
                match (out.pop(), rhs.next()) {
                    (Some(l), Some(r)) => out.push(paste(&l, &r)),
                    (Some(l), None) => out.push(l),
                    (None, Some(r)) => out.push(r),
                    (None, None) => {}
                }
                out.extend(rhs);
                i += 2;
                continue;
            }
            if let Some(p) = param_of(t) {
                let prev_is_paste = i > 0 && body[i - 1].is("##");
                let mut arg = if next_is_paste || prev_is_paste {
                    args[p].clone()
                } else {
                    self.expand_list(args[p].clone(), disabled, depth + 1)?
                };
                if let Some(first) = arg.first_mut() {
                    first.space = t.space;
                }
                out.extend(arg);
            } else {
                out.push(t.clone());
            }
            i += 1;
        }
        self.tokens += out.len();
        if self.tokens > MAX_TOKENS {
            return Err(format!("the expansion of macro `{name}` is too large"));
        }
        self.expand_list(out, &inner, depth + 1)
    }

    /// Expands the macros of a token list (the rescan of a replacement).
    pub(super) fn expand_list(
        &mut self,
        toks: Vec<Tok>,
        disabled: &[String],
        depth: usize,
    ) -> Result<Vec<Tok>, String> {
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            if t.kind != Kind::Ident || t.painted {
                out.push(t.clone());
                i += 1;
                continue;
            }
            if disabled.contains(&t.text) {
                let mut p = t.clone();
                p.painted = true;
                out.push(p);
                i += 1;
                continue;
            }
            let Some(m) = self.macros.get(&t.text).cloned() else {
                out.push(t.clone());
                i += 1;
                continue;
            };
            let space = t.space;
            let name = t.text.clone();
            let (args, next) = if m.params.is_some() {
                if !toks.get(i + 1).is_some_and(|n| n.is("(")) {
                    out.push(t.clone());
                    i += 1;
                    continue;
                }
                match list_args(&toks, i + 1) {
                    Some((args, next)) => (Some(args), next),
                    None => return Err(format!("the call of macro `{name}` has no closing `)`")),
                }
            } else {
                (None, i + 1)
            };
            let mut rep = self.substitute(&name, &m, args, disabled, depth + 1)?;
            if let Some(first) = rep.first_mut() {
                first.space = space;
            }
            out.extend(rep);
            i = next;
        }
        Ok(out)
    }
}

/// The arguments of a call in a token list, from the `(` at `open`; returns them and
/// the index after the `)`.
fn list_args(toks: &[Tok], open: usize) -> Option<(Vec<Vec<Tok>>, usize)> {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open + 1) {
        if t.is(")") && depth == 0 {
            return Some((args, i + 1));
        }
        if t.is(",") && depth == 0 {
            args.push(Vec::new());
            continue;
        }
        if t.is("(") {
            depth += 1;
        } else if t.is(")") {
            depth -= 1;
        }
        args.last_mut()?.push(t.clone());
    }
    None
}

/// `#x`: the argument's spelling as a string literal.
fn stringify(arg: &[Tok]) -> String {
    let mut s = String::from("\"");
    for (i, t) in arg.iter().enumerate() {
        if i > 0 && t.space {
            s.push(' ');
        }
        if t.kind == Kind::Literal {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    s
}

/// `a ## b`.
fn paste(l: &Tok, r: &Tok) -> Tok {
    let text = format!("{}{}", l.text, r.text);
    let kind = match tokens_of(&text).as_slice() {
        [one] => one.kind,
        _ => Kind::Other,
    };
    Tok {
        kind,
        text,
        space: l.space,
        painted: false,
    }
}

/// `NAME body` or `NAME(params) body` (the `(` right after the name).
pub(super) fn parse_define(rest: &[Tok]) -> Result<(String, Macro), String> {
    let name = rest
        .first()
        .filter(|t| t.kind == Kind::Ident)
        .ok_or("`#define` needs a macro name")?
        .text
        .clone();
    if rest.get(1).is_some_and(|t| t.is("(") && !t.space) {
        let mut params = Vec::new();
        let mut variadic = false;
        let mut i = 2;
        loop {
            let t = rest.get(i).ok_or("unterminated macro parameter list")?;
            if t.is(")") {
                i += 1;
                break;
            }
            if t.is("...") {
                variadic = true;
                params.push("__VA_ARGS__".to_string());
            } else if t.kind == Kind::Ident {
                if rest.get(i + 1).is_some_and(|n| n.is("...")) {
                    variadic = true;
                    i += 1;
                }
                params.push(t.text.clone());
            } else if !t.is(",") {
                return Err(format!("unexpected `{}` in the macro parameter list", t.text));
            }
            i += 1;
        }
        let mut body: Vec<Tok> = rest[i..].to_vec();
        if let Some(f) = body.first_mut() {
            f.space = false;
        }
        Ok((
            name,
            Macro {
                params: Some(params),
                variadic,
                body,
            },
        ))
    } else {
        let mut body: Vec<Tok> = rest[1..].to_vec();
        if let Some(f) = body.first_mut() {
            f.space = false;
        }
        Ok((
            name,
            Macro {
                params: None,
                variadic: false,
                body,
            },
        ))
    }
}
