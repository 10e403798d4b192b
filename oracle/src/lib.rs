//! Correctness oracles: given a kernel, report its data races and divergent barriers
//! (docs/semantics.md). The synthesizer sees races only through the [`Oracle`] trait, so
//! any verifier that follows the SDV semantics can be plugged in.
//!
//! - [`dynamic::Interpreter`]: runs the kernel under the SDV semantics for concrete
//!   launches, parameters and memory contents. A testing oracle: every race it reports
//!   happens, but it can miss races outside the runs it tried.
//! - [`verifier::StaticVerifier`]: the static verifier (SMT through Z3). Sound: when it
//!   reports nothing, no race or divergence exists under the semantics.

use std::fmt;

use kpl::{Arith, Kernel, Label, LabelTree, Space, Span, StmtId};

pub mod dynamic;
pub mod interrupt;
pub mod replay;
pub mod verifier;

pub use replay::Replay;

/// Threads per block and blocks per grid, in x, y, z.
pub type Dim3 = kpl::launch::Dim3;

pub use kpl::launch::{Dims, Launch};

/// What the oracle may assume about a run: the launch (sizes, pinned parameters,
/// relations, warp lock step), the arithmetic, and what to work out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// The launch the kernel is checked for (merged from flags, header, host code,
    /// launch bounds; the kernel's own `requires` pins are merged in by the oracles).
    /// `warp_size`: threads of one warp of `N` run in lock step (legacy
    /// warp-synchronous code, seed 000 Sec. 3); `None`: no lock step below the block.
    pub launch: Launch,
    pub arith: Arith,
    /// GPUVerify's `--only-intra-group` (from a file's header comment): races between
    /// threads of different blocks are not checked. Unsound for such races by request.
    pub only_intra_group: bool,
    /// Work out [`Race::warp_local`] (for `fix --warp-barriers`); off, every race is
    /// reported not warp-local and the check costs nothing extra.
    pub classify_warps: bool,
    /// Work out [`Race::forward_only`] (for synthesis: one more query per racing pair and
    /// depth found across iterations); off, it stays empty.
    pub race_directions: bool,
    /// GPUVerify's `--no-benign-tolerance`: report every write-write pair of distinct
    /// threads on one element. Off (the default, as GPUVerify), two plain writes race only
    /// when the values they store may differ (`found[0] = 1` by every thread is benign);
    /// read-write and atomic-write pairs race whatever the values.
    pub no_benign_tolerance: bool,
    /// Values wrap around at the width of their C type (`--wrap` on a CUDA file: the
    /// front end writes the wrapping as conversions and `arith` stays
    /// [`Arith::Unbounded`]). Reasoning that holds for unbounded arithmetic only is
    /// off: repetition-free counters, whose slots repeat once a counter wraps.
    pub wrapping: bool,
}

impl CheckOptions {
    /// The warp size `__syncwarp()` synchronizes: the `--warp-size`, else CUDA's 32.
    pub fn warp_barrier_size(&self) -> u32 {
        self.launch.warp_barrier_size()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessKind {
    Read,
    Write,
    Atomic,
}

impl AccessKind {
    /// Two accesses of one element by distinct threads race unless both read or both
    /// are atomic (atomics write).
    pub fn conflicts_with(self, other: AccessKind) -> bool {
        use AccessKind::*;
        !matches!((self, other), (Read, Read) | (Atomic, Atomic))
    }

    pub fn word(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
        }
    }
}

/// One side of a race: which statement, how it touches memory, where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Access {
    pub stmt: StmtId,
    pub kind: AccessKind,
    pub span: Span,
}

/// A thread of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct ThreadId {
    pub tid: Dim3,
    pub bid: Dim3,
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |d: &Dim3| {
            if d[1] == 0 && d[2] == 0 {
                d[0].to_string()
            } else {
                format!("({}, {}, {})", d[0], d[1], d[2])
            }
        };
        write!(f, "thread {} of block {}", show(&self.tid), show(&self.bid))
    }
}

/// A concrete execution that exhibits a defect, for diagnostics.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Witness {
    /// The thread performing the first (resp. second) access, or the enabled and the
    /// disabled thread at a divergent barrier.
    pub threads: [ThreadId; 2],
    /// The array element both accesses touch (races only).
    pub index: Option<i64>,
    /// Iteration numbers (0-based) of the enclosing loops, outermost first, at each access.
    pub iterations: [Vec<u64>; 2],
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    /// Values of the scalar parameters.
    pub params: Vec<(String, i64)>,
}

/// A racing pair of statements (the paper's race location), with what the oracle knows
/// about when the race can happen.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Race {
    pub array: String,
    pub space: Space,
    /// The access that comes first in program text order (`≺`).
    pub first: Access,
    pub second: Access,
    /// The race can happen within one iteration of every common loop (always true of a
    /// simple race, whose statements share no loop).
    pub intra: bool,
    /// Depths `j` (1 = outermost common loop) at which the race can happen across
    /// iterations: the two accesses are in different iterations of common loop `j` and
    /// the same iteration of the loops around it.
    pub inter: Vec<usize>,
    /// Of `inter`, the depths at which the race only happens with the first access (in
    /// program text order) in the earlier iteration: a barrier between the accesses in
    /// program order orders them too. Only computed under
    /// [`CheckOptions::race_directions`] by the static verifier, which proves it (an
    /// undecided direction counts as racing); empty otherwise.
    pub forward_only: Vec<usize>,
    /// False when no barrier can order the two accesses (threads of different blocks).
    pub fixable: bool,
    /// Every occurrence of the race is between two threads of one warp (of
    /// [`CheckOptions::warp_barrier_size`] threads), so a warp barrier can order it.
    /// Only computed under [`CheckOptions::classify_warps`] (false otherwise). The static
    /// verifier proves it (undecided counts as false); the interpreter only saw it.
    pub warp_local: bool,
    pub witness: Option<Witness>,
    /// What running the witness showed ([`replay`]): `None` until replayed.
    pub replay: Option<Replay>,
}

impl Race {
    /// The `kind` of the JSON report (docs/cli.md): `write-write`, `read-write`,
    /// `write-read`, `atomic-write`, ...
    pub fn kind(&self) -> String {
        format!("{}-{}", self.first.kind.word(), self.second.kind.word())
    }

    /// A race of a statement with itself.
    pub fn is_self_race(&self) -> bool {
        self.first.stmt == self.second.stmt
    }
}

/// A barrier that threads of one block can disagree on reaching.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Divergence {
    pub stmt: StmtId,
    pub span: Span,
    pub witness: Option<Witness>,
    /// What running the witness showed ([`replay`]): `None` until replayed.
    pub replay: Option<Replay>,
}

/// A write-write pair of statements that is not a race only because the two writes
/// store equal values whenever they touch one element unordered (GPUVerify's benign
/// races, [`CheckOptions::no_benign_tolerance`] off).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BenignPair {
    pub array: String,
    /// The write that comes first in program text order.
    pub first: Access,
    pub second: Access,
}

/// Everything an oracle found in one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Report {
    pub races: Vec<Race>,
    pub divergences: Vec<Divergence>,
    /// What limits the answer (loop bounds reached, runs skipped, ...), for the user.
    pub notes: Vec<String>,
    /// Write-write pairs judged benign because the values written are equal (in text
    /// order); empty under [`CheckOptions::no_benign_tolerance`].
    pub benign: Vec<BenignPair>,
}

impl Report {
    pub fn is_clean(&self) -> bool {
        self.races.is_empty() && self.divergences.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum OracleError {
    /// The kernel uses something this oracle cannot decide soundly.
    #[error("unsupported: {what}")]
    Unsupported { what: String, span: Span },
    #[error("timed out after {0} ms")]
    Timeout(u64),
    /// No run satisfies the kernel's preconditions and the options (dynamic oracle).
    #[error("no feasible run: {0}")]
    NoFeasibleRun(String),
    /// The run was cancelled ([`interrupt`]): no answer, not even a partial one.
    #[error("interrupted")]
    Interrupted,
}

/// A verifier the synthesizer can ask. `&mut self` lets implementations cache work
/// across the calls of one synthesis.
pub trait Oracle {
    /// A short name for reports (`static`, `dynamic`).
    fn name(&self) -> &'static str;

    /// Races and divergent barriers of `kernel` under the SDV semantics.
    fn check(&mut self, kernel: &Kernel) -> Result<Report, OracleError>;

    /// For each label of `after` (labels of `tree`, the tree of `kernel`): whether a
    /// barrier inserted after it would be reached alike by every thread of a block by
    /// this oracle's uniformity analysis alone (its guards, loop bounds, `return`s and
    /// `break`s before it are block-uniform), so that no divergence is possible there.
    /// A hint for the synthesizer (which places inside conditionals and loops are worth
    /// trying); every placement is still checked with [`Oracle::check`]. `None`: this
    /// oracle has no such analysis.
    fn uniform_places(&mut self, kernel: &Kernel, tree: &LabelTree, after: &[Label]) -> Option<Vec<bool>> {
        let _ = (kernel, tree, after);
        None
    }

    /// Replays the races and divergences of `report` (this oracle's answer for
    /// `kernel`) on the interpreter and records in each whether a run confirms it
    /// ([`replay`]). An oracle whose findings come from runs has them confirmed already.
    fn replay(&mut self, kernel: &Kernel, report: &mut Report) {
        let _ = (kernel, report);
    }
}

/// Orders a pair of accesses by program text order, as race locations are written.
pub fn in_text_order(tree: &LabelTree, a: Access, b: Access) -> (Access, Access, bool) {
    let pos = |s: StmtId| tree.label_of(s).map(|l| tree.node(l).post);
    if pos(b.stmt) < pos(a.stmt) {
        (b, a, true)
    } else {
        (a, b, false)
    }
}
