//! The integration tests of `kpl`, one test binary: `cargo test --release -p kpl --test it`;
//! `-- MODULE::` after it runs one module.

mod labels;
mod rewrite;
mod roundtrip;
