//! Before/after of the static verifier's screening queries, in one run:
//! `cargo run --release -p autosync-benches --example screening [-- FILE.kpl|FILE.cu ...]`.
//! Times one fresh check of each of Faial's patterns (and of the given files) with
//! screening off and on.

use std::time::Instant;

use autosync_benches::patterns::Pattern;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle};

fn time(k: &kpl::Kernel, opts: &CheckOptions, screening: bool) -> (f64, usize) {
    let reps = 3;
    let mut total = 0.0;
    let mut races = 0;
    for _ in 0..reps {
        let mut v = StaticVerifier::new(opts.clone());
        v.screening = screening;
        let start = Instant::now();
        races = v.check(k).map(|r| r.races.len()).unwrap_or(usize::MAX);
        total += start.elapsed().as_secs_f64() * 1e3;
    }
    (total / reps as f64, races)
}

fn main() -> anyhow::Result<()> {
    println!("| kernel | n | ms without screening | ms with screening | races (off/on) |");
    println!("|---|---:|---:|---:|---|");
    let opts = CheckOptions::default();
    for p in Pattern::ALL {
        for n in [1, 5, 10, 20, 50] {
            let k = kpl::parse(&p.kernel(n))
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .remove(0);
            let (off, r0) = time(&k, &opts, false);
            let (on, r1) = time(&k, &opts, true);
            println!("| {} | {n} | {off:.2} | {on:.2} | {r0}/{r1} |", p.name());
            if off > 2000.0 || on > 2000.0 {
                break;
            }
        }
    }
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path)?;
        let kernels = if path.ends_with(".kpl") {
            kpl::parse(&text).map_err(|e| anyhow::anyhow!("{e}"))?
        } else {
            let opts = cuda::Options::default();
            cuda::translate(std::path::Path::new(&path), &text, &opts)
                .map_err(|e| anyhow::anyhow!("{path}: {}", e.message))?
                .kernels
                .into_iter()
                .map(|l| l.kernel)
                .collect()
        };
        let launch = kpl::header::header_launch(&text).map_err(|e| anyhow::anyhow!(e))?;
        let opts = CheckOptions {
            launch,
            ..CheckOptions::default()
        };
        for k in &kernels {
            let (off, r0) = time(k, &opts, false);
            let (on, r1) = time(k, &opts, true);
            println!("| {path} {} | - | {off:.2} | {on:.2} | {r0}/{r1} |", k.name);
        }
    }
    Ok(())
}
