//! The dynamic SDV interpreter: runs a kernel under the synchronous, delayed-visibility
//! semantics (docs/semantics.md, Execution model) for concrete launches, scalar parameters
//! and memory contents, and reports every race and divergent barrier those runs exhibit.
//!
//! It is a testing oracle: whatever it reports happens in a feasible run (so it is the
//! reference the static verifier is checked against), but it can miss defects that only
//! show up for launches, parameters or memory contents it did not try.
//!
//! A check tries every combination of
//! - a launch: `CheckOptions::block_dim`/`grid_dim` when given, else each of
//!   [`DynamicConfig::default_launches`];
//! - a valuation of the scalar parameters: those fixed in `CheckOptions::params` keep
//!   their value, the others range over [`DynamicConfig::param_range`] within their
//!   type, plus -1 and -2 for signed types (valuations that
//!   violate the kernel's `requires` are skipped);
//! - a memory seed, which decides the initial memory contents and every other arbitrary
//!   value (`local x;`, `havoc x;`, `x / 0`). Only one seed is tried when no arbitrary
//!   value can reach a branch or an index (see `compile`), since all seeds then give
//!   the same accesses.
//!
//! When there are more than [`DynamicConfig::max_runs`] combinations, a deterministic
//! sample of that many is run and the report says so in a note.

use std::ops::RangeInclusive;

use std::collections::HashMap;

use kpl::{Kernel, LabelTree, StmtId};

use crate::{CheckOptions, Dim3, Oracle, OracleError, Report, Witness};

mod compile;
mod exec;
mod grid;
pub mod profile;
mod races;
#[cfg(test)]
mod tests;
mod values;

use compile::Program;
use exec::{Machine, RunSpec, Stop};
use races::{Findings, Instances};
use values::mix;

/// How much the interpreter tries per check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicConfig {
    /// Values tried for each scalar parameter that `CheckOptions::params` does not fix.
    pub param_range: RangeInclusive<i64>,
    /// Memory seeds per (launch, parameters) when arbitrary values matter. Seed 0 is
    /// the all-zero memory; the others fill memory with small pseudo-random values.
    pub seeds: u32,
    /// Run every seed even when arbitrary values reach no condition or index: they
    /// still decide the values stored, so whether two writes of one element store equal
    /// ones (the benign rule). Replays set it ([`crate::replay`]).
    pub every_seed: bool,
    /// Iterations after which one execution of a loop is cut off (with a note).
    pub loop_bound: u64,
    /// At most this many runs per check; larger spaces are sampled.
    pub max_runs: usize,
    /// (threads per block, blocks per grid) tried when the options give no launch.
    pub default_launches: Vec<(Dim3, Dim3)>,
    /// Blocks executed per run: larger grids run their first `max_blocks - 1` blocks
    /// and their last one (with a note). Sound, since blocks may run in any order.
    pub max_blocks: u32,
}

impl Default for DynamicConfig {
    /// Blocks of 2, 4 and 8 threads (8 so that `tid % 6`-style patterns occur, powers of
    /// two as in most kernels' tree patterns), in grids of 1 and 2 blocks (2 so that
    /// inter-block global races show). One dimension: kernels written for 2D/3D
    /// launches need `--block-dim`.
    fn default() -> DynamicConfig {
        let mut default_launches = Vec::new();
        for grid in [1, 2] {
            for block in [2, 4, 8] {
                default_launches.push(([block, 1, 1], [grid, 1, 1]));
            }
        }
        DynamicConfig {
            param_range: 0..=4,
            seeds: 3,
            every_seed: false,
            loop_bound: 1000,
            max_runs: 20_000,
            default_launches,
            max_blocks: 8,
        }
    }
}

/// Runs kernels under the SDV semantics.
pub struct Interpreter {
    pub opts: CheckOptions,
    pub config: DynamicConfig,
}

impl Interpreter {
    pub fn new(opts: CheckOptions) -> Interpreter {
        Interpreter::with_config(opts, DynamicConfig::default())
    }

    pub fn with_config(opts: CheckOptions, config: DynamicConfig) -> Interpreter {
        Interpreter { opts, config }
    }

    /// The launches to try: the given dimensions override the defaults' (duplicates
    /// removed, order kept).
    fn launches(&self) -> Vec<(Dim3, Dim3)> {
        let mut out: Vec<(Dim3, Dim3)> = Vec::new();
        let defaults = if self.config.default_launches.is_empty() {
            vec![([1, 1, 1], [1, 1, 1])]
        } else {
            self.config.default_launches.clone()
        };
        for (b, g) in defaults {
            let given = |d: &kpl::launch::Dims, default: Dim3| -> Dim3 {
                std::array::from_fn(|i| d[i].unwrap_or(default[i]))
            };
            let l = (
                given(&self.opts.launch.block, b),
                given(&self.opts.launch.grid, g),
            );
            // `__launch_bounds__`: no block of more threads is launched.
            let threads = u64::from(l.0[0]) * u64::from(l.0[1]) * u64::from(l.0[2]);
            if threads > u64::from(self.opts.launch.thread_limit()) {
                continue;
            }
            if !out.contains(&l) {
                out.push(l);
            }
        }
        out
    }
}

impl Oracle for Interpreter {
    fn name(&self) -> &'static str {
        "dynamic"
    }

    fn check(&mut self, kernel: &Kernel) -> Result<Report, OracleError> {
        let prog = Program::compile(kernel)?;
        let space = RunSpace::new(&prog, self);
        let mut session = Session {
            config: &self.config,
            machine: Machine::new(
                &prog,
                self.opts.arith,
                self.config.loop_bound,
                self.config.max_blocks,
            ),
            findings: Findings::new(&prog),
            params: vec![0; prog.params.len()],
            feasible: 0,
            assumed_away: 0,
        };
        session.machine.configure(&self.opts, kernel);
        if self.opts.classify_warps {
            session.findings.classify_warp = Some(self.opts.warp_barrier_size().max(1));
        }
        let total = space.total();
        let max_runs = self.config.max_runs.max(1) as u128;
        // A cancelled run stops between runs of the kernel (`crate::interrupt`).
        let interrupted = crate::interrupt::cancelled;
        if total <= max_runs {
            for i in 0..total {
                if interrupted() {
                    return Err(OracleError::Interrupted);
                }
                session.run(&space, &space.index(i));
            }
        } else {
            for i in 0..max_runs {
                if interrupted() {
                    return Err(OracleError::Interrupted);
                }
                session.run(&space, &space.sample(i));
            }
            let total = if total == u128::MAX {
                "astronomically many".to_string()
            } else {
                total.to_string()
            };
            session.findings.note(format!(
                "only {max_runs} of {total} runs (launch × parameters × memory seed) were sampled"
            ));
        }
        if interrupted() {
            return Err(OracleError::Interrupted);
        }
        if session.feasible == 0 {
            return Err(OracleError::NoFeasibleRun(space.describe(kernel)));
        }
        if session.assumed_away == session.feasible {
            session.findings.note(
                "every run stopped at a false `assume`; only what happened before it is reported".into(),
            );
        }
        Ok(session.findings.into_report(&prog, &LabelTree::new(kernel)))
    }
}

/// Logged accesses a new one is compared with in [`race_instances`] (newest first):
/// a few instances of each race type are enough there.
const WALK_LIMIT: u64 = 8;

/// A race type a concrete run exhibited ([`race_instances`]), in the terms of the
/// static verifier's race queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RaceType {
    /// The statement whose iteration of the common loop at `depth` is the smaller one;
    /// for the same iterations of all common loops, the smaller statement id.
    pub earlier: StmtId,
    pub later: StmtId,
    /// The common loop (1 = outermost) whose iterations differ, the loops around it in
    /// the same iterations; `None`: the same iterations of every common loop.
    pub depth: Option<usize>,
    /// The two threads are in different blocks.
    pub cross_block: bool,
}

/// The race types that runs of `kernel` exhibit for one launch and one valuation of its
/// scalar parameters (`opts.launch`'s sizes and parameters; parameters
/// not given take the first value of `config.param_range`), one run per memory seed of
/// `config` in turn, until they have done `max_work` statement executions (times the
/// threads of a block) and comparisons together, each access compared with the
/// [`WALK_LIMIT`] latest accesses of its element only. Each type comes with its first instance as witness, threads and
/// iterations in the order `earlier`, `later`.
///
/// Every type is real: a run cut short (by `max_work`, the loop bound, undefined
/// arithmetic or a false `assume`) keeps what it saw before, a prefix of a run being a
/// run, and running some blocks of a grid is a prefix of a schedule. A launch the
/// options leave open, preconditions that do not hold or a kernel the interpreter
/// cannot run give no types. The static verifier takes these as satisfiable race
/// queries (`verifier::concrete`).
pub fn race_instances(
    kernel: &Kernel,
    opts: &CheckOptions,
    config: &DynamicConfig,
    max_work: u64,
) -> HashMap<RaceType, Witness> {
    run_shown(kernel, opts, config, None, max_work, WALK_LIMIT)
        .map(|shown| shown.races)
        .unwrap_or_default()
}

/// Largest grid [`run_shown`] evaluates preconditions that read thread ids for.
const MAX_GRID_CHECKED: u32 = 1 << 16;

/// What runs of a kernel on one configuration showed ([`run_shown`]).
#[derive(Clone, Debug, Default)]
pub struct Shown {
    /// Each race type seen, with its first instance (threads and iterations in the
    /// order `earlier`, `later`).
    pub races: HashMap<RaceType, Witness>,
    /// Each barrier seen diverging, with its first instance.
    pub divergences: HashMap<StmtId, Witness>,
    /// Write-write statement pairs seen storing equal values unordered (smaller id
    /// first): spared by the benign rule in these runs.
    pub benign: Vec<(StmtId, StmtId)>,
    /// Memory seeds run (more than one only when arbitrary values reach a condition or
    /// an index).
    pub seeds: u32,
    /// Whether arbitrary values (memory contents, `havoc`, unknown calls) reach a
    /// condition or an index, so other contents could run differently.
    pub memory_matters: bool,
    /// Why the runs ended before the end of the kernel, when one did.
    pub cut: Option<RunCut>,
}

/// Why a run of [`run_shown`] ended early: what it saw before stays real, but what it
/// did not reach was not tried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunCut {
    /// The work budget was spent.
    Work,
    /// A loop reached the interpreter's iteration bound.
    LoopBound { line: u32 },
    /// Arithmetic the semantics does not define (an overflow, a bad shift).
    Arith { line: u32 },
    /// An `assume` was false for some thread.
    Assume,
    /// The kernel's `requires` do not hold for this configuration.
    Requires,
}

/// Runs `kernel` on the launch and parameters of `opts` (parameters not given take the
/// first value of `config.param_range`), once per memory seed of `config` in turn,
/// executing the blocks `blocks` (linear ids, in that order) or else the first and last
/// ones as [`DynamicConfig::max_blocks`] says, until the runs have done `max_work`
/// statement executions (times the threads of a block) and comparisons together, each
/// access compared with the `walk_limit` latest accesses of its element. `Err` says
/// why the kernel cannot be run (a launch the options leave open, a kernel the
/// interpreter cannot compile).
///
/// Everything shown is real: a run cut short keeps what it saw before, a prefix of a
/// run being a run, and running some blocks of a grid, in any order, is a prefix of a
/// schedule.
pub fn run_shown(
    kernel: &Kernel,
    opts: &CheckOptions,
    config: &DynamicConfig,
    blocks: Option<Vec<u32>>,
    max_work: u64,
    walk_limit: u64,
) -> Result<Shown, String> {
    let (Some(block_dim), Some(grid_dim)) = (opts.launch.block_dim(), opts.launch.grid_dim()) else {
        return Err("its launch is not fixed".to_string());
    };
    let prog = Program::compile(kernel).map_err(|e| e.to_string())?;
    // Preconditions that read thread ids are evaluated for every thread of the grid.
    if exec::count(grid_dim) > MAX_GRID_CHECKED && prog.requires.iter().any(|r| r.reads_thread_ids()) {
        return Err(format!(
            "its preconditions would have to be evaluated for each of its {} blocks",
            exec::count(grid_dim)
        ));
    }
    let it = Interpreter::with_config(opts.clone(), config.clone());
    let space = RunSpace::new(&prog, &it);
    let mut params = vec![0; prog.params.len()];
    space.params(0, &mut params);
    let mut machine = Machine::new(&prog, opts.arith, config.loop_bound, config.max_blocks);
    machine.configure(opts, kernel);
    machine.chosen_blocks = blocks;
    machine.max_work = max_work;
    machine.set_walk_limit(walk_limit);
    let mut findings = Findings::new(&prog);
    findings.instances = Some(Instances::default());
    let mut shown = Shown {
        memory_matters: prog.seeds_matter,
        ..Shown::default()
    };
    for seed in 0..space.seeds {
        let spec = RunSpec {
            block_dim,
            grid_dim,
            params: &params,
            seed: u64::from(seed),
        };
        if !machine.requires_hold(&spec) {
            // What the seeds before saw stays real.
            shown.cut = Some(RunCut::Requires);
            break;
        }
        shown.seeds += 1;
        // However the run ends, what it saw before is real.
        let ended = machine.run(&spec, &mut findings);
        if let Err(stop) = ended {
            shown.cut = Some(match stop {
                Stop::Work => RunCut::Work,
                Stop::LoopBound { line, .. } => RunCut::LoopBound { line },
                Stop::Arith { line, .. } => RunCut::Arith { line },
                Stop::Infeasible => RunCut::Assume,
            });
        }
        machine.max_work = machine.max_work.saturating_sub(machine.work_done());
        if machine.max_work == 0 {
            shown.cut = Some(RunCut::Work);
            break;
        }
    }
    let id = |ix: compile::StmtIx| prog.stmts[ix as usize].id;
    shown.divergences = findings
        .divergences()
        .filter_map(|d| Some((d.stmt, d.witness.clone()?)))
        .collect();
    shown.benign = findings
        .benign_pairs()
        .map(|(a, b)| (id(a).min(id(b)), id(a).max(id(b))))
        .collect();
    shown.benign.sort_unstable();
    shown.benign.dedup();
    let seen = findings.instances.map(|log| log.seen).unwrap_or_default();
    for (t, mut witness) in seen {
        let (mut earlier, mut later) = (id(t.earlier), id(t.later));
        if t.depth.is_none() && later < earlier {
            std::mem::swap(&mut earlier, &mut later);
            witness.threads.swap(0, 1);
            witness.iterations.swap(0, 1);
        }
        let key = RaceType {
            earlier,
            later,
            depth: t.depth,
            cross_block: t.cross_block,
        };
        shown.races.entry(key).or_insert(witness);
    }
    Ok(shown)
}

/// The state of one check: the machine, what the runs found so far, counters.
struct Session<'a> {
    config: &'a DynamicConfig,
    machine: Machine<'a>,
    findings: Findings,
    /// Scratch buffer for the parameter values of the current run.
    params: Vec<i64>,
    /// Runs whose launch and parameters satisfy the preconditions.
    feasible: u64,
    /// Feasible runs that an `assume` cut short.
    assumed_away: u64,
}

impl Session<'_> {
    fn run(&mut self, space: &RunSpace, r: &RunIndex) {
        space.params(r.valuation, &mut self.params);
        let (block_dim, grid_dim) = space.launches[r.launch];
        let spec = RunSpec {
            block_dim,
            grid_dim,
            params: &self.params,
            seed: u64::from(r.seed),
        };
        if !self.machine.requires_hold(&spec) {
            return;
        }
        self.feasible += 1;
        let blocks = exec::count(grid_dim);
        if blocks > self.config.max_blocks {
            self.findings.note(format!(
                "runs on {blocks} blocks executed only {} of them (the first ones and the last)",
                self.config.max_blocks.max(1)
            ));
        }
        let note = match self.machine.run(&spec, &mut self.findings) {
            Ok(()) => return,
            Err(Stop::Infeasible) => {
                self.assumed_away += 1;
                return;
            }
            Err(Stop::LoopBound { line, bound }) => {
                format!("loop at line {line}: bound of {bound} iterations reached")
            }
            Err(Stop::Arith { line, err }) => format!("line {line}: {err}; runs reaching it were abandoned"),
            // No limit is set on the oracle's runs.
            Err(Stop::Work) => return,
        };
        self.findings.note(note);
    }
}

/// One run, as coordinates in the [`RunSpace`].
struct RunIndex {
    launch: usize,
    valuation: u128,
    seed: u32,
}

/// All runs of one check: launches × parameter valuations × seeds.
struct RunSpace {
    launches: Vec<(Dim3, Dim3)>,
    /// Per parameter: the values it takes (one when it is fixed or unused).
    choices: Vec<Vec<i64>>,
    valuations: u128,
    seeds: u32,
}

/// Values tried for a free parameter of type `ty`: the configured range within the
/// type, and for signed types also -1 and -2 (a signed parameter can be negative).
fn param_values(range: &RangeInclusive<i64>, ty: kpl::IntTy) -> Vec<i64> {
    let mut vals: Vec<i64> = range.clone().filter(|v| ty.contains(i128::from(*v))).collect();
    if ty.signed {
        for v in [-1, -2] {
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
    }
    vals
}

impl RunSpace {
    fn new(prog: &Program, it: &Interpreter) -> RunSpace {
        let range = it.config.param_range.clone();
        let choices: Vec<Vec<i64>> = prog
            .params
            .iter()
            .map(|p| match it.opts.launch.params.get(&p.name) {
                Some(v) => vec![it.opts.arith.norm(*v)],
                // An unused parameter cannot change the run: one value is enough.
                None if !p.used => vec![param_values(&range, p.ty).first().copied().unwrap_or(0)],
                None => param_values(&range, p.ty)
                    .into_iter()
                    .map(|v| it.opts.arith.norm(v))
                    .collect(),
            })
            .collect();
        let valuations = choices
            .iter()
            .try_fold(1u128, |acc, c| acc.checked_mul(c.len() as u128))
            .unwrap_or(u128::MAX);
        RunSpace {
            launches: it.launches(),
            choices,
            valuations,
            seeds: if prog.seeds_matter || it.config.every_seed {
                it.config.seeds.max(1)
            } else {
                1
            },
        }
    }

    fn total(&self) -> u128 {
        (self.launches.len() as u128)
            .saturating_mul(self.valuations)
            .saturating_mul(u128::from(self.seeds))
    }

    /// The `i`-th run in launch-major, then valuation, then seed order.
    fn index(&self, i: u128) -> RunIndex {
        let seeds = u128::from(self.seeds);
        RunIndex {
            seed: (i % seeds) as u32,
            valuation: (i / seeds) % self.valuations.max(1),
            launch: (i / seeds / self.valuations.max(1)) as usize,
        }
    }

    /// The `i`-th sampled run: launches and seeds round-robin, valuations pseudo-random
    /// (the first one is the all-minimum valuation).
    fn sample(&self, i: u128) -> RunIndex {
        let launches = self.launches.len().max(1) as u128;
        let h = (u128::from(mix(i as u64)) << 64) | u128::from(mix(!(i as u64)));
        RunIndex {
            launch: (i % launches) as usize,
            seed: ((i / launches) % u128::from(self.seeds)) as u32,
            valuation: if i < launches {
                0
            } else {
                h % self.valuations.max(1)
            },
        }
    }

    /// The parameter values of valuation `v`: its digits in the mixed radix of the
    /// parameters' choices.
    fn params(&self, mut v: u128, out: &mut [i64]) {
        for (slot, choice) in out.iter_mut().zip(&self.choices) {
            let n = choice.len().max(1) as u128;
            *slot = choice.get((v % n) as usize).copied().unwrap_or(0);
            v /= n;
        }
    }

    fn describe(&self, kernel: &Kernel) -> String {
        let launches: Vec<String> = self
            .launches
            .iter()
            .map(|(b, g)| format!("block {b:?} grid {g:?}"))
            .collect();
        format!(
            "the preconditions of `{}` hold for none of the launches [{}] with the parameter values {:?}",
            kernel.name,
            launches.join(", "),
            self.choices
        )
    }
}
