//! The C preprocessor, as much of it as CUDA kernels use: `#include "..."` (the file's
//! folder, then the `-I` folders; `<...>` in the `-I` folders, then the file's folder;
//! well-known system or SDK helper headers
//! are skipped when not found), object-like and function-like `#define`s (with `#`,
//! `##` and `__VA_ARGS__`), `#undef`, `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif`
//! with `defined` and constant expressions, `#pragma once`, `#error`; other `#pragma`s
//! (`unroll`) and `#line` are dropped.
//!
//! The output is one text for tree-sitter to parse plus a [`SourceMap`] that says where
//! each byte came from, so spans, diagnostics and rewrites refer to the files as the
//! user wrote them. Macro calls are replaced by their expansion; the rest is copied
//! byte for byte. Directive lines and inactive groups are left out.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::Options;
use super::error::{CudaError, ErrorKind};
use super::source_map::{Origin, Segment, SourceFile, SourceMap};

/// Runs the preprocessor on the main file `text` (read from `path`).
pub fn preprocess(path: &Path, text: &str, opts: &Options) -> Result<SourceMap, CudaError> {
    let mut pp = Preprocessor {
        opts,
        macros: HashMap::new(),
        files: vec![SourceFile::new(path.to_path_buf(), text.to_string(), None)],
        out: String::with_capacity(text.len() + 1024),
        segments: Vec::new(),
        once: HashSet::new(),
        depth: 0,
        expansions: 0,
        tokens: 0,
        notes: Vec::new(),
        missing: Vec::new(),
        uncertain: Vec::new(),
    };
    // The header comment's `-D` flags, then the caller's (which win).
    let mut defines = predefined(opts);
    let from_options = defines.split_off(defines.len() - opts.defines.len());
    defines.extend(kpl::header::header_defines(text));
    defines.extend(from_options);
    for (name, value) in defines {
        let body = tokens_of(&value);
        pp.macros.insert(
            name,
            Macro {
                params: None,
                variadic: false,
                body,
            },
        );
    }
    // `-U NAME` removes a predefined, header or `-D` macro of that name.
    for name in &opts.undefines {
        pp.macros.remove(name);
    }
    // CUDA keywords the grammar does not know, and that do not matter for races.
    for (name, params, body) in [
        ("__align__", Some(vec!["n".to_string()]), ""),
        ("__builtin_align__", Some(vec!["n".to_string()]), ""),
        ("__inline__", None, "inline"),
        ("__restrict", None, "__restrict__"),
        ("__cudart_builtin__", None, ""),
    ] {
        pp.macros.insert(
            name.to_string(),
            Macro {
                params,
                variadic: false,
                body: tokens_of(body),
            },
        );
    }
    for path in &opts.forced_includes {
        pp.force_include(path)?;
    }
    pp.run_file(0)?;
    Ok(SourceMap {
        files: pp.files,
        text: pp.out,
        segments: pp.segments,
        notes: pp.notes,
        unread: pp.missing,
        uncertain: pp.uncertain,
    })
}

/// What a current nvcc (CUDA 13.0, its default `sm_75` target, C++17, on x86-64 Linux)
/// predefines in the device pass that autosync analyses, and what the skipped CUDA
/// runtime headers would define (`CUDART_VERSION`). Code chooses its path by these
/// (`#if __CUDACC_VER_MAJOR__ < 12` fallbacks, `#if __CUDA_ARCH__ >= 800`): leaving one
/// out takes the path of a compiler nobody uses. `-D` changes a value (`-D__CUDA_ARCH__=800`,
/// or the `-arch` of a compilation database entry), `-U` removes it; `docs/cli.md` lists
/// them. The host compiler's own macros (`__GNUC__`) are not predefined.
pub const PREDEFINED: &[(&str, &str)] = &[
    ("__CUDACC__", "1"),
    ("__NVCC__", "1"),
    ("__CUDACC_VER_MAJOR__", "13"),
    ("__CUDACC_VER_MINOR__", "0"),
    ("__CUDACC_VER_BUILD__", "88"),
    ("__CUDA_ARCH__", "750"),
    ("__CUDA_ARCH_LIST__", "750"),
    ("CUDART_VERSION", "13000"),
    ("__cplusplus", "201703L"),
    ("__linux__", "1"),
    ("__x86_64__", "1"),
    ("__LP64__", "1"),
    ("__CHAR_BIT__", "8"),
    ("CUDART_CB", ""),
    ("CUDA_CB", ""),
    ("__AUTOSYNC__", "1"),
];

/// [`PREDEFINED`], then the user's macros (`Options::defines`).
fn predefined(opts: &Options) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = PREDEFINED
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    v.extend(opts.defines.iter().cloned());
    v
}

/// Headers that come with the compiler, the C library or the CUDA SDK samples: skipped
/// when they are not found (what they declare is known to the front end or havocked).
const KNOWN_HEADERS: &[&str] = &[
    "cuda.h",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "device_launch_parameters.h",
    "device_functions.h",
    "device_types.h",
    "driver_types.h",
    "vector_types.h",
    "vector_functions.h",
    "math_functions.h",
    "math_constants.h",
    "sm_11_atomic_functions.h",
    "sm_12_atomic_functions.h",
    "sm_13_double_functions.h",
    "sm_20_atomic_functions.h",
    "sm_20_intrinsics.h",
    "sm_30_intrinsics.h",
    "sm_32_intrinsics.h",
    "sm_35_intrinsics.h",
    "texture_fetch_functions.h",
    "texture_types.h",
    "surface_functions.h",
    "cuda_fp16.h",
    "cooperative_groups.h",
    "cooperative_groups/reduce.h",
    "curand.h",
    "curand_kernel.h",
    "cufft.h",
    "cublas.h",
    "cublas_v2.h",
    "cutil.h",
    "cutil_inline.h",
    "cutil_math.h",
    "multithreading.h",
    "helper_cuda.h",
    "helper_functions.h",
    "helper_math.h",
    "helper_string.h",
    "helper_timer.h",
    "helper_image.h",
    "shrUtils.h",
    "shrQATest.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
    "math.h",
    "assert.h",
    "limits.h",
    "float.h",
    "stdint.h",
    "stddef.h",
    "stdbool.h",
    "time.h",
    "ctype.h",
    "iostream",
    "cstdio",
    "cstdlib",
    "cstring",
    "cmath",
    "cassert",
    "climits",
    "cfloat",
    "cstdint",
    "algorithm",
    "vector",
    "string",
];

fn is_known_header(name: &str) -> bool {
    KNOWN_HEADERS.contains(&name)
}

/// What a lexeme is, as far as the preprocessor cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    Number,
    /// A string or character literal.
    Literal,
    Punct,
    /// Blanks, comments, escaped newlines.
    Space,
    Newline,
    Other,
}

#[derive(Clone, Copy, Debug)]
struct Lexeme {
    kind: Kind,
    start: usize,
    end: usize,
}

const PUNCTS: &[&str] = &[
    "%:%:", "...", "<<=", ">>=", "->*", "##", "%:", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++",
    "--", "->", "::", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*",
];

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// The next lexeme of `text` at `pos` (`pos < text.len()`, on a char boundary).
fn lex(text: &str, pos: usize) -> Lexeme {
    let b = text.as_bytes();
    let n = b.len();
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let mk = |kind, end: usize| Lexeme {
        kind,
        start: pos,
        end,
    };
    let c = b[pos];
    match c {
        b'\n' => mk(Kind::Newline, pos + 1),
        b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
            let mut i = pos;
            while i < n && matches!(b[i], b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
                i += 1;
            }
            mk(Kind::Space, i)
        }
        b'\\' if at(pos + 1) == b'\n' => mk(Kind::Space, pos + 2),
        b'\\' if at(pos + 1) == b'\r' && at(pos + 2) == b'\n' => mk(Kind::Space, pos + 3),
        b'/' if at(pos + 1) == b'/' => {
            let mut i = pos + 2;
            while i < n && b[i] != b'\n' {
                // A line comment continues over an escaped newline.
                if b[i] == b'\\' && at(i + 1) == b'\n' {
                    i += 1;
                }
                i += 1;
            }
            mk(Kind::Space, i.min(n))
        }
        b'/' if at(pos + 1) == b'*' => {
            let end = text[pos + 2..].find("*/").map_or(n, |i| pos + 2 + i + 2);
            mk(Kind::Space, end)
        }
        b'"' | b'\'' => mk(Kind::Literal, literal_end(b, pos + 1, c)),
        _ if is_ident_start(c) => {
            let mut i = pos;
            while i < n && is_ident_char(b[i]) {
                i += 1;
            }
            let word = &text[pos..i];
            let next = at(i);
            if next == b'"' && word.ends_with('R') && matches!(word, "R" | "LR" | "uR" | "UR" | "u8R") {
                return mk(Kind::Literal, raw_string_end(text, i));
            }
            if (next == b'"' || next == b'\'') && matches!(word, "L" | "u" | "U" | "u8") {
                return mk(Kind::Literal, literal_end(b, i + 1, next));
            }
            mk(Kind::Ident, i)
        }
        _ if c.is_ascii_digit() || (c == b'.' && at(pos + 1).is_ascii_digit()) => {
            let mut i = pos + 1;
            while i < n {
                let d = b[i];
                let exponent_sign = matches!(d, b'+' | b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if exponent_sign || is_ident_char(d) || d == b'.' || (d == b'\'' && is_ident_char(at(i + 1)))
                {
                    i += 1;
                } else {
                    break;
                }
            }
            mk(Kind::Number, i)
        }
        _ if c.is_ascii_punctuation() => {
            let rest = &b[pos..];
            let len = PUNCTS
                .iter()
                .find(|p| rest.starts_with(p.as_bytes()))
                .map_or(1, |p| p.len());
            mk(Kind::Punct, pos + len)
        }
        _ => {
            let mut i = pos + 1;
            while i < n && !text.is_char_boundary(i) {
                i += 1;
            }
            mk(Kind::Other, i)
        }
    }
}

/// The end of a string or character literal whose opening quote is just before `i`
/// (an unterminated literal ends at the end of its line).
fn literal_end(b: &[u8], mut i: usize, quote: u8) -> usize {
    while i < b.len() {
        match b[i] {
            // Skip the escaped character, all of it (it may be several bytes).
            b'\\' => {
                i += 2;
                while i < b.len() && (b[i] & 0xC0) == 0x80 {
                    i += 1;
                }
            }
            b'\n' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The end of a raw string literal `R"delim( ... )delim"` whose `"` is at `quote`.
fn raw_string_end(text: &str, quote: usize) -> usize {
    let rest = &text[quote + 1..];
    let Some(open) = rest.find('(') else {
        return text.len();
    };
    let delim = &rest[..open];
    let close = format!("){delim}\"");
    rest[open..]
        .find(&close)
        .map_or(text.len(), |i| quote + 1 + open + i + close.len())
}

/// A token in a macro body, an argument or an `#if` line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tok {
    kind: Kind,
    text: String,
    /// Blanks before it in the source.
    space: bool,
    /// Never expand this identifier again (it named a macro being expanded).
    painted: bool,
}

impl Tok {
    fn new(kind: Kind, text: &str, space: bool) -> Tok {
        Tok {
            kind,
            text: text.to_string(),
            space,
            painted: false,
        }
    }

    fn is(&self, s: &str) -> bool {
        self.kind != Kind::Literal && self.text == s
    }
}

/// The tokens of a piece of text (blanks, comments and newlines become `space` flags).
fn tokens_of(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut space = false;
    while pos < text.len() {
        let lx = lex(text, pos);
        match lx.kind {
            Kind::Space | Kind::Newline => space = true,
            k => {
                out.push(Tok::new(k, &text[lx.start..lx.end], space));
                space = false;
            }
        }
        pos = lx.end.max(pos + 1);
    }
    out
}

/// Whether two characters side by side could be read as one token.
fn may_fuse(a: Option<u8>, b: Option<u8>) -> bool {
    let separate = |c: u8| matches!(c, b'(' | b')' | b'[' | b']' | b'{' | b'}' | b';' | b',');
    match (a, b) {
        (Some(a), Some(b)) => {
            (is_ident_char(a) && is_ident_char(b))
                || (a.is_ascii_punctuation() && b.is_ascii_punctuation() && !separate(a) && !separate(b))
                || (a == b'.' && b.is_ascii_digit())
        }
        _ => false,
    }
}

/// Joins tokens back into text, with a blank wherever the source had one or where two
/// tokens would otherwise fuse.
fn text_of(toks: &[Tok]) -> String {
    let mut s = String::new();
    for t in toks {
        let fuse = may_fuse(s.as_bytes().last().copied(), t.text.as_bytes().first().copied());
        if !s.is_empty() && (t.space || fuse) {
            s.push(' ');
        }
        s.push_str(&t.text);
    }
    s
}

#[derive(Clone, Debug)]
struct Macro {
    /// `None` for an object-like macro.
    params: Option<Vec<String>>,
    variadic: bool,
    body: Vec<Tok>,
}

/// One level of `#if` nesting.
#[derive(Clone, Copy, Debug)]
struct Cond {
    /// The enclosing groups are active.
    parent: bool,
    /// This group is being taken.
    taking: bool,
    /// Some group of this `#if` chain has been taken.
    done: bool,
    seen_else: bool,
    /// Where the `#if` is (file offset), for "unterminated" errors.
    at: usize,
    /// Some condition of the chain tested a macro that nothing read defines, after a
    /// part of the file was not read (`SourceMap::uncertain`).
    uncertain: bool,
}

const MAX_INCLUDE_DEPTH: usize = 40;
const MAX_EXPANSIONS: usize = 200_000;
const MAX_MACRO_DEPTH: usize = 200;
/// Tokens all macro expansions of a file may produce (guards against exponential macros).
const MAX_TOKENS: usize = 2_000_000;

struct Preprocessor<'o> {
    opts: &'o Options,
    macros: HashMap<String, Macro>,
    files: Vec<SourceFile>,
    out: String,
    segments: Vec<Segment>,
    /// Files that said `#pragma once`.
    once: HashSet<PathBuf>,
    depth: usize,
    expansions: usize,
    tokens: usize,
    /// File-level notes for the report (a header not found, an `#error` read past).
    notes: Vec<String>,
    /// What was not read (`SourceMap::unread`).
    missing: Vec<String>,
    /// `SourceMap::uncertain`.
    uncertain: Vec<(usize, Range<usize>)>,
}

impl Preprocessor<'_> {
    /// Where a directive is, for a note: `file.cu:12`.
    fn place(&self, file: usize, at: usize) -> String {
        let f = &self.files[file];
        format!("{}:{}", f.path.display(), f.line_col(at).0)
    }

    fn error(
        &self,
        kind: ErrorKind,
        file: usize,
        at: usize,
        construct: &str,
        message: impl Into<String>,
    ) -> CudaError {
        let f = &self.files[file];
        CudaError::new(kind, f.path.clone(), f.line_col(at), construct, message)
    }

    /// Copies `range` of `file` to the output.
    fn copy(&mut self, file: usize, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        let out = self.out.len();
        self.out.push_str(&self.files[file].text[range.clone()]);
        if let Some(Segment {
            out: last,
            origin: Origin::Verbatim { file: f, start },
        }) = self.segments.last_mut()
            && *f == file
            && last.end == out
            && *start + last.len() == range.start
        {
            last.end = self.out.len();
            return;
        }
        self.segments.push(Segment {
            out: out..self.out.len(),
            origin: Origin::Verbatim {
                file,
                start: range.start,
            },
        });
    }

    /// Writes the expansion of the macro call at `call` of `file`.
    fn emit_expansion(&mut self, file: usize, call: Range<usize>, toks: &[Tok]) {
        let mut text = text_of(toks);
        if text.is_empty() {
            return;
        }
        // Keep the expansion from fusing with the text around it.
        let before = self.out.as_bytes().last().copied();
        let after = self.files[file].text.as_bytes().get(call.end).copied();
        if may_fuse(before, text.as_bytes().first().copied()) {
            text.insert(0, ' ');
        }
        if may_fuse(text.as_bytes().last().copied(), after) {
            text.push(' ');
        }
        let out = self.out.len();
        self.out.push_str(&text);
        self.segments.push(Segment {
            out: out..self.out.len(),
            origin: Origin::Macro { file, call },
        });
    }

    fn run_file(&mut self, file: usize) -> Result<(), CudaError> {
        let text = self.files[file].text.clone();
        let mut pos = 0;
        let mut line_start = true;
        let mut conds: Vec<Cond> = Vec::new();
        while pos < text.len() {
            let lx = lex(&text, pos);
            let word = &text[lx.start..lx.end];
            if line_start && lx.kind == Kind::Punct && (word == "#" || word == "%:") {
                let end = directive_end(&text, lx.end);
                self.directive(file, &text, lx.start..end, &mut conds)?;
                pos = end;
                continue;
            }
            let active = conds.iter().all(|c| c.parent && c.taking);
            match lx.kind {
                Kind::Newline => line_start = true,
                Kind::Space => {}
                _ => line_start = false,
            }
            if !active {
                pos = lx.end;
                continue;
            }
            if lx.kind == Kind::Ident && self.macros.contains_key(word) {
                pos = self.expand_call(file, &text, lx)?;
            } else {
                self.copy(file, lx.start..lx.end);
                pos = lx.end;
            }
        }
        if let Some(c) = conds.last() {
            return Err(self.error(
                ErrorKind::Preprocessor,
                file,
                c.at,
                "#if",
                "this conditional group has no `#endif`",
            ));
        }
        Ok(())
    }

    /// Expands the macro named by `lx` in the file text; returns where the call ends.
    fn expand_call(&mut self, file: usize, text: &str, lx: Lexeme) -> Result<usize, CudaError> {
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
    fn expand_list(&mut self, toks: Vec<Tok>, disabled: &[String], depth: usize) -> Result<Vec<Tok>, String> {
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

    fn directive(
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

    fn include(
        &mut self,
        file: usize,
        line: &str,
        range: Range<usize>,
        rest: &[Tok],
    ) -> Result<(), CudaError> {
        let expanded;
        let rest = if rest.first().is_some_and(|t| t.kind == Kind::Ident) {
            expanded = self
                .expand_list(rest.to_vec(), &[], 0)
                .map_err(|m| self.error(ErrorKind::Preprocessor, file, range.start, line, m))?;
            &expanded[..]
        } else {
            rest
        };
        let (name, quoted) = match rest.first() {
            Some(t) if t.kind == Kind::Literal && t.text.starts_with('"') => {
                (t.text.trim_matches('"').to_string(), true)
            }
            Some(t) if t.is("<") => {
                let inner: String = rest[1..]
                    .iter()
                    .take_while(|t| !t.is(">"))
                    .map(|t| t.text.as_str())
                    .collect();
                (inner, false)
            }
            _ => {
                return Err(self
                    .error(
                        ErrorKind::Preprocessor,
                        file,
                        range.start,
                        line,
                        "malformed `#include`",
                    )
                    .with_help("write `#include \"file.h\"` or `#include <file.h>`"));
            }
        };
        let here = self.files[file]
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut dirs: Vec<PathBuf> = Vec::new();
        if quoted {
            dirs.push(here.clone());
        }
        dirs.extend(self.opts.include_dirs.iter().cloned());
        if !quoted && !is_known_header(&name) {
            // `#include <common.h>` for a header next to the file (benchmark collections
            // are built with `-I` of their own folders): the including file's folder last.
            dirs.push(here);
        }
        let found = dirs.iter().map(|d| d.join(&name)).find(|p| p.is_file());
        let Some(path) = found else {
            if !quoted || is_known_header(&name) || is_known_header(name.rsplit('/').next().unwrap_or("")) {
                return Ok(());
            }
            // A header of the project or a library that is not on this machine
            // (`cudaEGL.h`, a generated config): what it declares is unknown, which the
            // lowering over-approximates (unknown calls, arbitrary values).
            let place = self.place(file, range.start);
            self.notes.push(format!(
                "{place}: cannot find the included file \"{name}\": a kernel that uses a name nothing \
                 declares (which may be one of its macros) is unsupported, and the kernels are checked for \
                 every launch (one may be in its macros); pass its folder with `-I DIR` to read it"
            ));
            self.missing
                .push(format!("the header \"{name}\", which was not found"));
            return Ok(());
        };
        let key = canonical(&path);
        if self.once.contains(&key) {
            return Ok(());
        }
        if self.depth >= MAX_INCLUDE_DEPTH {
            return Err(self.error(
                ErrorKind::Preprocessor,
                file,
                range.start,
                line,
                "`#include` nested too deeply (does the header include itself without a guard?)",
            ));
        }
        let bytes = std::fs::read(&path).map_err(|e| {
            self.error(
                ErrorKind::Io,
                file,
                range.start,
                line,
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        self.files.push(SourceFile::new(path, text, Some((file, range))));
        let index = self.files.len() - 1;
        self.depth += 1;
        let r = self.run_file(index);
        self.depth -= 1;
        // Keep the last line of the header apart from what follows the directive.
        if !self.out.ends_with('\n') {
            let at = self.files[index].text.len();
            self.emit_newline(index, at);
        }
        r
    }

    /// `-include FILE`: the file is read as if the main file began with an `#include`
    /// of it (its errors are located at the main file's start when it cannot be read).
    fn force_include(&mut self, path: &Path) -> Result<(), CudaError> {
        let bytes = std::fs::read(path).map_err(|e| {
            self.error(
                ErrorKind::Io,
                0,
                0,
                "-include",
                format!("cannot read the forced include {}: {e}", path.display()),
            )
        })?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        self.files
            .push(SourceFile::new(path.to_path_buf(), text, Some((0, 0..0))));
        let index = self.files.len() - 1;
        self.depth += 1;
        let r = self.run_file(index);
        self.depth -= 1;
        if !self.out.ends_with('\n') {
            let at = self.files[index].text.len();
            self.emit_newline(index, at);
        }
        r
    }

    fn emit_newline(&mut self, file: usize, at: usize) {
        let out = self.out.len();
        self.out.push('\n');
        self.segments.push(Segment {
            out: out..out + 1,
            origin: Origin::Macro { file, call: at..at },
        });
    }
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
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
fn directive_end(text: &str, from: usize) -> usize {
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
fn parse_define(rest: &[Tok]) -> Result<(String, Macro), String> {
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

/// The integer value of a C literal (`42`, `0x1F`, `010`, `7u`, `'a'`).
pub(crate) fn int_literal(text: &str) -> Option<i64> {
    let t = text.replace('\'', "");
    if text.starts_with('\'') || text.starts_with("L'") || text.starts_with("u'") || text.starts_with("U'") {
        let inner = text.split_once('\'')?.1.strip_suffix('\'')?;
        return char_value(inner);
    }
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16)
            .ok()
            .or_else(|| u64::from_str_radix(h, 16).ok().map(|v| v as i64))
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        i64::from_str_radix(b, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse::<i64>().ok()
    }
}

fn char_value(inner: &str) -> Option<i64> {
    let mut chars = inner.chars();
    let c = chars.next()?;
    if c != '\\' {
        return Some(c as i64);
    }
    let e = chars.next()?;
    Some(match e {
        'n' => 10,
        't' => 9,
        'r' => 13,
        '0'..='7' => i64::from_str_radix(&inner[1..], 8).ok()?,
        'x' => i64::from_str_radix(&inner[2..], 16).ok()?,
        'a' => 7,
        'b' => 8,
        'f' => 12,
        'v' => 11,
        other => other as i64,
    })
}

/// A `#if` expression over macro-expanded tokens (identifiers left are 0).
struct IfExpr<'t> {
    toks: &'t [Tok],
    pos: usize,
}

impl IfExpr<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.peek().is_some_and(|t| t.is(s)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> Result<i64, String> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return Err("expected `:` in the `#if` expression".into());
            }
            let b = self.ternary()?;
            return Ok(if c != 0 { a } else { b });
        }
        Ok(c)
    }

    fn binary(&mut self, min: u8) -> Result<i64, String> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek().map(|t| t.text.clone()) {
            let prec = match op.as_str() {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => break,
            };
            if prec <= min {
                break;
            }
            self.pos += 1;
            let rhs = self.binary(prec)?;
            lhs = match op.as_str() {
                "||" => (lhs != 0 || rhs != 0) as i64,
                "&&" => (lhs != 0 && rhs != 0) as i64,
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => (lhs == rhs) as i64,
                "!=" => (lhs != rhs) as i64,
                "<" => (lhs < rhs) as i64,
                ">" => (lhs > rhs) as i64,
                "<=" => (lhs <= rhs) as i64,
                ">=" => (lhs >= rhs) as i64,
                "<<" => lhs.wrapping_shl(rhs as u32),
                ">>" => lhs.wrapping_shr(rhs as u32),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" if rhs == 0 => return Err("division by zero in the `#if` expression".into()),
                "/" => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<i64, String> {
        let Some(t) = self.peek().cloned() else {
            return Err("the `#if` expression ends too early".into());
        };
        self.pos += 1;
        match t.kind {
            Kind::Punct if t.text == "!" => Ok((self.unary()? == 0) as i64),
            Kind::Punct if t.text == "-" => Ok(self.unary()?.wrapping_neg()),
            Kind::Punct if t.text == "+" => self.unary(),
            Kind::Punct if t.text == "~" => Ok(!self.unary()?),
            Kind::Punct if t.text == "(" => {
                let v = self.ternary()?;
                if !self.eat(")") {
                    return Err("expected `)` in the `#if` expression".into());
                }
                Ok(v)
            }
            Kind::Number | Kind::Literal => int_literal(&t.text)
                .ok_or_else(|| format!("`{}` is not an integer in the `#if` expression", t.text)),
            Kind::Ident => Ok((t.text == "true") as i64),
            _ => Err(format!("unexpected `{}` in the `#if` expression", t.text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pp(text: &str) -> SourceMap {
        preprocess(Path::new("t.cu"), text, &Options::default()).unwrap()
    }

    #[test]
    fn object_and_function_macros() {
        let m = pp("#define N 16\n#define IDX(a, b) ((a) * N + (b))\nx = s[IDX(i, j)];\n");
        assert_eq!(m.text, "\n\nx = s[((i) * 16 + (j))];\n");
        // The expansion maps back to the call.
        let at = m.text.find("16").unwrap();
        assert_eq!(m.describe(at), (PathBuf::from("t.cu"), 3, 7));
    }

    #[test]
    fn conditionals() {
        let src = "#define A 2\n#if A > 1 && defined(A)\nyes\n#elif 1\nno\n#else\nno\n#endif\n#ifndef B\nb\n#endif\n#if 0\n#error no\n#endif\n";
        // Directive lines leave their newline.
        assert_eq!(pp(src).text, "\n\nyes\n\n\nb\n\n\n");
    }

    #[test]
    fn stringify_paste_variadic_and_recursion() {
        let m = pp(
            "#define S(x) #x\n#define P(a,b) a##b\n#define V(f, ...) f(__VA_ARGS__)\n#define R R + 1\nS(a \"b\"); P(x,1); V(g, 1, 2); R;\n",
        );
        assert_eq!(m.text, "\n\n\n\n\"a \\\"b\\\"\"; x1; g(1, 2); R + 1;\n");
    }

    #[test]
    fn errors() {
        // A header that is not found, and an `#error`, are notes: the file is read on.
        let m = pp("#include \"nope.h\"\n#ifndef X\n#error needs X\n#endif\ny\n");
        assert_eq!(m.text, "\n\n\n\ny\n");
        assert_eq!(m.unread.len(), 2, "{:?}", m.unread);
        assert_eq!(m.unread[0], "the header \"nope.h\", which was not found");
        assert_eq!(
            m.unread[1],
            "the configuration that the `#error` at t.cu:3 asks for"
        );
        assert_eq!(m.notes.len(), 2, "{:?}", m.notes);
        assert!(
            m.notes[0].starts_with("t.cu:1: cannot find the included file \"nope.h\""),
            "{:?}",
            m.notes
        );
        assert!(
            m.notes[1].starts_with("t.cu:3: the file stops compilation here"),
            "{:?}",
            m.notes
        );
        assert!(m.notes[1].contains("`#error needs X`"), "{:?}", m.notes);
        let e = preprocess(Path::new("t.cu"), "\n#if 1\n", &Options::default()).unwrap_err();
        assert_eq!((e.kind, e.line), (ErrorKind::Preprocessor, 2));
        let e = preprocess(Path::new("t.cu"), "#if 1 +\n#endif\n", &Options::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Preprocessor);
        // System headers are known and skipped.
        assert_eq!(
            pp("#include <cuda.h>\n#include \"cutil_inline.h\"\nx\n").text,
            "\n\nx\n"
        );
    }
}
