//! Race types shown by running the kernel: satisfiable race queries without the solver.
//!
//! A kernel with many races (the synthesizer's first check is of the kernel stripped of
//! its barriers, and the placements it tries next still race) has hundreds of race types
//! whose queries are satisfiable, and the solver spends about as much on finding a model
//! as on a proof. Most of those races happen in any run of the kernel. So once the
//! solver has answered [`RUN_AFTER`] race queries of a check satisfiable (and again after as
//! many more, up to [`MAX_RUNS`] runs on different configurations), the
//! interpreter ([`crate::dynamic::race_instances`]) runs the kernel, with its barriers,
//! on the launch and the parameters of the last witness (a feasible configuration that
//! races), and every race type that run exhibits is answered from it: satisfiable, with
//! the run's instance as witness.
//!
//! Why that is the solver's answer: the interpreter executes the semantics that the
//! queries over-approximate (`tests/it/verifier_props.rs` checks the verifier against it),
//! so an instance it exhibits satisfies the query of its race type, with or without
//! the barriers (a query without barriers only drops constraints), and for two plain
//! writes also the query with the values apart (the interpreter applies the same benign
//! rule to the values it computes). Only satisfiable answers come from runs: every
//! "cannot race" is still the solver's proof, so this can only replace an answer by the
//! same one (or an undecided query by a decided race).
//!
//! Deterministic: when a run happens depends on the answers of the check (the lane's, see
//! [`super::lanes`]) alone, and the interpreter on the kernel, the configuration and a
//! fixed amount of work ([`MAX_WORK`]).

use std::collections::{BTreeMap, HashMap};

use kpl::Kernel;

use super::queries::{Order, Outcome, Scope};
use super::symbolic::{AccessFact, Summary};
use crate::dynamic::{DynamicConfig, RaceType, race_instances};
use crate::{AccessKind, CheckOptions, Dim3, Witness};

/// Satisfiable answers of the solver after which the kernel is run (again): the
/// default of [`super::StaticVerifier::concrete_after`]. A run costs about as much as a
/// dozen satisfiable queries, so kernels with a handful of races never run.
pub(super) const RUN_AFTER: usize = 4;

/// Share (percent) of the satisfiable answers after a check's first run that its runs
/// must have given for the kernel to be run in its next checks: below it, the runs
/// miss the kernel's races (they happen only at other launches or parameter values) and
/// cost more than they save.
pub(super) const RUN_WORTH: usize = 50;

/// Runs per check (and lane), each on a configuration not run before.
const MAX_RUNS: usize = 3;

/// Work of a run, its memory seeds together: statement executions (times the threads
/// of a block) and logged accesses compared with new ones.
const MAX_WORK: u64 = 3_000_000;

/// Largest launch run: CUDA's threads per block, and blocks (the preconditions are
/// evaluated for every thread of the grid).
const MAX_THREADS: u64 = 1024;
const MAX_BLOCKS: u64 = 1 << 16;

/// A launch and the scalar parameters' values.
type Config = (Dim3, Dim3, Vec<(String, i64)>);

/// What runs of one check (lane) have shown so far.
pub(super) struct Concrete<'k> {
    kernel: &'k Kernel,
    opts: &'k CheckOptions,
    /// Satisfiable answers of the solver before a run
    /// ([`super::StaticVerifier::concrete_after`]); `usize::MAX` for kernels whose
    /// semantics the interpreter reads differently from the queries (warp lock step,
    /// warp and grid barriers).
    after: usize,
    /// Blocks a run executes: two when threads of different blocks can race (a global
    /// array written), else one.
    blocks: u32,
    /// Satisfiable answers of the solver since the last run.
    solved: usize,
    runs: Vec<Config>,
    seen: HashMap<RaceType, Witness>,
    /// Answers taken from runs.
    pub(super) shown: usize,
    /// Satisfiable answers of the solver after the first run.
    missed: usize,
}

impl<'k> Concrete<'k> {
    /// `last_yield`: the share of satisfiable answers its runs gave in the last check
    /// of this kernel that ran it ([`Concrete::run_yield`]).
    pub(super) fn new(
        kernel: &'k Kernel,
        opts: &'k CheckOptions,
        sum: &Summary,
        after: usize,
        last_yield: Option<usize>,
    ) -> Concrete<'k> {
        let modelled_alike =
            opts.launch.warp_size.is_none() && !sum.barriers.iter().any(|b| b.grid || b.warp);
        let paid = last_yield.is_none_or(|y| y >= RUN_WORTH);
        Concrete {
            kernel,
            opts,
            after: if modelled_alike && paid { after } else { usize::MAX },
            blocks: if sum
                .accesses
                .iter()
                .any(|a| a.space == kpl::Space::Global && a.kind != AccessKind::Read)
            {
                2
            } else {
                1
            },
            solved: 0,
            runs: Vec::new(),
            seen: HashMap::new(),
            shown: 0,
            missed: 0,
        }
    }

    /// The outcome of the race query of `a`, `b` (in program order) of type `order`
    /// between threads of `scope`: from a run when one showed the type, else `solve`'s,
    /// counted towards the next run.
    pub(super) fn race(
        &mut self,
        a: &AccessFact,
        b: &AccessFact,
        scope: Scope,
        order: Order,
        solve: impl FnOnce() -> Outcome,
    ) -> Outcome {
        if let Some(w) = self.instance(a, b, scope, order) {
            self.shown += 1;
            return Outcome::Sat(Box::new(w));
        }
        let out = solve();
        if let Outcome::Sat(w) = &out {
            self.solved += 1;
            self.missed += usize::from(!self.runs.is_empty());
            if self.solved >= self.after && self.runs.len() < MAX_RUNS {
                self.run(w);
            }
        }
        out
    }

    /// The share (percent) of the satisfiable answers after the first run of this
    /// check that runs gave, when the kernel ran and there were any.
    pub(super) fn run_yield(&self) -> Option<usize> {
        let after = self.shown + self.missed;
        (!self.runs.is_empty() && after > 0).then(|| self.shown * 100 / after)
    }

    /// A witness of the race type from a run, threads and iterations in the order
    /// `a`, `b` (as the solver's).
    fn instance(&self, a: &AccessFact, b: &AccessFact, scope: Scope, order: Order) -> Option<Witness> {
        let (earlier, later, depth) = match order {
            Order::Intra => (a.stmt.min(b.stmt), a.stmt.max(b.stmt), None),
            Order::Inter { depth, forward: true } => (a.stmt, b.stmt, Some(depth)),
            Order::Inter {
                depth,
                forward: false,
            } => (b.stmt, a.stmt, Some(depth)),
        };
        let key = RaceType {
            earlier,
            later,
            depth,
            cross_block: scope == Scope::CrossBlock,
        };
        let mut w = self.seen.get(&key)?.clone();
        if earlier != a.stmt {
            w.threads.swap(0, 1);
            w.iterations.swap(0, 1);
        }
        // The interpreter's loops around the accesses must be the summary's.
        let loops_agree = w.iterations[0].len() == a.loops.len() && w.iterations[1].len() == b.loops.len();
        loops_agree.then_some(w)
    }

    /// Runs the kernel on the configuration of `w` (unless already run, or too large).
    fn run(&mut self, w: &Witness) {
        let config: Config = (w.block_dim, w.grid_dim, w.params.clone());
        let size = |d: Dim3| d.iter().map(|&x| u64::from(x)).product::<u64>();
        if self.runs.contains(&config)
            || size(w.block_dim) == 0
            || size(w.block_dim) > MAX_THREADS
            || size(w.grid_dim) == 0
            || size(w.grid_dim) > MAX_BLOCKS
        {
            return;
        }
        self.solved = 0;
        let opts = CheckOptions {
            launch: kpl::Launch {
                params: w.params.iter().cloned().collect::<BTreeMap<_, _>>(),
                ..kpl::Launch {
                    warp_size: self.opts.launch.warp_size,
                    ..kpl::Launch::fixed(w.block_dim, w.grid_dim)
                }
            },
            ..self.opts.clone()
        };
        let dynamic = DynamicConfig {
            param_range: 0..=0,
            max_blocks: self.blocks,
            default_launches: Vec::new(),
            ..DynamicConfig::default()
        };
        let started = std::time::Instant::now();
        let shown = race_instances(self.kernel, &opts, &dynamic, MAX_WORK);
        super::queries::trace_slow(started, || {
            format!(
                "concrete run (block {:?}, grid {:?}, {:?}): {} race types",
                w.block_dim,
                w.grid_dim,
                w.params,
                shown.len()
            )
        });
        for (t, witness) in shown {
            self.seen.entry(t).or_insert(witness);
        }
        self.runs.push(config);
    }
}
