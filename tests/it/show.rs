//! `--show preprocessed|kpl|labels|summary|queries|rounds`: a stage's output for the
//! selected kernels, exit 0, nothing written (only `rounds` verifies: it runs the synthesis).

use std::path::Path;

use crate::common::{autosync_in, dir_with};

const SRC: &str = "kernel s(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        if (tid > 0) {
            x = A[tid - 1];
            A[tid] = x;
        }
        barrier;
    }
}

kernel d(global B[]) {
    if (tid > 0) {
        barrier;
    }
    B[bid] = 1;
}
";

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = autosync_in(dir, args);
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn setup() -> tempfile::TempDir {
    dir_with("s.kpl", SRC).0
}

#[test]
fn show_kpl_prints_the_lowered_kernel() {
    let dir = setup();
    let (code, out) = run(dir.path(), &["check", "--show", "kpl", "--kernel", "s", "s.kpl"]);
    assert_eq!(code, 0);
    let want: String = SRC.lines().take(10).map(|l| format!("{l}\n")).collect();
    assert_eq!(out, want);
}

#[test]
fn show_labels_prints_the_label_tree() {
    let dir = setup();
    let (code, out) = run(dir.path(), &["check", "--show", "labels", "s.kpl"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "s.kpl: kernel `s`",
            "  mains start line 1 loops [] conds [] candidate",
            "  2 stmt line 2 loops [] conds [] candidate",
            "  3:9s start line 3 loops [3:9] conds [] candidate",
            "  4:7s start line 4 loops [3:9] conds [4:7] candidate",
            "  5 stmt line 5 loops [3:9] conds [4:7] candidate",
            "  6 stmt line 6 loops [3:9] conds [4:7] candidate",
            "  4:7 if line 4 loops [3:9] conds [] candidate",
            "  8 barrier line 8 loops [3:9] conds [] -",
            "  3:9 loop line 3 loops [] conds [] candidate",
            "  main main line 1 loops [] conds [] -",
            "s.kpl: kernel `d`",
            "  mains start line 12 loops [] conds [] candidate",
            "  13:15s start line 13 loops [] conds [13:15] candidate",
            "  14 barrier line 14 loops [] conds [13:15] -",
            "  13:15 if line 13 loops [] conds [] candidate",
            "  16 stmt line 16 loops [] conds [] candidate",
            "  main main line 12 loops [] conds [] -",
        ]
    );
}

#[test]
fn show_queries_lists_what_the_verifier_would_ask() {
    let dir = setup();
    let (code, out) = run(dir.path(), &["check", "--show", "queries", "s.kpl"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "s.kpl: kernel `s`",
            "  race on `A`: read 5:13 / write 6:13, same iteration, same block",
            "  race on `A`: read 5:13 / write 6:13, different iterations at loop depth 1 (earlier first), same block",
            "  race on `A`: read 5:13 / write 6:13, different iterations at loop depth 1 (later first), same block",
            "  race on `A`: write 6:13 / write 6:13, same iteration, same block",
            "  race on `A`: write 6:13 / write 6:13, different iterations at loop depth 1 (earlier first), same block",
            "s.kpl: kernel `d`",
            "  divergence: barrier at 14:9",
            "  race on `B`: write 16:5 / write 16:5, same iteration, same block",
            "  race on `B`: write 16:5 / write 16:5, same iteration, different blocks",
        ]
    );
}

#[test]
fn fix_show_does_not_write() {
    let dir = setup();
    let (code, out) = run(dir.path(), &["fix", "--show", "labels", "--kernel", "d", "s.kpl"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("s.kpl: kernel `d`"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.kpl")).expect("read"),
        SRC
    );
}

#[test]
fn show_summary_prints_the_symbolic_summary_with_proved_invariants() {
    let dir = setup();
    let (code, out) = run(
        dir.path(),
        &["check", "--show", "summary", "--kernel", "s", "s.kpl"],
    );
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "s.kpl: kernel `s`",
            "  launch: block ?×?×?, grid ?×?×?, at most 1024 threads per block, warp size 32; symbolic parameters n",
            "  loop 0 (line 3): iteration k0, trip count a5, guard k0 < n",
            "  loop 0 invariant a1(k0) >= 0: proved",
            "  loop 0 invariant a1(k0) <= 0: not preserved by an iteration",
            "  loop 0 invariant a1(k0) <= n: proved",
            "  loop 0 invariant a1(k0) >= n: false before the first iteration",
            "  loop 0 invariant a1(k0) < n: false before the first iteration",
            "  loop 0 invariant a1(k0) > n: false before the first iteration",
            "  barrier at 8:9 when in_loop0",
            "  read 5:13 A[tid.x - 1] when in_loop0 && tid.x > 0 (iterations k0)",
            "  write 6:13 A[tid.x] when in_loop0 && tid.x > 0 (iterations k0)",
            "  a0: an arbitrary value at line 2; one value per thread",
            "  a1: `i` at the start of an iteration of loop 0; one value per grid",
            "  a2: `x` at the start of an iteration of loop 0; one value per thread",
            "  a3: the value read (or returned by an atomic) at line 5; one value per thread",
            "  a4: `x` carried by loop 0 (no closed form); one value per thread",
            "  a5: the trip count of loop 0; one value per grid",
            "  a6: the value read (or returned by an atomic) at line 5; one value per thread",
        ]
    );
}

/// The rounds without their times (wall time varies between runs).
fn without_times(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| match l.rfind(" [") {
            Some(i) if l.ends_with(" ms]") => l[..i].to_string(),
            _ => l.to_string(),
        })
        .collect()
}

#[test]
fn show_rounds_lists_each_placement_the_synthesis_tried() {
    let src = "kernel r(shared A[], global out[]) {
    local x;
    A[tid] = tid;
    x = A[(tid + 1) % bdim];
    out[bid * bdim + tid] = x;
}
";
    let dir = dir_with("r.kpl", src).0;
    let (code, out) = run(dir.path(), &["fix", "--show", "rounds", "r.kpl"]);
    assert_eq!(code, 0);
    assert_eq!(
        without_times(&out),
        [
            "r.kpl: kernel `r`",
            "  round 1: the kernel as given: races between lines 3–4",
            "  round 2: a barrier after line 3: clean",
            "  outcome: fixed, barrier after line 3, cost 1 (was 0)",
        ]
    );
    // Nothing is written.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("r.kpl")).expect("read"),
        src
    );
    // `check --show rounds` synthesizes with fix's defaults.
    let (code, again) = run(dir.path(), &["check", "--show", "rounds", "r.kpl"]);
    assert_eq!(code, 0);
    assert_eq!(without_times(&again), without_times(&out));
}

#[test]
fn show_preprocessed_prints_the_text_after_the_preprocessor() {
    let src = "#define N 64
#if N > 32
__global__ void k(int *a) { a[threadIdx.x] = N; }
#else
__global__ void k(int *a) { a[0] = 0; }
#endif
";
    let dir = dir_with("p.cu", src).0;
    let (code, out) = run(dir.path(), &["check", "--show", "preprocessed", "p.cu"]);
    assert_eq!(code, 0);
    assert!(out.contains("a[threadIdx.x] = 64;"), "{out}");
    assert!(!out.contains("a[0] = 0"), "{out}");
    assert!(!out.contains("#define"), "{out}");
}
