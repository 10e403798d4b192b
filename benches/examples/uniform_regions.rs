//! Before/after of barrier places inside block-uniform conditionals and loops (issue #19,
//! `synth::regions`), in one run:
//! `cargo run --release -p autosync-benches --example uniform_regions [-- SUITE ...]`
//! (default: the micro and realistic suites). Each kernel is stripped and synthesized with
//! the paper's candidates only and with the uniform regions, each with a fresh static
//! verifier; prints barriers, cost, oracle and solver calls, and the MaxSAT time (median
//! of 3 runs) of both.

use std::time::Duration;

use autosync_benches::suite;
use oracle::verifier::StaticVerifier;
use synth::{PaperCost, SynthOptions, Synthesis};

fn synth_once(k: &kpl::Kernel, launch: &oracle::CheckOptions, regions: bool) -> anyhow::Result<Synthesis> {
    let cost = PaperCost::default();
    let mut opts = SynthOptions::new(&cost);
    opts.uniform_regions = regions;
    let mut o = StaticVerifier::new(launch.clone());
    Ok(synth::synthesize(k, &mut o, &opts)?)
}

/// The last synthesis and the median MaxSAT and total times of `reps` runs.
fn measure(
    k: &kpl::Kernel,
    launch: &oracle::CheckOptions,
    regions: bool,
) -> anyhow::Result<(Synthesis, f64, f64)> {
    let reps = 3;
    let mut solver: Vec<Duration> = Vec::new();
    let mut total: Vec<Duration> = Vec::new();
    let mut last = None;
    for _ in 0..reps {
        let s = synth_once(k, launch, regions)?;
        solver.push(s.stats.solver_time);
        total.push(s.stats.time);
        last = Some(s);
    }
    solver.sort();
    total.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    Ok((last.expect("reps > 0"), ms(solver[reps / 2]), ms(total[reps / 2])))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = if args.is_empty() {
        suite::DEFAULT.to_vec()
    } else {
        args.iter().map(String::as_str).collect()
    };
    println!(
        "| suite | kernel | B paper/regions | cost paper/regions | oracle calls | solver calls | MaxSAT ms paper | MaxSAT ms regions | total ms paper | total ms regions |"
    );
    println!("|---|---|---|---|---|---|---:|---:|---:|---:|");
    let (mut sum_before, mut sum_after) = (0.0, 0.0);
    for entry in suite::entries(&suite::root(), &names)? {
        let (kernels, launch) = match suite::load(&entry.path) {
            Ok(x) => x,
            Err(e) => {
                println!("| {} | {} | {e} |", entry.suite, entry.path.display());
                continue;
            }
        };
        for k in kernels {
            let stripped = k.without_movable_barriers();
            let (a, sa, ta) = measure(&stripped, &launch, false)?;
            let (b, sb, tb) = measure(&stripped, &launch, true)?;
            sum_before += sa;
            sum_after += sb;
            println!(
                "| {} | {} | {}/{} | {}/{} | {}/{} | {}/{} | {sa:.2} | {sb:.2} | {ta:.1} | {tb:.1} |",
                entry.suite,
                k.name,
                a.inserted.len(),
                b.inserted.len(),
                a.cost,
                b.cost,
                a.stats.oracle_calls,
                b.stats.oracle_calls,
                a.stats.solver_calls,
                b.stats.solver_calls,
            );
        }
    }
    println!(
        "\nMaxSAT time, sum of medians: {sum_before:.2} ms (paper's candidates) → {sum_after:.2} ms (uniform regions)"
    );
    Ok(())
}
