//! Replaying the static verifier's findings on the interpreter: confirmed and possible
//! races.
//!
//! The static verifier over-approximates (loop invariants, values read from memory,
//! calls it does not know), so a race it reports may be an artefact of the abstraction,
//! and the values of its witness may be ones the program cannot produce. The interpreter
//! ([`crate::dynamic`]) executes the same KPL under the same semantics, and whatever it
//! shows happens. So each race and divergence of a report is run again on its witness's
//! configuration: the launch, the scalar parameters' values, the blocks of the two
//! threads, and several memory contents when arbitrary values reach a condition or an
//! index. When the run shows the same two statements racing (the same barrier diverging),
//! the finding is **confirmed** and the run's instance becomes its witness (its threads,
//! iterations and element are ones the program produces). Otherwise it is **possible**,
//! with what is known of why the run could not show it.
//!
//! Confirmation never removes a finding: a possible race is still a race of the report
//! (the verifier is sound, the run is one execution among many).
//!
//! Deterministic: the runs are bounded by work ([`MAX_WORK`]), not by time.

use std::collections::BTreeMap;

use kpl::{Kernel, StmtId};

use crate::dynamic::{DynamicConfig, RunCut, Shown, run_shown};
use crate::{AccessKind, CheckOptions, Dim3, Race, Report, Witness};

/// What replaying one finding showed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Replay {
    /// A run of the kernel exhibits it.
    pub confirmed: bool,
    /// The configuration that was run, when one was: the witness's launch, parameters and
    /// blocks.
    pub run: Option<RunConfig>,
    /// Memory contents run (more than one only when arbitrary values reach a condition or
    /// an index).
    pub seeds: u32,
    /// Why the runs could not show it, in words (possible findings only).
    pub why: Option<String>,
}

impl Replay {
    /// A finding of the interpreter itself: confirmed by the run that found it.
    pub fn of_run(w: &Witness) -> Replay {
        Replay {
            confirmed: true,
            run: configure(w).ok(),
            seeds: 1,
            why: None,
        }
    }
}

/// A configuration the interpreter ran.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct RunConfig {
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    pub params: Vec<(String, i64)>,
    /// Linear ids of the blocks executed, in order.
    pub blocks: Vec<u32>,
}

/// Work of one replay run, its memory seeds together: statement executions (times the
/// threads of a block) and logged accesses compared. About a second of interpreting on
/// this project's reference machine, at most; most replays need a fraction of it.
pub const MAX_WORK: u64 = 40_000_000;

/// Logged accesses a new one is compared with (newest first): larger than the static
/// verifier's concrete runs', since a replay looks for one race type in particular.
const WALK_LIMIT: u64 = 64;

/// Configurations run per report: findings whose witness has another one are confirmed
/// from these runs when they show them, and are possible otherwise.
const MAX_RUNS: usize = 6;

/// Grids of at most this many blocks are run whole.
const WHOLE_GRID: u32 = 8;

/// Memory contents tried when they matter.
pub const SEEDS: u32 = 4;

/// Largest launch replayed: CUDA's limit of threads per block, and the interpreter's of
/// blocks (it numbers them in 32 bits).
const MAX_THREADS: u64 = 1024;
const MAX_GRID: u64 = u32::MAX as u64;

/// Replays every race and divergence of `report` (found for `kernel` under `opts`) and
/// records the outcome in their `replay` fields. A confirmed finding's witness becomes
/// the run's instance; a possible one keeps the verifier's (its element and iterations
/// are the model's, which reports do not show), unless its threads lie outside its
/// launch.
pub fn replay_report(kernel: &Kernel, opts: &CheckOptions, report: &mut Report) {
    let mut runs: BTreeMap<RunConfig, Result<Shown, String>> = BTreeMap::new();
    // Memory contents decide whether two writes store equal values (the benign rule),
    // even where they decide no index or branch: then every seed is run.
    let every_seed = report
        .races
        .iter()
        .any(|r| r.first.kind == AccessKind::Write && r.second.kind == AccessKind::Write);
    let runner = Runner {
        kernel,
        opts,
        every_seed,
    };
    for race in &mut report.races {
        let replay = replay_race(&runner, race, &mut runs);
        race.replay = Some(replay);
    }
    for d in &mut report.divergences {
        let Some(w) = d.witness.clone() else {
            d.replay = Some(unreplayed("the verifier found no concrete values to replay"));
            continue;
        };
        let (config, ran) = match configure(&w) {
            Ok(config) => {
                let ran = runner.run(&config, &mut runs);
                (config, ran)
            }
            Err(why) => {
                d.replay = Some(unreplayed(&why));
                continue;
            }
        };
        d.replay = Some(match ran {
            Err(why) => unreplayed(&format!("the kernel could not be run: {why}")),
            Ok(shown) => match shown.divergences.get(&d.stmt) {
                Some(seen) => {
                    d.witness = Some(seen.clone());
                    confirmed(config, shown.seeds)
                }
                None => possible(config, shown, &[d.stmt]),
            },
        });
        if !d.replay.as_ref().is_some_and(|r| r.confirmed) {
            d.witness = d.witness.take().and_then(inside_launch);
        }
    }
}

fn replay_race(
    runner: &Runner,
    race: &mut Race,
    runs: &mut BTreeMap<RunConfig, Result<Shown, String>>,
) -> Replay {
    let Some(w) = race.witness.clone() else {
        return unreplayed("the verifier found no concrete values to replay (its query was undecided)");
    };
    let config = match configure(&w) {
        Ok(c) => c,
        Err(why) => {
            race.witness = race.witness.take().and_then(inside_launch);
            return unreplayed(&why);
        }
    };
    let (a, b) = (race.first.stmt, race.second.stmt);
    let cross = w.threads[0].bid != w.threads[1].bid;
    if !runs.contains_key(&config) && runs.len() >= MAX_RUNS {
        // The kernel's budget of runs is spent: an earlier run may show the pair.
        let earlier = runs
            .iter()
            .find_map(|(c, r)| Some((c, r.as_ref().ok()?, instance_of(r.as_ref().ok()?, a, b, cross)?)));
        return match earlier {
            Some((c, shown, instance)) => {
                race.witness = Some(instance);
                confirmed(c.clone(), shown.seeds)
            }
            None => {
                race.witness = race.witness.take().and_then(inside_launch);
                unreplayed(&format!(
                    "the replay ran the kernel on {MAX_RUNS} configurations for its other findings, and not \
                     on this one"
                ))
            }
        };
    }
    let shown = match runner.run(&config, runs) {
        Ok(shown) => shown,
        Err(why) => {
            race.witness = race.witness.take().and_then(inside_launch);
            return unreplayed(&format!("the kernel could not be run: {why}"));
        }
    };
    match instance_of(shown, a, b, cross) {
        Some(instance) => {
            race.witness = Some(instance);
            confirmed(config, shown.seeds)
        }
        None => {
            race.witness = race.witness.take().and_then(inside_launch);
            possible(config, shown, &[a, b])
        }
    }
}

/// The run's instance of a race of statements `a` and `b` (in this order), of the
/// scope `cross` (threads of two blocks, or of one) when there is one of each.
fn instance_of(shown: &Shown, a: StmtId, b: StmtId, cross: bool) -> Option<Witness> {
    let (t, w) = shown
        .races
        .iter()
        .filter(|(t, _)| (t.earlier, t.later) == (a, b) || (t.earlier, t.later) == (b, a))
        .min_by_key(|(t, _)| (t.cross_block != cross, t.depth, t.earlier != a))?;
    let mut instance = w.clone();
    // The run gives threads and iterations in the order `earlier`, `later`.
    if t.earlier != a {
        instance.threads.swap(0, 1);
        instance.iterations.swap(0, 1);
    }
    Some(instance)
}

/// The configuration of a witness: its launch and parameters, and the blocks of its two
/// threads (in ascending order); `Err` when it is too large to run.
fn configure(w: &Witness) -> Result<RunConfig, String> {
    let size = |d: &Dim3| d.iter().map(|&x| u64::from(x)).product::<u64>();
    if size(&w.block_dim) == 0 || size(&w.grid_dim) == 0 {
        return Err("its launch is empty".to_string());
    }
    if size(&w.block_dim) > MAX_THREADS || size(&w.grid_dim) > MAX_GRID {
        return Err(format!(
            "its launch ({} threads per block, {} blocks) is too large to replay",
            size(&w.block_dim),
            size(&w.grid_dim)
        ));
    }
    if !threads_inside(w) {
        return Err("its threads lie outside its launch".to_string());
    }
    // In range: the grid has fewer than 2^32 blocks.
    let linear = |b: &Dim3| b[0] + w.grid_dim[0] * (b[1] + w.grid_dim[1] * b[2]);
    let total = size(&w.grid_dim) as u32;
    // A small grid runs whole, as the interpreter's own checks run it; a larger one
    // runs the blocks of the witness's two threads.
    let mut blocks: Vec<u32> = if total <= WHOLE_GRID {
        (0..total).collect()
    } else {
        w.threads.iter().map(|t| linear(&t.bid)).collect()
    };
    blocks.sort_unstable();
    blocks.dedup();
    Ok(RunConfig {
        block_dim: w.block_dim,
        grid_dim: w.grid_dim,
        params: w.params.clone(),
        blocks,
    })
}

/// What every replay run of one report shares.
struct Runner<'a> {
    kernel: &'a Kernel,
    opts: &'a CheckOptions,
    /// Run every memory seed ([`run_shown`]).
    every_seed: bool,
}

impl Runner<'_> {
    /// Runs the kernel on `config` (once per configuration: `runs` keeps what each
    /// showed).
    fn run<'r>(
        &self,
        config: &RunConfig,
        runs: &'r mut BTreeMap<RunConfig, Result<Shown, String>>,
    ) -> Result<&'r Shown, String> {
        let ran = runs.entry(config.clone()).or_insert_with(|| {
            let opts = CheckOptions {
                launch: kpl::Launch {
                    params: config.params.iter().cloned().collect(),
                    ..kpl::Launch {
                        warp_size: self.opts.launch.warp_size,
                        ..kpl::Launch::fixed(config.block_dim, config.grid_dim)
                    }
                },
                ..self.opts.clone()
            };
            let blocks = Some(config.blocks.clone());
            run_shown(
                self.kernel,
                &opts,
                &config_of(self.every_seed),
                blocks,
                MAX_WORK,
                WALK_LIMIT,
            )
        });
        ran.as_ref().map_err(|e| e.clone())
    }
}

/// The interpreter's configuration of a replay: the launch and parameters come from the
/// options, every seed is run when `every_seed`.
pub fn config_of(every_seed: bool) -> DynamicConfig {
    DynamicConfig {
        param_range: 0..=0,
        seeds: SEEDS,
        every_seed,
        default_launches: Vec::new(),
        ..DynamicConfig::default()
    }
}

fn confirmed(config: RunConfig, seeds: u32) -> Replay {
    Replay {
        confirmed: true,
        run: Some(config),
        seeds,
        why: None,
    }
}

/// A finding that could not be run at all.
fn unreplayed(why: &str) -> Replay {
    Replay {
        confirmed: false,
        run: None,
        seeds: 0,
        why: Some(why.to_string()),
    }
}

/// A finding the runs of `config` did not show: why, as far as the runs tell
/// (`stmts`: the finding's statements).
fn possible(config: RunConfig, shown: &Shown, stmts: &[StmtId]) -> Replay {
    let why = match &shown.cut {
        Some(RunCut::Work) => "the run was cut short by the replay's work budget".to_string(),
        Some(RunCut::LoopBound { line }) => {
            format!(
                "the run was cut short: the loop at line {line} reached the interpreter's iteration bound"
            )
        }
        Some(RunCut::Arith { line }) => {
            format!("the run stopped at line {line} on arithmetic the semantics does not define")
        }
        Some(RunCut::Assume) => "the run stopped where an assumption failed".to_string(),
        Some(RunCut::Requires) => "the kernel's preconditions do not hold for this launch".to_string(),
        None if stmts.len() == 2
            && shown
                .benign
                .contains(&(stmts[0].min(stmts[1]), stmts[0].max(stmts[1]))) =>
        {
            "the run saw the two writes store equal values (a benign race, if they always do)".to_string()
        }
        None if shown.memory_matters => format!(
            "it may depend on memory contents or unknown values, and the {} contents tried do not show it",
            shown.seeds
        ),
        None => "the verifier's model of the kernel may allow more than the kernel does (loop invariants, \
                 values carried across iterations)"
            .to_string(),
    };
    Replay {
        confirmed: false,
        run: Some(config),
        seeds: shown.seeds,
        why: Some(format!("a run on its launch does not show it: {why}")),
    }
}

/// The verifier's witness of a finding no run showed: kept as the verifier's model
/// (reports show only its threads and launch), and dropped when its threads lie outside
/// its launch, which no execution has.
fn inside_launch(w: Witness) -> Option<Witness> {
    threads_inside(&w).then_some(w)
}

/// Whether both threads of `w` lie inside its launch (a solver's model need not).
fn threads_inside(w: &Witness) -> bool {
    w.threads
        .iter()
        .all(|t| (0..3).all(|i| t.tid[i] < w.block_dim[i] && t.bid[i] < w.grid_dim[i]))
}
