//! Barrier execution counts: how many times each barrier of a kernel executes, measured
//! by running it under the SDV semantics (the profile-guided cost model's input).
//!
//! A barrier "executes" once per block each time the block reaches it with at least one
//! enabled thread (a diverging barrier counts too: it is still executed). Counts are for
//! the whole grid, averaged over the runs the interpreter makes for its options (the
//! launches, parameter valuations and memory seeds of [`Interpreter::check`]; one run
//! when the launch and every parameter the kernel reads are fixed and no arbitrary
//! value steers control flow). Parameters pinned by a `requires p == c` conjunct take
//! that value. When the interpreter runs only some blocks of a large grid
//! ([`DynamicConfig::max_blocks`](super::DynamicConfig)), counts are scaled up to the
//! whole grid (blocks executed × total / executed).
//!
//! [`place_executions`] counts every candidate place of a kernel in one go: a barrier
//! is inserted after every candidate label and the kernel run once per run of the
//! space. Barriers change no value and no control flow under the SDV semantics (a
//! diverging one is reported but synchronizes nothing), so each inserted barrier
//! executes exactly as often as a barrier placed there alone would.

use std::collections::{BTreeMap, HashMap};

use kpl::{Kernel, Label, LabelTree, StmtId};

use super::compile::Program;
use super::exec::{self, Machine, RunSpec, Stop};
use super::races::Findings;
use super::{Interpreter, RunSpace};
use crate::OracleError;

/// Measured barrier executions of one kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Mean executions per run (whole grid) of each barrier statement.
    pub barriers: HashMap<StmtId, f64>,
    /// Feasible runs the mean is over.
    pub runs: u64,
    /// What limits the measurement (sampled runs, loop bounds reached, ...).
    pub notes: Vec<String>,
}

impl Profile {
    /// Executions of all barriers together, per run.
    pub fn total(&self) -> f64 {
        self.barriers.values().sum()
    }
}

/// Counts the executions of every barrier statement of `kernel`.
pub fn barrier_executions(it: &Interpreter, kernel: &Kernel) -> Result<Profile, OracleError> {
    let prog = Program::compile(kernel)?;
    let mut opts = it.opts.clone();
    opts.launch = opts.launch.for_kernel(kernel);
    let pinned_it = Interpreter::with_config(opts, it.config.clone());
    let space = RunSpace::new(&prog, &pinned_it);
    let mut machine = Machine::new(&prog, it.opts.arith, it.config.loop_bound, it.config.max_blocks);
    machine.configure(&it.opts, kernel);
    let mut findings = Findings::new(&prog);
    let mut params = vec![0; prog.params.len()];
    let mut sums = vec![0.0f64; prog.stmts.len()];
    let mut out = Profile::default();
    let note = |n: String, out: &mut Profile| {
        if !out.notes.contains(&n) {
            out.notes.push(n);
        }
    };
    let total = space.total();
    let max_runs = it.config.max_runs.max(1) as u128;
    let sampled = total > max_runs;
    if sampled {
        note(
            format!("only {max_runs} of {total} runs (launch × parameters × memory seed) were sampled"),
            &mut out,
        );
    }
    for i in 0..total.min(max_runs) {
        let r = if sampled { space.sample(i) } else { space.index(i) };
        space.params(r.valuation, &mut params);
        let (block_dim, grid_dim) = space.launches[r.launch];
        let spec = RunSpec {
            block_dim,
            grid_dim,
            params: &params,
            seed: u64::from(r.seed),
        };
        if !machine.requires_hold(&spec) {
            continue;
        }
        machine.barrier_hits.iter_mut().for_each(|h| *h = 0);
        match machine.run(&spec, &mut findings) {
            Ok(()) => {}
            // No limit is set on the profile's runs.
            Err(Stop::Infeasible | Stop::Work) => continue,
            Err(Stop::LoopBound { line, bound }) => note(
                format!(
                    "loop at line {line}: bound of {bound} iterations reached; counts of such runs are partial"
                ),
                &mut out,
            ),
            Err(Stop::Arith { line, err }) => note(
                format!("line {line}: {err}; counts of runs reaching it are partial"),
                &mut out,
            ),
        }
        out.runs += 1;
        let all = exec::count(grid_dim);
        let ran = machine.blocks(grid_dim).count() as f64;
        let scale = if ran > 0.0 { f64::from(all) / ran } else { 0.0 };
        if scale > 1.0 {
            note(
                format!("runs on {all} blocks executed {ran} of them; counts are scaled to the whole grid"),
                &mut out,
            );
        }
        for (s, h) in sums.iter_mut().zip(&machine.barrier_hits) {
            *s += *h as f64 * scale;
        }
    }
    if out.runs == 0 {
        return Err(OracleError::NoFeasibleRun(space.describe(kernel)));
    }
    for (info, s) in prog.stmts.iter().zip(&sums) {
        if kernel.stmt(info.id).is_some_and(|st| st.kind.is_barrier()) {
            out.barriers.insert(info.id, s / out.runs as f64);
        }
    }
    Ok(out)
}

/// Executions of a barrier after each candidate label of `LabelTree::new(kernel)`, and
/// after the place of each existing barrier (the label it follows), in one measurement.
pub fn place_executions(
    it: &Interpreter,
    kernel: &Kernel,
) -> Result<(BTreeMap<Label, f64>, Profile), OracleError> {
    let tree = LabelTree::new(kernel);
    let candidates = tree.candidates();
    let (probe, ids) = kpl::insert_barriers(kernel, &tree, &candidates);
    let profile = barrier_executions(it, &probe)?;
    let mut counts = BTreeMap::new();
    for (l, id) in candidates.iter().zip(&ids) {
        counts.insert(*l, profile.barriers.get(id).copied().unwrap_or(0.0));
    }
    for s in kernel.stmts().into_iter().filter(|s| s.kind.is_barrier()) {
        let Some(at) = tree.label_of(s.id).and_then(|l| tree.position_of_barrier(l)) else {
            continue;
        };
        counts
            .entry(at)
            .or_insert_with(|| profile.barriers.get(&s.id).copied().unwrap_or(0.0));
    }
    Ok((counts, profile))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CheckOptions;

    fn interp(block: u32, grid: u32) -> Interpreter {
        Interpreter::new(CheckOptions {
            launch: kpl::Launch {
                block: kpl::launch::dims(Some([block, 1, 1])),
                grid: kpl::launch::dims(Some([grid, 1, 1])),
                ..kpl::Launch::default()
            },
            ..CheckOptions::default()
        })
    }

    const LOOP4: &str = "kernel k(shared A[], n) requires n == 4 {
    local x;
    for (i = 0; i < n; i = i + 1) {
        x = A[tid];
        barrier;
        A[tid] = x;
    }
    barrier;
}";

    #[test]
    fn a_barrier_in_a_loop_of_four_executes_four_times_per_block() {
        let k = kpl::parse(LOOP4).unwrap().remove(0);
        let p = barrier_executions(&interp(8, 3), &k).unwrap();
        assert_eq!(p.runs, 1);
        let b: Vec<StmtId> = k
            .stmts()
            .iter()
            .filter(|s| s.kind.is_barrier())
            .map(|s| s.id)
            .collect();
        assert_eq!(p.barriers[&b[0]], 4.0 * 3.0);
        assert_eq!(p.barriers[&b[1]], 3.0);
        assert_eq!(p.total(), 15.0);
    }

    #[test]
    fn places_are_counted_in_one_run_and_divergent_places_count() {
        let k = kpl::parse(
            "kernel k(shared A[]) {
    local x;
    for (s = 1; s < bdim; s = s * 2) {
        if (tid < s) {
            x = A[tid];
        }
    }
    if (bid == 0) {
        x = A[tid];
    }
}",
        )
        .unwrap()
        .remove(0);
        let (counts, p) = place_executions(&interp(16, 2), &k).unwrap();
        let t = LabelTree::new(&k);
        let after = |line: u32| {
            let l = t
                .candidates()
                .into_iter()
                .find(|l| t.line(*l) == line && t.stmt_id(*l).is_some())
                .unwrap();
            counts[&l]
        };
        assert_eq!(p.runs, 1);
        assert_eq!(after(2), 2.0); // once per block
        assert_eq!(after(5), 4.0 * 2.0); // s = 1, 2, 4, 8: some thread enters every round
        assert_eq!(after(9), 1.0); // only block 0
    }

    #[test]
    fn large_grids_are_scaled_to_the_whole_grid() {
        let k = kpl::parse(LOOP4).unwrap().remove(0);
        let p = barrier_executions(&interp(4, 64), &k).unwrap();
        assert_eq!(p.total(), 5.0 * 64.0);
        assert!(p.notes.iter().any(|n| n.contains("scaled")), "{:?}", p.notes);
    }
}
