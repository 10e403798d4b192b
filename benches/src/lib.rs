//! The evaluation harness's building blocks: the kernels it measures, the measurement
//! of one kernel (both strategies, verified), the tables, the synthetic scalability
//! patterns of the Faial paper (seed 003, Fig. 17) and their plot, and the tail of
//! `check` times over the corpus (`tail`).

pub mod cost_study;
pub mod harness;
pub mod patterns;
pub mod plot;
pub mod suite;
pub mod tail;
