//! The integration tests of `driver`, one test binary: `cargo test --release -p autosync-driver --test it`;
//! `-- MODULE::` after it runs one module.

mod opaque_effects;
