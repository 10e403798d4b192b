//! The textual `.kpl` syntax (docs/semantics.md, Kernels and labels): a pest parser and a
//! printer that round-trip.

mod parser;
mod printer;

pub use parser::{ParseError, parse};
pub use printer::{expr as print_expr, print, print_kernel, stmt as print_stmt};
