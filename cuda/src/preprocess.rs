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

mod directives;
mod expand;
mod if_expr;
mod include;
mod lexer;

use directives::directive_end;
use lexer::{Kind, Tok, lex, may_fuse, text_of, tokens_of};

pub(crate) use if_expr::int_literal;

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
