//! Barrier synthesis: the AutoSync algorithm (paper Sec. III, Algorithm 1) on Z3's
//! MaxSAT engine, and the naive baseline of Sec. IV-B.
//!
//! Both take a kernel, a correctness [`Oracle`] and a [`CostModel`], and return the
//! labels (of the input kernel's [`LabelTree`]) after which barriers must be inserted,
//! or the reason no barrier placement exists.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use kpl::split::SplitSite;
use kpl::{Kernel, Label, LabelTree, StmtId};
use oracle::{Oracle, OracleError, Race, Report};

pub mod autosync;
pub mod cost;
pub mod explain;
pub mod joint;
pub mod naive;
pub mod placement;
pub mod regions;

pub use autosync::synthesize;
pub use cost::{BoundsCost, CostModel, Launch, PaperCost, ProfileCost, TableCost};
pub use joint::{Joint, Member, synthesize_jointly};
pub use naive::naive;

/// Counters every synthesis reports (the paper's Table I/II columns).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub oracle_calls: u32,
    pub solver_calls: u32,
    /// Rounds of the refinement loop (candidate placements tried).
    pub iterations: u32,
    pub time: Duration,
    /// Of `time`, what the MaxSAT solver took (`Optimize::check`).
    pub solver_time: Duration,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The kernel is already race- and divergence-free: nothing inserted.
    AlreadyCorrect,
    /// Barriers after `Synthesis::inserted` make the kernel correct (oracle-checked).
    Fixed,
    /// No barrier-only placement exists (or none the oracle can verify).
    NoSolution(NoSolution),
}

/// Why synthesis gave up, in terms a user can act on.
#[derive(Clone, Debug, PartialEq)]
pub struct NoSolution {
    pub reason: String,
    /// The races no placement could remove (the last oracle answer).
    pub races: Vec<Race>,
}

#[derive(Clone, Debug)]
pub struct Synthesis {
    pub outcome: Outcome,
    /// Labels of the input kernel's tree after which a barrier is inserted, in program
    /// order: the placement when `Fixed`; with `NoSolution` because of races between
    /// blocks, the barriers that fix all the other races (a partial placement, for the
    /// report: it is not a fix); else empty.
    pub inserted: Vec<Label>,
    /// The input kernel with those barriers.
    pub kernel: Kernel,
    /// Cost of the result's barriers (existing ones included) under the cost model.
    pub cost: f64,
    pub stats: Stats,
    /// Notes the oracle attached to its answers (bounds reached, ...), deduplicated.
    pub notes: Vec<String>,
    /// What the refinement loop tried, for [`explain::explain`] (AutoSync runs that
    /// ended `Fixed`; `None` otherwise).
    pub trace: Option<explain::Trace>,
    /// The kernel the labels of `inserted` belong to: the input, or the input prepared
    /// for splitting self-racing statements ([`kpl::split::prepare`]). Build the label
    /// tree for rewriting from this one.
    pub input: Kernel,
    /// The labels among `inserted` that get a warp barrier (`__syncwarp()`) instead of a
    /// block barrier (only with [`SynthOptions::warp_barriers`]).
    pub warp: Vec<Label>,
    /// The labels among `inserted` that get a grid barrier
    /// (`cooperative_groups::this_grid().sync()`; only with [`SynthOptions::grid_barriers`]).
    pub grid: Vec<Label>,
    /// The statements prepared for splitting; a barrier at a label with
    /// [`kpl::Place::Split`] among `inserted` means splitting that statement.
    pub splits: Vec<SplitSite>,
}

#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error(transparent)]
    Oracle(#[from] OracleError),
    #[error("the solver that picks the cheapest placement gave up: {0}")]
    Solver(String),
    #[error("no placement found after {0} refinement rounds (limit reached)")]
    IterationLimit(u32),
    /// Options the strategy does not implement (the naive baseline places block barriers
    /// only).
    #[error("{0}")]
    Unsupported(&'static str),
}

/// Options shared by both strategies.
pub struct SynthOptions<'a> {
    pub cost: &'a dyn CostModel,
    /// Use the race types the oracle reports (intra-iteration, inter-iteration at depth
    /// j) to rule out placement options up front. Off = Algorithm 1 exactly as published.
    pub use_race_types: bool,
    pub max_iterations: u32,
    /// Whether the source can be rewritten to split a self-racing statement (the front
    /// end's check of its shape: an expression statement in braces, operands outside
    /// conditional evaluation, ...), with the reason when not. `None`: statements are
    /// never split (a read racing with the write of its own statement stays unfixable).
    pub split_check: Option<&'a SplitCheck<'a>>,
    /// Also place warp barriers (`__syncwarp()`), where every race a barrier must remove
    /// is between threads of one warp (`oracle::Race::warp_local`; the oracle must be
    /// asked with `CheckOptions::classify_warps`). Off: block barriers only.
    pub warp_barriers: bool,
    /// A warp barrier after `ℓ` costs `C(ℓ) · warp_cost` ([`DEFAULT_WARP_COST`]).
    pub warp_cost: f64,
    /// Beyond the paper: also place barriers inside conditionals and loops between the
    /// racing accesses whose guard is block-uniform by the oracle's analysis
    /// ([`regions`]). On by default; not with `warp_barriers` or `grid_barriers`.
    pub uniform_regions: bool,
    /// Beyond the paper, with `uniform_regions`: also place barriers in a loop around one
    /// of the racing accesses only (*loop-instance places*, [`regions::instance_places`]),
    /// and let a barrier between the accesses order a race across iterations that the
    /// oracle proved to happen only with the first access in the earlier iteration
    /// (`oracle::Race::forward_only`). On by default; off, the placement options of
    /// issue #19 part 1 exactly (for before/after measurements).
    pub loop_instances: bool,
    /// Also place grid barriers (`fix --cooperative`: the user states that the kernel
    /// is launched cooperatively), for races between threads of different blocks
    /// (`oracle::Race::fixable` false), and wherever one is cheaper than a block
    /// barrier (never, with the default cost). Off: such races have no solution.
    pub grid_barriers: bool,
    /// A grid barrier after `ℓ` costs `C(ℓ) · grid_cost` ([`DEFAULT_GRID_COST`]).
    pub grid_cost: f64,
    /// Where each refinement round is recorded (`--show rounds`: why a synthesis takes
    /// many rounds, or which placement a round tried). `None`: not recorded.
    pub rounds: Option<&'a Mutex<Vec<Round>>>,
}

/// One question the synthesis asked the oracle: the placement it tried and what the
/// oracle said of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    /// The kernel asked about.
    pub kernel: String,
    /// The lines after which the round placed a barrier; empty for the input as given.
    pub barriers_after: Vec<u32>,
    /// The racing pairs the oracle found, as (first line, second line), without repeats.
    pub races: Vec<(u32, u32)>,
    pub divergences: usize,
    /// How long the oracle took (wall time: the one value that varies between runs).
    pub time: Duration,
}

impl std::fmt::Display for Round {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lines: Vec<String> = self.barriers_after.iter().map(u32::to_string).collect();
        match lines.len() {
            0 => write!(f, "the kernel as given")?,
            1 => write!(f, "a barrier after line {}", lines[0])?,
            _ => write!(f, "barriers after lines {}", lines.join(", "))?,
        }
        write!(f, ": ")?;
        if self.races.is_empty() && self.divergences == 0 {
            write!(f, "clean")?;
        } else {
            let pairs: Vec<String> = self.races.iter().map(|(a, b)| format!("{a}–{b}")).collect();
            let mut said = Vec::new();
            if !pairs.is_empty() {
                said.push(format!("races between lines {}", pairs.join(", ")));
            }
            if self.divergences > 0 {
                let s = if self.divergences == 1 { "" } else { "s" };
                said.push(format!("{} divergent barrier{s}", self.divergences));
            }
            write!(f, "{}", said.join(", "))?;
        }
        write!(f, " [{} ms]", self.time.as_millis())
    }
}

/// The default [`SynthOptions::warp_cost`]: a warp barrier costs a quarter of a block
/// barrier at the same place.
pub const DEFAULT_WARP_COST: f64 = 0.25;

/// The default [`SynthOptions::grid_cost`]: a grid barrier costs a hundred block
/// barriers at the same place (it waits for every block of the grid, and a
/// cooperative launch limits the grid to the blocks that fit on the device at once).
pub const DEFAULT_GRID_COST: f64 = 100.0;

/// See [`SynthOptions::split_check`].
pub type SplitCheck<'a> = dyn Fn(&SplitSite) -> Result<(), String> + 'a;

impl<'a> SynthOptions<'a> {
    pub fn new(cost: &'a dyn CostModel) -> Self {
        SynthOptions {
            cost,
            use_race_types: true,
            max_iterations: 1000,
            split_check: None,
            warp_barriers: false,
            warp_cost: DEFAULT_WARP_COST,
            uniform_regions: true,
            loop_instances: true,
            grid_barriers: false,
            grid_cost: DEFAULT_GRID_COST,
            rounds: None,
        }
    }
}

/// The reason a report shows that no barrier can help, if it does: races between blocks
/// on global memory, and barriers the user wrote that can diverge.
fn hopeless(report: &Report, own: &[StmtId]) -> Option<NoSolution> {
    unfixable(report).or_else(|| diverging_existing(report, own))
}

/// The races no barrier can fix (between blocks), as the reason to give up. A race that
/// not even a grid barrier orders (one execution of one statement) is named first: for
/// it, `--cooperative` is the wrong advice.
fn unfixable(report: &Report) -> Option<NoSolution> {
    let unfixable: Vec<Race> = report.races.iter().filter(|r| !r.fixable).cloned().collect();
    let r = unfixable
        .iter()
        .find(|r| !grid_barrier_orders(r))
        .or(unfixable.first())?;
    let reason = if grid_barrier_orders(r) {
        format!(
            "the {} race between line {} and line {} on global array `{}` is between threads of \
             different blocks; block barriers only order threads of one block ({GRID_HINT})",
            r.kind(),
            r.first.span.line,
            r.second.span.line,
            r.array
        )
    } else {
        format!(
            "the {} race of line {} with itself on global array `{}` is between threads of different \
             blocks in one execution of the statement ({ONE_STATEMENT_HINT})",
            r.kind(),
            r.first.span.line,
            r.array
        )
    };
    Some(NoSolution {
        reason,
        races: unfixable,
    })
}

/// What fixes races between blocks, for messages: a cooperative launch with a grid barrier.
pub const GRID_HINT: &str = "a cooperative launch (`cudaLaunchCooperativeKernel`) with a grid-wide barrier, \
    `cooperative_groups::this_grid().sync()`, between the accesses orders them: `autosync fix --cooperative` \
    places it";

/// What fixes a race between blocks that a grid barrier cannot order (both accesses are
/// one execution of one statement), for messages.
pub const ONE_STATEMENT_HINT: &str = "no barrier orders two accesses of one execution of one statement, not \
    even a grid-wide one (`--cooperative`): let one thread do it (e.g. under `if (blockIdx.x == 0 && \
    threadIdx.x == 0)`), give each block its own element, or use an atomic operation";

/// Whether a grid barrier can order race `r` between blocks: not when both accesses are
/// one execution of one statement (a self-race within one iteration), which no barrier
/// can come between.
pub fn grid_barrier_orders(r: &Race) -> bool {
    !(r.is_self_race() && r.intra)
}

/// The advice for a race between blocks: a grid barrier when one can order it, else what
/// can ([`ONE_STATEMENT_HINT`]).
pub fn cross_block_hint(r: &Race) -> &'static str {
    if grid_barrier_orders(r) {
        GRID_HINT
    } else {
        ONE_STATEMENT_HINT
    }
}

/// A divergent barrier the synthesis did not insert (`own`): nothing synthesis does
/// removes it.
fn diverging_existing(report: &Report, own: &[StmtId]) -> Option<NoSolution> {
    let theirs = report.divergences.iter().find(|d| !own.contains(&d.stmt))?;
    Some(NoSolution {
        reason: format!(
            "the existing barrier at line {} can be reached by some threads of a block and not others \
             (barrier divergence); move or remove it, or run with --strip",
            theirs.span.line
        ),
        races: Vec::new(),
    })
}

/// Sum of the model costs of all barriers in `kernel`.
pub fn placement_cost(kernel: &Kernel, model: &dyn CostModel) -> f64 {
    cost::existing_cost(&LabelTree::new(kernel), kernel, model)
}

/// Sum of the model costs of the warp barriers in `kernel`, each `C(ℓ) · factor`.
pub fn warp_barrier_cost(kernel: &Kernel, model: &dyn CostModel, factor: f64) -> f64 {
    barrier_cost_of(kernel, &|k| matches!(k, kpl::StmtKind::WarpBarrier), &|t, l| {
        model.cost(t, l) * factor
    })
}

/// Sum of the model costs of the grid barriers in `kernel`, each
/// [`CostModel::grid_cost`] (`C(ℓ) · factor`).
pub fn grid_barrier_cost(kernel: &Kernel, model: &dyn CostModel, factor: f64) -> f64 {
    barrier_cost_of(kernel, &kpl::StmtKind::is_grid_barrier, &|t, l| {
        model.grid_cost(t, l, factor)
    })
}

/// Sum of `cost` over the statements of `kernel` of a kind, at their barrier positions.
fn barrier_cost_of(
    kernel: &Kernel,
    kind: &dyn Fn(&kpl::StmtKind) -> bool,
    cost: &dyn Fn(&LabelTree, Label) -> f64,
) -> f64 {
    let tree = LabelTree::new(kernel);
    kernel
        .stmts()
        .iter()
        .filter(|s| kind(&s.kind))
        .filter_map(|s| tree.label_of(s.id))
        .map(|l| cost(&tree, tree.position_of_barrier(l).unwrap_or(l)))
        .fold(0.0, |a, b| a + b)
}

/// What one synthesis run carries around: the input, its label tree, the oracle, and
/// the counters that end up in [`Stats`].
pub(crate) struct Run<'a> {
    pub kernel: &'a Kernel,
    pub tree: LabelTree,
    pub oracle: &'a mut dyn Oracle,
    pub opts: &'a SynthOptions<'a>,
    pub stats: Stats,
    notes: Vec<String>,
    start: Instant,
}

impl<'a> Run<'a> {
    pub fn new(kernel: &'a Kernel, oracle: &'a mut dyn Oracle, opts: &'a SynthOptions<'a>) -> Self {
        Run {
            start: Instant::now(),
            tree: LabelTree::new(kernel),
            kernel,
            oracle,
            opts,
            stats: Stats::default(),
            notes: Vec::new(),
        }
    }

    /// Asks the oracle about `kernel` (the input with some barriers), counting the call.
    pub fn ask(&mut self, kernel: &Kernel) -> Result<Report, OracleError> {
        self.stats.oracle_calls += 1;
        let r = self.oracle.check(kernel)?;
        for n in &r.notes {
            if !self.notes.contains(n) {
                self.notes.push(n.clone());
            }
        }
        Ok(r)
    }

    /// The input with barriers after `after`, and the ids the new barriers got.
    pub fn with_barriers(&self, after: &[Label]) -> (Kernel, Vec<StmtId>) {
        kpl::insert_barriers(self.kernel, &self.tree, after)
    }

    /// [`Run::with_barriers`] where the labels of `warp` get warp barriers and those of
    /// `grid` grid barriers.
    pub fn with_barriers_kinds(
        &self,
        after: &[Label],
        warp: &[Label],
        grid: &[Label],
    ) -> (Kernel, Vec<StmtId>) {
        kpl::insert_barriers_kinds(self.kernel, &self.tree, after, warp, grid)
    }

    pub fn finish(self, outcome: Outcome, inserted: Vec<Label>) -> Synthesis {
        self.finish_with_warp(outcome, inserted, Vec::new())
    }

    /// [`Run::finish`] where the labels of `warp` (among `inserted`) are warp barriers.
    pub fn finish_with_warp(self, outcome: Outcome, inserted: Vec<Label>, warp: Vec<Label>) -> Synthesis {
        self.finish_with_kinds(outcome, inserted, warp, Vec::new())
    }

    /// [`Run::finish_with_warp`] where the labels of `grid` are grid barriers.
    pub fn finish_with_kinds(
        self,
        outcome: Outcome,
        mut inserted: Vec<Label>,
        warp: Vec<Label>,
        grid: Vec<Label>,
    ) -> Synthesis {
        inserted.sort_by_key(|l| self.tree.node(*l).post);
        let (k, _) = self.with_barriers_kinds(&inserted, &warp, &grid);
        let mut stats = self.stats;
        stats.time = self.start.elapsed();
        let mut cost = placement_cost(&k, self.opts.cost);
        if self.opts.warp_barriers {
            cost += warp_barrier_cost(&k, self.opts.cost, self.opts.warp_cost);
        }
        if self.opts.grid_barriers {
            cost += grid_barrier_cost(&k, self.opts.cost, self.opts.grid_cost);
        }
        Synthesis {
            warp,
            grid,
            cost,
            outcome,
            inserted,
            kernel: k,
            stats,
            notes: self.notes,
            trace: None,
            input: self.kernel.clone(),
            splits: Vec::new(),
        }
    }

    /// When this run started.
    pub fn start_time(&self) -> Instant {
        self.start
    }

    pub fn give_up(self, why: NoSolution) -> Synthesis {
        self.finish(Outcome::NoSolution(why), Vec::new())
    }
}
