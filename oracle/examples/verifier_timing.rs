//! Times the static verifier on the kernels of `tests/it/verifier_kernels.rs`-like shapes:
//! `cargo run --release -p oracle --example verifier_timing [FILE.kpl ...]`.
//! With files, times their kernels instead (symbolic launch, default options).

use std::time::{Duration, Instant};

use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle};

const REDUCTION: &str = "kernel reduce(global out[], global in[], shared s[], n) {
    local sum = 0;
    local v;
    local a;
    local b;
    for (i = bid * bdim + tid; i < n; i = i + bdim * gdim) {
        v = in[i];
        sum = sum + v;
    }
    s[tid] = sum;
    barrier;
    for (k = bdim / 2; k > 0; k = k >> 1) {
        if (tid < k) {
            a = s[tid];
            b = s[tid + k];
            s[tid] = a + b;
        }
        barrier;
    }
    if (tid == 0) {
        a = s[0];
        out[bid] = a;
    }
}
";

const MATMUL: &str = "kernel matmul(global C[], global A[], global B[], shared As[], shared Bs[], n)
    requires n == gdim.x * 16 && gdim.x == gdim.y {
    local row;
    local col;
    local sum = 0;
    local a;
    local b;
    row = bid.y * 16 + tid.y;
    col = bid.x * 16 + tid.x;
    for (t = 0; t < gdim.x; t = t + 1) {
        a = A[row * n + t * 16 + tid.x];
        As[tid.y * 16 + tid.x] = a;
        b = B[(t * 16 + tid.y) * n + col];
        Bs[tid.y * 16 + tid.x] = b;
        barrier;
        for (k = 0; k < 16; k = k + 1) {
            a = As[tid.y * 16 + k];
            b = Bs[k * 16 + tid.x];
            sum = sum + a * b;
        }
        barrier;
    }
    C[row * n + col] = sum;
}
";

fn time(name: &str, src: &str, opts: CheckOptions) {
    let kernels = match kpl::parse(src) {
        Ok(ks) => ks,
        Err(e) => {
            eprintln!("{name}: {e}");
            return;
        }
    };
    for k in kernels {
        let mut v = StaticVerifier::new(opts.clone());
        let t = Instant::now();
        let report = v.check(&k);
        let first = t.elapsed();
        let stripped = k.without_barriers();
        let t = Instant::now();
        let _ = v.check(&stripped);
        let again = t.elapsed();
        let t = Instant::now();
        let _ = v.check(&k);
        let third = t.elapsed();
        let verdict = match &report {
            Ok(r) if r.is_clean() => "clean".to_string(),
            Ok(r) => format!("{} races, {} divergences", r.races.len(), r.divergences.len()),
            Err(e) => e.to_string(),
        };
        println!(
            "{name}/{}: {verdict}; first check {}, without barriers {}, again with barriers {}",
            k.name,
            ms(first),
            ms(again),
            ms(third)
        );
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        // Warm the solver up (context creation) so the numbers are per check.
        time(
            "warm-up",
            "kernel w(shared A[]) { A[tid] = 0; }",
            CheckOptions::default(),
        );
        time("reduction (symbolic launch)", REDUCTION, CheckOptions::default());
        let launch = CheckOptions {
            launch: kpl::Launch {
                block: kpl::launch::dims(Some([256, 1, 1])),
                grid: kpl::launch::dims(Some([64, 1, 1])),
                ..kpl::Launch::default()
            },
            ..CheckOptions::default()
        };
        time("reduction (256 x 64)", REDUCTION, launch);
        let tiles = CheckOptions {
            launch: kpl::Launch {
                block: kpl::launch::dims(Some([16, 16, 1])),
                ..kpl::Launch::default()
            },
            ..CheckOptions::default()
        };
        time("matmul (16 x 16 blocks)", MATMUL, tiles);
    }
    for f in files {
        match std::fs::read_to_string(&f) {
            Ok(src) => time(&f, &src, CheckOptions::default()),
            Err(e) => eprintln!("{f}: {e}"),
        }
    }
}
