//! autosync's per-file pipeline as a library, data in → data out: what `autosync check`,
//! `fix` and `cost` do to one file, without the command line (no clap), without output
//! rendering and without writing files. The binary parses arguments into [`Settings`] /
//! [`FixSettings`], calls this crate per file, and renders what it returns; the
//! evaluation harness (`benches/`) loads its kernels through [`source`] too, so both
//! read files the same way.
//!
//! The modules follow the pipeline:
//! - [`compdb`]: compilation databases (`compile_commands.json`: per-file `-I`/`-D`/`-U`);
//! - [`inputs`]: the files a command works on (directories walked);
//! - [`source`]: loading one file (front end by extension, header comment);
//! - [`run`]: the oracle for a file ([`check_options`], [`make_oracle`]), the kernels
//!   selected ([`selected`]), checking ([`check_file`]) and fixing ([`fix_file`]);
//! - [`cost`]: the cost-model registry ([`cost::MODELS`]) and the comparison of the
//!   models on one file ([`cost::compare_file`]);
//! - [`cache`]: the persistent result cache (`--cache DIR`): the verifier's answers on
//!   disk, keyed by the lowered kernel, the options and the build of autosync;
//! - [`report`]: what the binary renders (the oracle's report types, spans, edits, the
//!   launch) and the guard of a divergent barrier: the binary depends on this crate alone.

pub mod cache;
pub mod compdb;
pub mod cost;
pub mod group;
pub mod inputs;
pub mod report;
pub mod run;
pub mod source;

pub use cost::ModelChoice;
pub use run::explain::{Explained, ExplainedRace, ExplainedRejection, races_phrase};
pub use run::fix::{EditInfo, FileFix, FixStatus, Inserted, KernelFix, fix, fix_file};
pub use run::{
    KernelCheck, Stage, Verdict, check_file, check_file_while, check_kernel, check_options, make_oracle,
    selected, selected_failed, show,
};
pub use source::{FailedKernel, FrontEnd, Lang, Source};

/// Cancelling runs (`oracle::interrupt`): the binary's signal handler cancels the
/// process-wide token, the editor server a check's own.
pub use oracle::interrupt;

/// The error of a run that was cancelled ([`interrupt`]) before it returned: whatever it
/// found is dropped (an interrupted solver query would read as a possible defect).
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// `out`, unless the thread's run was cancelled meanwhile: then [`Interrupted`].
pub(crate) fn unless_interrupted<T>(out: anyhow::Result<T>) -> anyhow::Result<T> {
    if interrupt::cancelled() {
        return Err(Interrupted.into());
    }
    out
}

/// [`Interrupted`] once the thread's run was cancelled: checked before each kernel.
pub(crate) fn stop_if_interrupted() -> anyhow::Result<()> {
    unless_interrupted(Ok(()))
}

/// The verifier used as oracle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OracleKind {
    /// `oracle::verifier::StaticVerifier`.
    #[default]
    Static,
    /// `oracle::dynamic::Interpreter`.
    Dynamic,
}

/// What every command needs besides the files: how to read them and what to ask the
/// oracle. Command-line values here win over a file's header comment.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// The CUDA front end's options (`-I`, `--alias`).
    pub front_end: FrontEnd,
    /// Only this kernel (`--kernel`; a template's name selects all its instantiations).
    pub kernel: Option<String>,
    pub oracle: OracleKind,
    /// Every solver limit of the static verifier times this (`--solver-budget`; none: 1).
    pub solver_budget: Option<f64>,
    /// Report write-write pairs that store equal values too (`--no-benign-tolerance`;
    /// `CheckOptions::no_benign_tolerance`).
    pub no_benign_tolerance: bool,
    /// Where the verifier's answers are kept and read again (`--cache`; [`cache`]).
    /// A new field that changes what the oracle answers goes into the cache's key:
    /// `run::oracle_config` names every field, so it does not compile until it is.
    pub cache: Option<std::sync::Arc<cache::ResultCache>>,
}

/// What `fix` does besides checking.
#[derive(Clone, Debug)]
pub struct FixSettings {
    /// Remove the movable barriers first, then synthesize from scratch.
    pub strip: bool,
    /// Only add barriers; do not report cheaper placements of the existing ones.
    pub keep_existing: bool,
    /// The naive baseline instead of the MaxSAT synthesis.
    pub naive: bool,
    pub cost_model: ModelChoice,
    /// LC of the paper model (also the bounds model's fallback).
    pub loop_cost: f64,
    /// IC of the paper model.
    pub cond_cost: f64,
    /// Algorithm 1 as published: no pruning by race types.
    pub faithful: bool,
    /// Also place warp barriers.
    pub warp_barriers: bool,
    /// A warp barrier's cost as a fraction of a block barrier's.
    pub warp_cost: f64,
    /// `--cooperative`: the kernels are launched cooperatively, so grid barriers may be
    /// placed (and `--strip` removes the existing ones too).
    pub cooperative: bool,
    /// A grid barrier's cost as a multiple of a block barrier's.
    pub grid_cost: f64,
    /// Where the synthesis records its rounds (`--show rounds`); `None`: not recorded.
    pub rounds: Option<std::sync::Arc<std::sync::Mutex<Vec<synth::Round>>>>,
}

impl Default for FixSettings {
    fn default() -> Self {
        FixSettings {
            strip: false,
            keep_existing: false,
            naive: false,
            cost_model: ModelChoice::default(),
            loop_cost: synth::PaperCost::DEFAULT_LC,
            cond_cost: synth::PaperCost::DEFAULT_IC,
            faithful: false,
            warp_barriers: false,
            warp_cost: synth::DEFAULT_WARP_COST,
            cooperative: false,
            grid_cost: synth::DEFAULT_GRID_COST,
            rounds: None,
        }
    }
}

impl FixSettings {
    /// The paper model with this run's LC and IC.
    pub fn paper(&self) -> synth::PaperCost {
        synth::PaperCost {
            loop_cost: self.loop_cost,
            cond_cost: self.cond_cost,
        }
    }
}
