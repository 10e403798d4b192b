//! The CUDA front end: `.cu` files to KPL kernels, with what the rewriter needs to put
//! barriers back into the text.
//!
//! The pipeline, one module per stage:
//! - [`preprocess`]: `#include`, `#define`, `#if` and friends, producing one text and a
//!   [`source_map`] that knows where every byte came from (a file, or a macro call).
//! - [`repair`]: parentheses (that keep the meaning) where tree-sitter-cuda misreads
//!   valid code (a `<` comparison taken for a template argument list, an assignment
//!   in a comma expression), with the source map kept exact.
//! - [`program`]: tree-sitter-cuda parses that text; syntax errors in device code are
//!   reported; functions, structs (and their template specializations), typedefs,
//!   file-scope variables, enumerators, explicit instantiations and launches are indexed.
//! - [`lower`]: every `__global__` function of the main file (every instantiation of a
//!   template kernel, `name<args>`) becomes a [`Kernel`]. Each KPL statement has the span
//!   of the C++ it came from and a [`Place`](kpl::ir::Place) for barriers: only the
//!   last statement of a C++ statement, and only text exactly in the main file, can have
//!   a barrier written after it; blocks say whether they have braces.
//!
//! The model, in short (details in [`lower`] and [`types`]):
//! - integers are exact, floating-point and unknown values arbitrary;
//! - every shared/global array is a KPL array of *cells*: one cell per scalar leaf, so a
//!   `float4` element is four cells (each field has its own slot, `index * 4 + field`),
//!   and multi-dimensional arrays are flattened row-major; pointer casts between element
//!   types address the same bytes;
//! - distinct pointer parameters are assumed not to alias (GPUVerify's assumption, noted
//!   in every report on a kernel with two or more non-`__restrict__` ones);
//!   [`Options::alias`] merges all non-`__restrict__` pointer parameters with the same
//!   element size into one array at symbolic offsets, which is sound;
//! - `__syncthreads()` is a barrier; `__syncwarp()` with the full mask (or none) is a
//!   warp barrier, with a partial mask no synchronization (which only over-approximates
//!   races); fences vanish; `__device__` functions are inlined; atomics are KPL atomics;
//!   `__requires`/`__assume` constrain, the other GPUVerify annotations are ignored.
//!   Builtins are lowered by family (`lower/builtins/`).
//!
//! Anything that cannot be lowered soundly is a [`CudaError`] with a location, never a
//! panic (`tests/it/fuzz.rs`).

pub mod error;
pub mod preprocess;
pub mod source_map;

use std::path::PathBuf;

pub use error::{CudaError, ErrorKind};

/// What the front end needs besides the file.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Folders searched for `#include "..."` after the including file's own folder, and
    /// for `#include <...>`.
    pub include_dirs: Vec<PathBuf>,
    /// Lower all non-`__restrict__` global pointer parameters of compatible element type
    /// to one array (sound when they may alias); by default distinct parameters are
    /// assumed not to alias, as GPUVerify does.
    pub alias: bool,
    /// Extra object-like macros (`-D NAME=VALUE`), after the file header's `-D` flags
    /// (so they win over them).
    pub defines: Vec<(String, String)>,
    /// Macros removed before the file is read (`-U NAME`): after every predefined,
    /// header and `defines` macro, so `-U` wins over a `-D` of the same name.
    pub undefines: Vec<String>,
    /// Files read before the main file, as if it began with `#include "FILE"` for each
    /// (`-include FILE` of a compilation database).
    pub forced_includes: Vec<PathBuf>,
    /// `--wrap`: every integer operation wraps in its C type (its result converted to
    /// the type), instead of being assumed not to overflow.
    pub wrap: bool,
    /// The launch given from outside the file's host code: command-line flags over the
    /// file's header comment. It wins over the launches the host code makes, and its warp
    /// size (`--warp-size`, the header's `--warp-sync`; `None`: CUDA's 32) decides whether
    /// a `thread_block_tile<32>`'s sync is a warp barrier.
    pub launch: kpl::Launch,
    /// `--launch symbolic`: do not read the kernels' launches from the host code (library
    /// kernels whose callers live elsewhere); `__launch_bounds__` still hold.
    pub symbolic_launch: bool,
}

pub mod host;
pub mod lower;
pub mod program;
pub mod repair;
pub mod split;
pub mod types;

use std::path::Path;

use kpl::ir::Kernel;
pub use lower::{ArrayOrigin, Lowered};
use source_map::SourceMap;

/// A translated file: its kernels and the source map back to the text.
#[derive(Clone, Debug)]
pub struct Translation {
    pub kernels: Vec<Lowered>,
    /// Kernels that could not be lowered ([`translate_each`] only; empty otherwise).
    pub failed: Vec<lower::Failed>,
    pub map: SourceMap,
}

/// Translates the `.cu` file `text` (read from `path`, whose folder is searched for
/// `#include "..."`) to KPL, with notes for the user. A kernel that cannot be lowered
/// fails the file; see [`translate_each`] for the kernels one by one.
pub fn translate(path: &Path, text: &str, opts: &Options) -> Result<Translation, CudaError> {
    let mut t = translate_each(path, text, opts)?;
    if t.failed.is_empty() {
        Ok(t)
    } else {
        Err(t.failed.swap_remove(0).error)
    }
}

/// Like [`translate`], but only file-level problems (preprocessing, syntax, the program
/// index) fail; a kernel that cannot be lowered is listed in [`Translation::failed`] and
/// the others are translated.
pub fn translate_each(path: &Path, text: &str, opts: &Options) -> Result<Translation, CudaError> {
    let map = preprocess::preprocess(path, text, opts)?;
    let tree = program::parse_tree(&map)?;
    let (map, tree) = repair::repaired(map, tree)?;
    let (kernels, failed) = {
        let prog = program::Program::new(&tree, &map)?;
        let (mut kernels, failed) = lower::lower_each(&prog, opts);
        // What the file as a whole made the front end assume concerns every kernel.
        let file_notes: Vec<String> = map.notes.iter().chain(&prog.notes).cloned().collect();
        for k in &mut kernels {
            k.notes.splice(0..0, file_notes.iter().cloned());
        }
        (kernels, failed)
    };
    Ok(Translation { kernels, failed, map })
}

/// The kernels of a `.cu` file (see [`translate`]).
pub fn parse(path: &Path, text: &str, opts: &Options) -> Result<Vec<Kernel>, CudaError> {
    Ok(translate(path, text, opts)?
        .kernels
        .into_iter()
        .map(|l| l.kernel)
        .collect())
}
