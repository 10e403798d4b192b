//! `cargo run --release -p autosync-benches [-- --json] [--scalability] [--oracle dynamic]`: for every
//! benchmark kernel, strip its barriers, synthesize with AutoSync (MaxSAT) and with the
//! naive baseline, verify both, and print a table like the paper's Tables I and II.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use autosync_benches::patterns::Pattern;
use autosync_benches::suite;
use oracle::{CheckOptions, Oracle};
use serde_json::json;
use synth::{Outcome, PaperCost, SynthOptions};

struct Row {
    suite: &'static str,
    name: String,
    loc: usize,
    calls: [u32; 2],
    barriers: [usize; 3],
    cost: [f64; 2],
    time_ms: [f64; 2],
    verified: [bool; 2],
}

/// Which oracle the harness uses (`--oracle dynamic` for the interpreter).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Static,
    Dynamic,
}

fn oracle(which: Which, launch: kpl::header::Launch) -> Box<dyn Oracle> {
    let opts = CheckOptions {
        block_dim: launch.0,
        grid_dim: launch.1,
        ..CheckOptions::default()
    };
    match which {
        Which::Static => Box::new(oracle::verifier::StaticVerifier::new(opts)),
        Which::Dynamic => Box::new(oracle::dynamic::Interpreter::new(opts)),
    }
}

fn measure(entry: &suite::Entry, which: Which) -> Result<Vec<Row>> {
    let (kernels, launch) = suite::load(&entry.path).with_context(|| format!("{}", entry.path.display()))?;
    let cost = PaperCost::default();
    let opts = SynthOptions::new(&cost);
    let mut rows = Vec::new();
    for k in &kernels {
        let stripped = k.without_barriers();
        let mut results = Vec::new();
        for naive in [true, false] {
            let mut o = oracle(which, launch);
            let s = if naive {
                synth::naive(&stripped, o.as_mut(), &opts)?
            } else {
                synth::synthesize(&stripped, o.as_mut(), &opts)?
            };
            let verified = !matches!(s.outcome, Outcome::NoSolution(_))
                && oracle(which, launch).check(&s.kernel)?.is_clean();
            results.push((s, verified));
        }
        let loc = k.span.end_line.max(k.body.span.end_line) as usize - k.span.line as usize + 1;
        rows.push(Row {
            suite: entry.suite,
            name: k.name.clone(),
            loc,
            calls: [results[0].0.stats.oracle_calls, results[1].0.stats.oracle_calls],
            barriers: [
                k.barrier_count(),
                results[0].0.kernel.barrier_count(),
                results[1].0.kernel.barrier_count(),
            ],
            cost: [synth::placement_cost(k, &cost), results[1].0.cost],
            time_ms: [
                results[0].0.stats.time.as_secs_f64() * 1e3,
                results[1].0.stats.time.as_secs_f64() * 1e3,
            ],
            verified: [results[0].1, results[1].1],
        });
    }
    Ok(rows)
}

fn print_table(rows: &[Row]) {
    println!(
        "| suite | kernel | LoC | calls N | calls AS | B orig | B N | B AS | cost orig | cost AS | ms N | ms AS | N/AS | verified N/AS |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.1}× | {}/{} |",
            r.suite,
            r.name,
            r.loc,
            r.calls[0],
            r.calls[1],
            r.barriers[0],
            r.barriers[1],
            r.barriers[2],
            r.cost[0],
            r.cost[1],
            r.time_ms[0],
            r.time_ms[1],
            r.time_ms[0] / r.time_ms[1].max(1e-9),
            r.verified[0],
            r.verified[1]
        );
    }
}

fn json_rows(rows: &[Row]) -> serde_json::Value {
    json!({"kernels": rows.iter().map(|r| json!({
        "suite": r.suite, "name": r.name, "loc": r.loc,
        "oracle_calls_naive": r.calls[0], "oracle_calls_autosync": r.calls[1],
        "barriers_original": r.barriers[0], "barriers_naive": r.barriers[1], "barriers_autosync": r.barriers[2],
        "cost_original": r.cost[0], "cost_autosync": r.cost[1],
        "time_ms_naive": r.time_ms[0], "time_ms_autosync": r.time_ms[1],
        "verified_naive": r.verified[0], "verified_autosync": r.verified[1],
    })).collect::<Vec<_>>()})
}

/// Time of one oracle call (a fresh oracle each time, so no cache helps) on Faial's
/// patterns, 1..=50 repetitions; a pattern stops growing once a call takes over 2 s.
fn scalability(which: Which) -> Result<()> {
    println!("| pattern | n | ms per oracle call |");
    println!("|---|---:|---:|");
    for p in Pattern::ALL {
        for n in [1, 2, 5, 10, 20, 30, 40, 50] {
            let k = kpl::parse(&p.kernel(n))
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .remove(0);
            let reps = 3;
            let mut total = 0.0;
            for _ in 0..reps {
                let mut o = oracle(which, (None, None));
                let start = Instant::now();
                o.check(&k)?;
                total += start.elapsed().as_secs_f64() * 1e3;
            }
            let ms = total / reps as f64;
            println!("| {} | {n} | {ms:.2} |", p.name());
            if ms > 2000.0 {
                println!("| {} | >{n} | (stopped: over 2 s per call) |", p.name());
                break;
            }
        }
    }
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = if args.windows(2).any(|w| w[0] == "--oracle" && w[1] == "dynamic") {
        Which::Dynamic
    } else {
        Which::Static
    };
    if args.iter().any(|a| a == "--scalability") {
        return scalability(which);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut rows = Vec::new();
    for e in suite::entries(&root)? {
        rows.extend(measure(&e, which)?);
    }
    if args.iter().any(|a| a == "--json") {
        println!("{}", json_rows(&rows));
    } else {
        print_table(&rows);
    }
    Ok(())
}
