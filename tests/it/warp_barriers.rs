//! `fix --warp-barriers` (issue #7): `__syncwarp()` where every race a barrier must
//! remove is between threads of one warp, `__syncthreads()` elsewhere; exact lines,
//! costs, exit codes, both oracles, and the rewritten file checked again.

use serde_json::{Value, json};

use crate::common::{autosync_in, check_in_temp, fix_in_temp, line};

/// Every thread exchanges with its neighbour `tid ^ 1`, which is in its warp.
const PAIRS: &str = "//--blockDim=64 --gridDim=1
__global__ void pairs(int *out) {
    __shared__ int s[64];
    int tid = threadIdx.x;
    int v = out[tid];
    s[tid] = v;
    int x = s[tid ^ 1];
    out[tid] = x;
}
";

/// Mirrored threads `63 - tid` are in different warps.
const CROSS: &str = "//--blockDim=64 --gridDim=1
__global__ void cross(int *out) {
    __shared__ int s[64];
    int tid = threadIdx.x;
    int v = out[tid];
    s[tid] = v;
    int x = s[63 - tid];
    out[tid] = x;
}
";

/// One exchange inside warps, one across them.
const MIXED: &str = "//--blockDim=64 --gridDim=1
__global__ void mixed(int *out) {
    __shared__ int s[64];
    __shared__ int t[64];
    int tid = threadIdx.x;
    s[tid] = out[tid];
    int x = s[tid ^ 1];
    t[tid] = x;
    int y = t[63 - tid];
    out[tid] = y;
}
";

/// Only the first warp enters the conditional: a block barrier there diverges.
const GUARDED: &str = "//--blockDim=64 --gridDim=1
__global__ void guarded(int *out) {
    __shared__ int s[64];
    int tid = threadIdx.x;
    if (tid < 32) {
        s[tid] = out[tid];
        int x = s[31 - tid];
        out[tid] = x;
    }
}
";

/// `fix` of `text` saved as `k.cu` ([`fix_in_temp`]).
fn fix(text: &str, args: &[&str]) -> (Option<i32>, Value, String) {
    fix_in_temp("k.cu", text, args)
}

/// `check --oracle ORACLE` of `text` saved as `k.cu` ([`check_in_temp`]).
fn check(text: &str, oracle: &str) -> Option<i32> {
    check_in_temp("k.cu", text, oracle)
}

#[test]
fn a_race_inside_warps_gets_a_warp_barrier() {
    for oracle in ["static", "dynamic"] {
        let (code, k, fixed) = fix(PAIRS, &["--warp-barriers", "--oracle", oracle]);
        assert_eq!(code, Some(0), "{oracle}");
        assert_eq!(
            k["inserted"],
            json!([{"line": 7, "after_line": 6, "kind": "warp"}]),
            "{oracle}"
        );
        assert_eq!(k["cost"], json!(0.25));
        assert_eq!(line(&fixed, 7), "__syncwarp();");
        assert_eq!(fixed.matches("__sync").count(), 1);
        assert_eq!(check(&fixed, "static"), Some(0), "{fixed}");
        assert_eq!(check(&fixed, "dynamic"), Some(0), "{fixed}");
    }
    // Without the flag: the block barrier, and no `kind` (the report is as before).
    let (code, k, fixed) = fix(PAIRS, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(k["inserted"], json!([{"line": 7, "after_line": 6}]));
    assert_eq!(k["cost"], json!(1.0));
    assert_eq!(line(&fixed, 7), "__syncthreads();");
}

#[test]
fn a_race_across_warps_still_gets_a_block_barrier() {
    for oracle in ["static", "dynamic"] {
        let (code, k, fixed) = fix(CROSS, &["--warp-barriers", "--oracle", oracle]);
        assert_eq!(code, Some(0), "{oracle}");
        assert_eq!(
            k["inserted"],
            json!([{"line": 7, "after_line": 6, "kind": "block"}])
        );
        assert_eq!(k["cost"], json!(1.0));
        assert_eq!(line(&fixed, 7), "__syncthreads();");
        assert!(!fixed.contains("__syncwarp"));
    }
}

#[test]
fn a_mixed_kernel_gets_one_of_each() {
    let mut texts = Vec::new();
    for oracle in ["static", "dynamic"] {
        let (code, k, fixed) = fix(MIXED, &["--warp-barriers", "--oracle", oracle]);
        assert_eq!(code, Some(0), "{oracle}");
        assert_eq!(
            k["inserted"],
            json!([
                {"line": 7, "after_line": 6, "kind": "warp"},
                {"line": 10, "after_line": 8, "kind": "block"}
            ]),
            "{oracle}"
        );
        assert_eq!(k["cost"], json!(1.25));
        assert_eq!(k["barriers"], json!(1));
        assert_eq!(line(&fixed, 7), "__syncwarp();");
        assert_eq!(line(&fixed, 10), "__syncthreads();");
        assert_eq!(check(&fixed, "static"), Some(0), "{fixed}");
        texts.push(fixed);
    }
    assert_eq!(texts[0], texts[1], "both oracles give the same placement");
    // A warp barrier dearer than a block barrier is never chosen.
    let (_, k, _) = fix(MIXED, &["--warp-barriers", "--warp-cost", "2"]);
    assert_eq!(
        k["inserted"],
        json!([
            {"line": 7, "after_line": 6, "kind": "block"},
            {"line": 10, "after_line": 8, "kind": "block"}
        ])
    );
    assert_eq!(k["cost"], json!(2.0));
}

#[test]
fn a_warp_barrier_fixes_what_a_block_barrier_cannot() {
    let (code, k, _) = fix(GUARDED, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(k["status"], json!("no-solution"));
    let (code, k, fixed) = fix(GUARDED, &["--warp-barriers"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        k["inserted"],
        json!([{"line": 7, "after_line": 6, "kind": "warp"}])
    );
    assert_eq!(k["cost"], json!(0.125));
    assert_eq!(line(&fixed, 7), "__syncwarp();");
    assert_eq!(check(&fixed, "static"), Some(0), "{fixed}");
}

#[test]
fn text_report_and_kpl_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cu"), PAIRS).unwrap();
    let out = autosync_in(dir.path(), &["fix", "--warp-barriers", "--stdout", "k.cu"]);
    assert_eq!(out.status.code(), Some(0));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(
            "k.cu: kernel `pairs`: inserted 1 barrier(s) at line(s) 7; of which 1 warp barrier(s) \
             (`__syncwarp();`) at line(s) 7; 0 barrier(s), cost 0.25 (was 0)"
        ),
        "{text}"
    );
    std::fs::write(
        dir.path().join("loop.kpl"),
        "kernel shuffle(shared s[], global out[], n) {
    local x = 0;
    for (i = 0; i < n; i = i + 1) {
        s[tid] = x + i;
        x = s[tid ^ 1];
    }
    out[tid] = x;
}
",
    )
    .unwrap();
    let args = [
        "fix",
        "--warp-barriers",
        "--block-dim",
        "64",
        "--grid-dim",
        "1",
        "loop.kpl",
    ];
    let out = autosync_in(dir.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixed = std::fs::read_to_string(dir.path().join("loop.kpl")).unwrap();
    assert_eq!(line(&fixed, 4), "warp_barrier;");
    assert_eq!(line(&fixed, 6), "warp_barrier;");
    // Two warp barriers and no block barrier.
    assert_eq!(fixed.matches("warp_barrier;").count(), 2);
    assert_eq!(fixed.matches("barrier;").count(), 2);
    let out = autosync_in(
        dir.path(),
        &["check", "--block-dim", "64", "--grid-dim", "1", "loop.kpl"],
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn warp_cost_needs_warp_barriers_and_a_positive_factor() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cu"), PAIRS).unwrap();
    let out = autosync_in(dir.path(), &["fix", "--warp-cost", "0.5", "k.cu"]);
    assert_eq!(out.status.code(), Some(2));
    let out = autosync_in(
        dir.path(),
        &["fix", "--warp-barriers", "--warp-cost", "-1", "k.cu"],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = autosync_in(dir.path(), &["fix", "--warp-barriers", "--naive", "k.cu"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(dir.path().join("k.cu")).unwrap(), PAIRS);
}
