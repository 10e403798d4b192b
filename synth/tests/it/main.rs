//! The integration tests of `synth`, one test binary: `cargo test --release -p synth --test it`;
//! `-- MODULE::` after it runs one module.

mod brute_force;
mod loop_instances;
mod synthesis;
mod uniform_regions;
