//! The evaluation harness's building blocks: the kernels it measures and the synthetic
//! scalability patterns of the Faial paper (seed 003, Fig. 17).

pub mod patterns;
pub mod suite;
