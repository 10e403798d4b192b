//! `cargo run --release -p autosync-benches [-- --json] [--suite NAME]... [--oracle dynamic]`:
//! for every benchmark kernel (suites `micro` and `realistic` unless `--suite` names
//! others, e.g. `examples`), strip its barriers, synthesize with AutoSync (MaxSAT) and
//! with the naive baseline, verify both, and print a table like the paper's Tables I and
//! II with summary lines and the targets of issue #5.
//!
//! `--cost-study [--svg PATH]`: the cost-model study (`cost_study`): the models' optimal
//! placements per kernel, and Spearman's ρ of static costs against measured barrier
//! executions over many valid placements; `--svg` writes the scatter plot.
//!
//! `--scalability [--svg PATH] [--sizes 1,2,..] [--reps N]`: time per oracle call on
//! Faial's patterns (sizes 1 to 400 by default), as a table, and as an SVG plot when
//! `--svg` is given.
//!
//! Every table run also prints the tail of `check` times per file (p50/p90/p99/max over
//! `tests/corpus/`, the realistic suite and the micro-benchmarks, `tail`); `--tail`
//! prints only that section.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use autosync_benches::harness::{self, Which};
use autosync_benches::patterns::Pattern;
use autosync_benches::{cost_study, plot, suite, tail};

/// The sizes of the scalability patterns (`--sizes` replaces them).
const SIZES: [u32; 11] = [1, 2, 5, 10, 20, 50, 100, 150, 200, 300, 400];

/// Time of one oracle call (a fresh oracle each time, so no cache helps) on Faial's
/// patterns at `sizes` repetitions; a pattern stops growing once a call takes over 2 s.
fn scalability(which: Which, svg: Option<PathBuf>, sizes: &[u32], reps: usize) -> Result<()> {
    println!("| pattern | n | ms per oracle call |");
    println!("|---|---:|---:|");
    let mut series = Vec::new();
    for p in Pattern::ALL {
        let mut points = Vec::new();
        for &n in sizes {
            let k = kpl::parse(&p.kernel(n as usize))
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .remove(0);
            let mut total = 0.0;
            for _ in 0..reps {
                let mut o = harness::oracle(which, oracle::CheckOptions::default());
                let start = Instant::now();
                o.check(&k)?;
                total += start.elapsed().as_secs_f64() * 1e3;
            }
            let ms = total / reps as f64;
            println!("| {} | {n} | {ms:.2} |", p.name());
            points.push((n, ms));
            if ms > 2000.0 {
                println!("| {} | >{n} | (stopped: over 2 s per call) |", p.name());
                break;
            }
        }
        series.push((p.name().to_string(), points));
    }
    if let Some(path) = svg {
        plot::scalability_svg(&path, &series)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// The tail of `check` times over the corpus and the suites (printed by every run).
fn tail_section() -> String {
    let rows = tail::measure(&suite::root());
    format!(
        "## Tail of `check` times (one `check` per file, files one after the other)\n\n{}",
        tail::table(&rows, 10)
    )
}

struct Args {
    json: bool,
    scalability: bool,
    cost_study: bool,
    svg: Option<PathBuf>,
    which: Which,
    suites: Vec<String>,
    sizes: Vec<u32>,
    reps: usize,
    tail_only: bool,
}

fn args() -> Result<Args> {
    let mut a = Args {
        json: false,
        scalability: false,
        cost_study: false,
        svg: None,
        which: Which::Static,
        suites: Vec::new(),
        sizes: SIZES.to_vec(),
        reps: 3,
        tail_only: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => a.json = true,
            "--scalability" => a.scalability = true,
            "--tail" => a.tail_only = true,
            "--cost-study" => a.cost_study = true,
            "--svg" => {
                let Some(p) = it.next() else {
                    bail!("--svg needs a path")
                };
                a.svg = Some(p.into());
            }
            "--oracle" => match it.next().as_deref() {
                Some("dynamic") => a.which = Which::Dynamic,
                Some("static") => a.which = Which::Static,
                other => bail!("--oracle takes static or dynamic, not {other:?}"),
            },
            "--suite" => {
                let Some(s) = it.next() else {
                    bail!("--suite needs a name")
                };
                if !suite::SUITES.iter().any(|x| x.0 == s) {
                    bail!("unknown suite `{s}` (known: examples, micro, realistic)");
                }
                a.suites.push(s);
            }
            "--sizes" => {
                let Some(list) = it.next() else {
                    bail!("--sizes needs a comma-separated list")
                };
                a.sizes = list
                    .split(',')
                    .map(|x| x.trim().parse::<u32>())
                    .collect::<Result<_, _>>()
                    .map_err(|e| anyhow::anyhow!("--sizes {list}: {e}"))?;
            }
            "--reps" => {
                let Some(r) = it.next() else {
                    bail!("--reps needs a number")
                };
                a.reps = r.parse::<usize>()?.max(1);
            }
            "--bench" => {} // passed by `cargo bench`; nothing to do
            other => bail!(
                "unknown argument `{other}`; usage: [--json] [--suite NAME]... [--oracle static|dynamic] \
                 | --tail | --scalability [--svg PATH] [--sizes N,..] [--reps N] | --cost-study [--suite NAME]... [--svg PATH]"
            ),
        }
    }
    Ok(a)
}

fn main() -> Result<()> {
    let a = args()?;
    let names: Vec<&str> = if a.suites.is_empty() {
        suite::DEFAULT.to_vec()
    } else {
        a.suites.iter().map(String::as_str).collect()
    };
    if a.cost_study {
        let entries = suite::entries(&suite::root(), &names)?;
        let rows = cost_study::study(&entries);
        print!("{}", cost_study::tables(&rows));
        if let Some(path) = a.svg {
            let series = |f: fn(&cost_study::Point) -> f64| -> Vec<(f64, f64)> {
                rows.iter()
                    .flat_map(|r| r.points.iter().map(|p| (f(p), p.measured)))
                    .collect()
            };
            plot::cost_scatter_svg(
                &path,
                &[
                    ("paper (LC=100, IC=0.5)".to_string(), series(|p| p.paper)),
                    ("bounds".to_string(), series(|p| p.bounds)),
                ],
            )?;
            eprintln!("wrote {}", path.display());
        }
        return Ok(());
    }
    if a.scalability || a.svg.is_some() {
        return scalability(a.which, a.svg, &a.sizes, a.reps);
    }
    if a.tail_only {
        print!("{}", tail_section());
        return Ok(());
    }
    let entries = suite::entries(&suite::root(), &names)?;
    let start = Instant::now();
    let rows = harness::measure_all(&entries, a.which);
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    if a.json {
        let kernels: Vec<_> = rows.iter().map(harness::Row::json).collect();
        println!(
            "{}",
            serde_json::json!({ "kernels": kernels, "wall_ms": wall_ms })
        );
    } else {
        print!("{}", harness::table(&rows));
        println!();
        print!("{}", harness::summary(&rows, wall_ms));
        println!();
        print!("{}", tail_section());
    }
    Ok(())
}
