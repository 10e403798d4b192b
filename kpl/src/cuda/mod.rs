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
