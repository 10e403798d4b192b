//! Issue #34 item 4: the persistent result cache, `--cache DIR`. A second run reads
//! every kernel from the cache with the same report; an edit of one kernel checks that
//! kernel again and only it; an option that can change a verdict (the launch, the solver
//! budget, ...) misses; a corrupt entry is a miss; `fix` through the cache writes the
//! same file. The last line on stderr counts the hits and misses.

use std::path::Path;

use crate::common::{autosync_in, code, dir_with, stderr, stdout};

/// Two kernels; the second one's barrier is what an edit removes.
const TWO: &str = "//--blockDim=256 --gridDim=4
__global__ void scale(float *a, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = a[i] * s;
}

__global__ void rotate(float *b) {
    __shared__ float t[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    t[threadIdx.x] = b[i];
    __syncthreads();
    b[i] = t[(threadIdx.x + 1) % 256];
}
";

/// The report without its timings (`[12.3 ms]`, `, 12.3 ms)`, `"time_ms": 12.3`),
/// which are this run's.
fn untimed(text: &str) -> String {
    let times = regex::Regex::new(r#"[0-9]+(\.[0-9]+)? ms|"time_ms": ?[0-9.e+-]+"#).unwrap();
    times.replace_all(text, "TIME").to_string()
}

/// `autosync ARGS` in `dir`: (exit code, stdout without timings, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let o = autosync_in(dir, args);
    (code(&o), untimed(&stdout(&o)), stderr(&o))
}

/// The summary line `--cache cache` ends stderr with.
fn counted(hits: usize, misses: usize) -> String {
    fn s(n: usize, many: &'static str) -> &'static str {
        if n == 1 { "" } else { many }
    }
    format!(
        "autosync: cache cache: {hits} hit{}, {misses} miss{}\n",
        s(hits, "s"),
        s(misses, "es")
    )
}

/// The entries of the cache folder `dir/cache`.
fn entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for sub in std::fs::read_dir(dir.join("cache")).unwrap().flatten() {
        out.extend(std::fs::read_dir(sub.path()).unwrap().flatten().map(|e| e.path()));
    }
    out.sort();
    out
}

#[test]
fn a_second_run_reads_every_kernel_from_the_cache() {
    let (dir, _) = dir_with("two.cu", TWO);
    let d = dir.path();
    let plain = run(d, &["check", "two.cu"]);
    assert_eq!((plain.0, plain.2.as_str()), (0, ""), "no cache, no summary");
    assert!(!d.join("cache").exists());
    let cold = run(d, &["check", "--cache", "cache", "two.cu"]);
    assert_eq!(cold, (0, plain.1.clone(), counted(0, 2)));
    assert_eq!(entries(d).len(), 2, "one entry per kernel");
    let warm = run(d, &["check", "--cache", "cache", "two.cu"]);
    assert_eq!(warm, (0, plain.1.clone(), counted(2, 0)));
    // JSON and SARIF reports are the same from the cache too.
    for format in ["json", "sarif"] {
        let plain = run(d, &["check", "--format", format, "two.cu"]);
        let warm = run(d, &["check", "--format", format, "--cache", "cache", "two.cu"]);
        assert_eq!(warm, (0, plain.1, counted(2, 0)), "{format}");
    }
}

#[test]
fn an_edit_of_one_kernel_checks_that_kernel_again_and_only_it() {
    let (dir, path) = dir_with("two.cu", TWO);
    let d = dir.path();
    run(d, &["check", "--cache", "cache", "two.cu"]);
    // `rotate` loses its barrier: it races now; `scale` is where it was.
    let racy = TWO.replace("    __syncthreads();\n", "");
    std::fs::write(&path, &racy).unwrap();
    let plain = run(d, &["check", "two.cu"]);
    assert!(
        plain.1.contains("kernel `rotate`: race (1 race(s)"),
        "{}",
        plain.1
    );
    assert!(plain.1.contains("two.cu:11:12"), "{}", plain.1);
    let edited = run(d, &["check", "--cache", "cache", "two.cu"]);
    assert_eq!(edited, (1, plain.1.clone(), counted(1, 1)));
    assert_eq!(
        run(d, &["check", "--cache", "cache", "two.cu"]),
        (1, plain.1, counted(2, 0))
    );
    // Back as it was: both answers are still there.
    std::fs::write(&path, TWO).unwrap();
    assert_eq!(run(d, &["check", "--cache", "cache", "two.cu"]).2, counted(2, 0));
    // An edit of the first kernel that changes its length moves the second one: both are
    // checked again (reports carry byte offsets); a line added above both, likewise.
    std::fs::write(&path, TWO.replace("a[i] * s;", "a[i] * s * s;")).unwrap();
    assert_eq!(run(d, &["check", "--cache", "cache", "two.cu"]).2, counted(0, 2));
    std::fs::write(&path, format!("// moved\n{TWO}")).unwrap();
    let moved = run(d, &["check", "--cache", "cache", "two.cu"]);
    assert_eq!(moved.2, counted(0, 2));
    assert_eq!(moved.1, run(d, &["check", "two.cu"]).1);
}

#[test]
fn an_option_that_can_change_a_verdict_misses() {
    let (dir, _) = dir_with("two.cu", TWO);
    let d = dir.path();
    run(d, &["check", "--cache", "cache", "two.cu"]);
    for option in [
        &["--block-dim", "128"][..],
        &["--grid-dim", "8"],
        &["--solver-budget", "2"],
        &["--no-benign-tolerance"],
        &["--wrap"],
        &["--oracle", "dynamic"],
    ] {
        let mut args = vec!["check"];
        args.extend_from_slice(option);
        args.push("two.cu");
        let plain = run(d, &args);
        args.splice(1..1, ["--cache", "cache"]);
        assert_eq!(
            run(d, &args),
            (plain.0, plain.1.clone(), counted(0, 2)),
            "{option:?}"
        );
        assert_eq!(run(d, &args), (plain.0, plain.1, counted(2, 0)), "{option:?}");
    }
    // `--kernel` only selects: the one kernel is a hit.
    assert_eq!(
        run(d, &["check", "--cache", "cache", "--kernel", "rotate", "two.cu"]).2,
        counted(1, 0)
    );
    assert_eq!(run(d, &["check", "--cache", "cache", "two.cu"]).2, counted(2, 0));
}

#[test]
fn a_corrupt_entry_is_a_miss_and_written_again() {
    let (dir, _) = dir_with("two.cu", TWO);
    let d = dir.path();
    let plain = run(d, &["check", "two.cu"]);
    run(d, &["check", "--cache", "cache", "two.cu"]);
    let all = entries(d);
    assert_eq!(all.len(), 2);
    // Half an entry, and the other kernel's entry in the place of this one's.
    let first = std::fs::read(&all[0]).unwrap();
    std::fs::write(&all[1], &first).unwrap();
    std::fs::write(&all[0], &first[..first.len() / 2]).unwrap();
    assert_eq!(
        run(d, &["check", "--cache", "cache", "two.cu"]),
        (0, plain.1.clone(), counted(0, 2))
    );
    assert_eq!(
        run(d, &["check", "--cache", "cache", "two.cu"]),
        (0, plain.1.clone(), counted(2, 0))
    );
    // Garbage in one entry: that kernel alone is a miss.
    std::fs::write(&all[1], "not an entry").unwrap();
    assert_eq!(
        run(d, &["check", "--cache", "cache", "two.cu"]),
        (0, plain.1, counted(1, 1))
    );
}

#[test]
fn fix_through_the_cache_writes_the_same_file() {
    // Both kernels need barriers: one, and two in a loop.
    let racy = "__global__ void shift(float *b) {
    __shared__ float t[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    t[threadIdx.x] = b[i];
    b[i] = t[(threadIdx.x + 1) % 256];
}

__global__ void smooth(float *b, int n) {
    __shared__ float t[257];
    int i = blockIdx.x * 256 + threadIdx.x;
    for (int k = 0; k < n; k++) {
        t[threadIdx.x + 1] = b[i];
        b[i] = t[threadIdx.x] + t[threadIdx.x + 1];
    }
}
";
    let (dir, path) = dir_with("racy.cu", racy);
    let d = dir.path();
    let fix = |cache: bool| {
        let mut args = vec!["fix", "--block-dim", "256", "--stdout"];
        if cache {
            args.extend(["--cache", "cache"]);
        }
        args.push("racy.cu");
        let o = autosync_in(d, &args);
        let err = stderr(&o);
        let (report, summary) = match err.rfind("autosync: cache") {
            Some(at) => (err[..at].to_string(), err[at..].to_string()),
            None => (err.clone(), String::new()),
        };
        (code(&o), stdout(&o), untimed(&report), summary)
    };
    let plain = fix(false);
    assert_eq!(plain.0, 0);
    assert_eq!(plain.1.matches("__syncthreads();").count(), 3, "{}", plain.1);
    let cold = fix(true);
    assert_eq!(cold.3, counted(0, 4), "two placements judged per kernel");
    assert_eq!((cold.0, &cold.1, &cold.2), (plain.0, &plain.1, &plain.2));
    let warm = fix(true);
    assert_eq!(warm.3, counted(4, 0));
    assert_eq!((warm.0, &warm.1, &warm.2), (plain.0, &plain.1, &plain.2));
    // Written in place through the cache: the same file as `--stdout` printed.
    let o = autosync_in(d, &["fix", "--block-dim", "256", "--cache", "cache", "racy.cu"]);
    assert_eq!(code(&o), 0);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), plain.1);
    assert!(stderr(&o).ends_with(&counted(4, 0)), "{}", stderr(&o));
    // The fixed file checks clean; its kernels are new to the cache.
    assert_eq!(
        run(d, &["check", "--block-dim", "256", "--cache", "cache", "racy.cu"]),
        (
            0,
            run(d, &["check", "--block-dim", "256", "racy.cu"]).1,
            counted(0, 2)
        )
    );
}

#[test]
fn a_cache_folder_that_cannot_be_made_is_a_warning() {
    let (dir, _) = dir_with("two.cu", TWO);
    let d = dir.path();
    std::fs::write(d.join("cache"), "a file").unwrap();
    let plain = run(d, &["check", "two.cu"]);
    let (code, out, err) = run(d, &["check", "--cache", "cache", "two.cu"]);
    assert_eq!((code, out), (0, plain.1));
    assert!(
        err.starts_with("autosync: warning: cannot use the cache: cannot create cache")
            && err.ends_with("going on without it\n"),
        "{err}"
    );
}
