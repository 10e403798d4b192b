//! The kernel language of autosync: the KPL IR with statement labels, the label tree and
//! its intervals (AutoSync paper, Sec. III-A), the arithmetic both oracles share, the
//! textual `.kpl` syntax, and the text edits that write barriers back into a source file.
//!
//! Data flows one way: a front end (`syntax` for `.kpl`) produces [`ir::Kernel`]s; the
//! synthesizer builds a [`labels::LabelTree`] to name barrier positions; the rewriter
//! turns chosen labels into [`rewrite::Edit`]s on the original text.

pub mod arith;
pub mod ctype;
pub mod header;
pub mod ir;
pub mod labels;
pub mod launch;
pub mod rewrite;
pub mod split;
pub mod syntax;

pub use arith::Arith;
pub use ctype::IntTy;
pub use ir::*;
pub use labels::{Label, LabelTree, NodeKind, insert_barriers, insert_barriers_kinds, insert_barriers_of};
pub use launch::Launch;
pub use syntax::{ParseError, parse, print};
