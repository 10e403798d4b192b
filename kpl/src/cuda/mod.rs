//! The CUDA front end: `.cu` files to KPL kernels, with a source map for rewriting.
//!
//! preprocess → parse → lower:
//! - [`preprocess`]: includes, macros and conditionals, keeping the origin of every
//!   byte ([`source_map`]).
//! - `parse`: tree-sitter-cuda on the preprocessed text.
//! - `lower`: every `__global__` function (every instantiation of a template kernel) to
//!   a [`Kernel`].

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
    /// Extra object-like macros (`-D NAME=VALUE`).
    pub defines: Vec<(String, String)>,
}

pub mod lower;
pub mod program;
pub mod types;

use std::path::Path;

use crate::ir::Kernel;
pub use lower::Lowered;
use source_map::SourceMap;

/// A translated file: its kernels and the source map back to the text.
#[derive(Clone, Debug)]
pub struct Translation {
    pub kernels: Vec<Lowered>,
    pub map: SourceMap,
}

/// Translates the `.cu` file `text` (read from `path`, whose folder is searched for
/// `#include "..."`) to KPL, with notes for the user.
pub fn translate(path: &Path, text: &str, opts: &Options) -> Result<Translation, CudaError> {
    let map = preprocess::preprocess(path, text, opts)?;
    let tree = program::parse_tree(&map)?;
    let kernels = {
        let prog = program::Program::new(&tree, &map)?;
        lower::lower_all(&prog, opts)?
    };
    Ok(Translation { kernels, map })
}

/// The kernels of a `.cu` file (see [`translate`]).
pub fn parse(path: &Path, text: &str, opts: &Options) -> Result<Vec<Kernel>, CudaError> {
    Ok(translate(path, text, opts)?
        .kernels
        .into_iter()
        .map(|l| l.kernel)
        .collect())
}
