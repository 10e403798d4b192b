//! Warp lock step in the static verifier, re-sync method (one query per race type) vs
//! two-pass (seed 000 Sec. 3: different warps, then one warp), in one run:
//! `cargo run --release -p autosync-benches --example warp_methods [-- FILE.cu ...]`.
//! Times a fresh check of each kernel (mean of 5) with `--warp-size 32` (or the file's
//! `--warp-sync`), default files: the warp-synchronous reductions.

use std::time::Instant;

use oracle::Oracle;
use oracle::verifier::StaticVerifier;

fn main() -> anyhow::Result<()> {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        let root = autosync_benches::suite::root();
        for f in [
            "benches/realistic/reduce5.cu",
            "benches/realistic/reduce6.cu",
            "tests/corpus/sdk/reduce4Warp.cu",
        ] {
            files.push(root.join(f).display().to_string());
        }
    }
    println!("| kernel | re-sync ms | two-pass ms | races (re-sync/two-pass) |");
    println!("|---|---:|---:|---|");
    for path in files {
        let (kernels, mut opts) = autosync_benches::suite::load(std::path::Path::new(&path))?;
        opts.launch.warp_size = opts.launch.warp_size.or(Some(32));
        for k in &kernels {
            let mut row = Vec::new();
            for two_pass in [false, true] {
                let reps = 5;
                let mut total = 0.0;
                let mut races = 0;
                for _ in 0..reps {
                    let mut v = StaticVerifier::new(opts.clone());
                    v.warp_two_pass = two_pass;
                    let start = Instant::now();
                    races = v.check(k)?.races.len();
                    total += start.elapsed().as_secs_f64() * 1e3;
                }
                row.push((total / reps as f64, races));
            }
            println!(
                "| {} | {:.1} | {:.1} | {}/{} |",
                k.name, row[0].0, row[1].0, row[0].1, row[1].1
            );
        }
    }
    Ok(())
}
