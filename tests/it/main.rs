//! The integration tests of the `autosync` binary, one test binary (`cargo test --test
//! it`; `cargo test --test it -- cli::` runs one module). The corpus is the `corpus`
//! binary (`tests/corpus.rs`). Helpers shared by the modules are in `common`.

mod common;

mod adoption;
mod beyond;
mod cache;
mod call_chains;
mod cli;
mod code_size;
mod confirm;
mod cost;
mod cuda;
mod grid_barriers;
mod grouping;
mod header_locations;
mod interrupt;
mod lsp;
mod partial;
mod partial_fix;
mod resynthesis;
mod sarif;
mod semantics;
mod show;
mod test_binaries;
mod uniform_regions;
mod ux;
mod walk;
mod warp_barriers;
mod words;
