//! The integration tests of `cuda`, one test binary: `cargo test --release -p autosync-cuda --test it`;
//! `-- MODULE::` after it runs one module (helpers shared by the modules are in `common`).

mod common;

mod corpus_fixes;
mod errors;
mod files;
mod fuzz;
mod kernels;
mod layout;
mod lower;
mod rewrite;
