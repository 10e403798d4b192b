//! The integration tests of `benches`, one test binary: `cargo test --release -p autosync-benches --test it`;
//! `-- MODULE::` after it runs one module.

mod suites;
