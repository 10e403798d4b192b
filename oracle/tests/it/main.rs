//! The integration tests of `oracle`, one test binary: `cargo test --release -p oracle --test it`;
//! `-- MODULE::` after it runs one module (helpers shared by the modules are in `common`).

mod common;

mod deviations;
mod dynamic;
mod grid;
mod interrupt;
mod module_graph;
mod replay;
mod solver_limits;
mod uniform_places;
mod verifier_affine;
mod verifier_atomics;
mod verifier_benign;
mod verifier_cache;
mod verifier_concrete;
mod verifier_ctypes;
mod verifier_digits;
mod verifier_gpuverify;
mod verifier_invariants;
mod verifier_kernels;
mod verifier_lanes;
mod verifier_lazy_invariants;
mod verifier_lemmas;
mod verifier_loops;
mod verifier_paper;
mod verifier_preconditions;
mod verifier_props;
mod verifier_radix;
mod verifier_screening;
mod verifier_semantics;
mod verifier_typed;
mod verifier_uniform;
mod verifier_unrolled;
mod warps;
