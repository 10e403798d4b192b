//! Before/after of the placement options beyond the paper (issue #19, `synth::regions`),
//! in one run: `cargo run --release -p autosync-benches --example uniform_regions [-- SUITE ...]`
//! (default: the micro and realistic suites). Each kernel is stripped and synthesized
//! three times, each with a fresh static verifier: with the paper's candidates only,
//! with the places inside block-uniform conditionals and loops (`uniform_regions`), and
//! with loop-instance places and forward-only races too (`loop_instances`, the default;
//! the verifier asked `race_directions`). Prints barriers, cost, oracle and solver calls,
//! and the MaxSAT time (median of 3 runs) of each.

use std::time::Duration;

use autosync_benches::suite;
use oracle::verifier::StaticVerifier;
use synth::{PaperCost, SynthOptions, Synthesis};

/// The options compared, in the order printed.
const VARIANTS: [(&str, bool, bool); 3] = [
    ("paper", false, false),
    ("regions", true, false),
    ("loop-instances", true, true),
];

fn synth_once(
    k: &kpl::Kernel,
    launch: &oracle::CheckOptions,
    (_, regions, instances): (&str, bool, bool),
) -> anyhow::Result<Synthesis> {
    let cost = PaperCost::default();
    let mut opts = SynthOptions::new(&cost);
    opts.uniform_regions = regions;
    opts.loop_instances = instances;
    let mut o = StaticVerifier::new(oracle::CheckOptions {
        race_directions: instances,
        ..launch.clone()
    });
    Ok(synth::synthesize(k, &mut o, &opts)?)
}

/// The last synthesis and the median MaxSAT and total times of `reps` runs.
fn measure(
    k: &kpl::Kernel,
    launch: &oracle::CheckOptions,
    variant: (&str, bool, bool),
) -> anyhow::Result<(Synthesis, f64, f64)> {
    let reps = 3;
    let mut solver: Vec<Duration> = Vec::new();
    let mut total: Vec<Duration> = Vec::new();
    let mut last = None;
    for _ in 0..reps {
        let s = synth_once(k, launch, variant)?;
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
    let head: Vec<&str> = VARIANTS.iter().map(|v| v.0).collect();
    println!(
        "| suite | kernel | barriers | cost | oracle calls | solver calls | MaxSAT ms | total ms |  ({})",
        head.join(" / ")
    );
    println!("|---|---|---|---|---|---|---:|---:|");
    let mut sums = [0.0; VARIANTS.len()];
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
            let mut runs = Vec::new();
            for (i, v) in VARIANTS.iter().enumerate() {
                let r = measure(&stripped, &launch, *v)?;
                sums[i] += r.1;
                runs.push(r);
            }
            let col = |f: &dyn Fn(&(Synthesis, f64, f64)) -> String| {
                runs.iter().map(f).collect::<Vec<_>>().join("/")
            };
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                entry.suite,
                k.name,
                col(&|r| r.0.inserted.len().to_string()),
                col(&|r| r.0.cost.to_string()),
                col(&|r| r.0.stats.oracle_calls.to_string()),
                col(&|r| r.0.stats.solver_calls.to_string()),
                col(&|r| format!("{:.2}", r.1)),
                col(&|r| format!("{:.1}", r.2)),
            );
        }
    }
    let sums: Vec<String> = sums.iter().map(|s| format!("{s:.2}")).collect();
    println!(
        "\nMaxSAT time, sum of medians (ms): {} ({})",
        sums.join(" / "),
        head.join(" / ")
    );
    Ok(())
}
