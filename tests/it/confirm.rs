//! Issue #32: every reported race is replayed on the interpreter. A race a run shows is
//! `error[race]` (JSON `"confirmed": true`, SARIF `error`, LSP error); one it does not is
//! `warning[possible-race]` with the reason (JSON `"confirmed": false`, SARIF `warning`,
//! LSP warning). Exit codes do not change unless `--fail-on confirmed` asks to fail on
//! confirmed findings only. The oracle-level twins (loop-carried values, memory,
//! unknown values, benign-looking writes) are in `oracle/tests/it/replay.rs`.

use serde_json::Value;

use crate::common::{autosync_in, code, dir_with, stdout};
use crate::sarif::sarif_in;

/// Input and output regions of one shared array that trade places every iteration (the
/// output moves to the square of the old input's offset): the verifier keeps no relation
/// between the offsets across iterations and reports a race no run shows.
const PING_PONG: &str = "//--blockDim=64 --gridDim=1
__global__ void pingPong(float *g, int steps) {
    __shared__ float buf[256];
    int t = threadIdx.x;
    int src = 0;
    int dst = 128;
    buf[t] = g[t];
    __syncthreads();
    for (int k = 0; k < steps; k++) {
        float v = buf[src + t + 1];
        buf[dst + t] = v;
        __syncthreads();
        int old = src;
        src = dst * 1;
        dst = old * old;
    }
    g[t] = buf[src + t];
}
";

/// The twin: the second iteration's output is its input shifted by one, so thread t
/// writes the cell thread t + 1 reads in the same interval.
fn racy() -> String {
    PING_PONG.replace("dst = old * old;", "dst = src + 2;")
}

fn json_races(dir: &std::path::Path, args: &[&str]) -> (i32, Vec<Value>) {
    let mut a = vec!["check", "--format", "json"];
    a.extend_from_slice(args);
    let o = autosync_in(dir, &a);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let races = doc["files"][0]["kernels"][0]["races"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    (code(&o), races)
}

#[test]
fn a_race_no_run_shows_is_a_possible_race_in_text() {
    let (dir, _) = dir_with("pp.cu", PING_PONG);
    let o = autosync_in(dir.path(), &["check", "--color", "never", "pp.cu"]);
    let text = stdout(&o);
    assert_eq!(code(&o), 1, "a possible race still fails by default\n{text}");
    assert!(
        text.starts_with("warning[possible-race]: possible read-write race on shared array `buf`"),
        "{text}"
    );
    assert!(text.contains(
        "= possible, not confirmed: a run on its launch does not show it: the verifier's model of the kernel \
         may allow more than the kernel does (loop invariants, values carried across iterations)"
    ));
    // Threads of the launch, but no element or iteration the kernel was not seen to reach.
    assert!(
        text.contains("thread 0 writes `buf` (line 11) while thread 63 reads `buf` (line 10)"),
        "{text}"
    );
    assert!(text.contains("race (1 race(s), 0 divergent barrier(s); 1 possible, not confirmed by a run)"));
}

#[test]
fn its_racy_twin_is_a_confirmed_race_with_the_runs_values() {
    let (dir, _) = dir_with("pp.cu", &racy());
    let o = autosync_in(dir.path(), &["check", "--color", "never", "pp.cu"]);
    let text = stdout(&o);
    assert_eq!(code(&o), 1);
    assert!(
        text.starts_with("error[race]: read-write race on shared array `buf`"),
        "{text}"
    );
    assert!(!text.contains("possible"), "{text}");
    // The run's instance: in iteration 1, thread t writes buf[130 + t], read by t + 1.
    let (_, races) = json_races(dir.path(), &["pp.cu"]);
    assert_eq!(races.len(), 1);
    let r = &races[0];
    assert_eq!(r["confirmed"], true);
    assert_eq!(r["replay"]["confirmed"], true);
    assert_eq!(r["replay"]["why"], Value::Null);
    let w = &r["witness"];
    let reader = w["threads"][0]["tid"][0].as_i64().expect("tid");
    let writer = w["threads"][1]["tid"][0].as_i64().expect("tid");
    assert_eq!(reader, writer + 1, "{w}");
    assert_eq!(w["index"].as_i64(), Some(130 + writer), "{w}");
    assert_eq!(w["iterations"], serde_json::json!([[1], [1]]));
    assert_eq!(r["replay"]["run"]["blocks"], serde_json::json!([0]));
}

#[test]
fn json_says_whether_a_run_confirmed_each_race() {
    let (dir, _) = dir_with("pp.cu", PING_PONG);
    let (status, races) = json_races(dir.path(), &["pp.cu"]);
    assert_eq!(status, 1);
    assert_eq!(races.len(), 1);
    let r = &races[0];
    assert_eq!(r["confirmed"], false);
    assert_eq!(r["replay"]["confirmed"], false);
    assert!(
        r["replay"]["why"]
            .as_str()
            .unwrap_or_default()
            .starts_with("a run on its launch does not show it")
    );
    assert_eq!(r["replay"]["run"]["block_dim"], serde_json::json!([64, 1, 1]));
}

#[test]
fn fail_on_confirmed_passes_possible_races_only() {
    let (dir, _) = dir_with("pp.cu", PING_PONG);
    let o = autosync_in(dir.path(), &["check", "--fail-on", "confirmed", "pp.cu"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    // Still reported.
    assert!(stdout(&o).contains("warning[possible-race]"));
    let (twin, _) = dir_with("pp.cu", &racy());
    let o = autosync_in(twin.path(), &["check", "--fail-on", "confirmed", "pp.cu"]);
    assert_eq!(code(&o), 1);
    let o = autosync_in(twin.path(), &["check", "--fail-on", "any", "pp.cu"]);
    assert_eq!(code(&o), 1);
}

#[test]
fn sarif_levels_are_error_for_confirmed_and_warning_for_possible() {
    let (dir, _) = dir_with("pp.cu", PING_PONG);
    let (status, log) = sarif_in(dir.path(), &["pp.cu"]);
    assert_eq!(status, 1);
    let results = log["runs"][0]["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["level"], "warning");
    assert!(
        results[0]["message"]["text"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Possible read-write race")
    );
    let (twin, _) = dir_with("pp.cu", &racy());
    let (_, log) = sarif_in(twin.path(), &["pp.cu"]);
    assert_eq!(log["runs"][0]["results"][0]["level"], "error");
}

#[test]
fn a_confirmed_divergence_stays_an_error_and_json_says_so() {
    let text = "//--blockDim=64 --gridDim=1
__global__ void half(float *g) {
    __shared__ float s[64];
    s[threadIdx.x] = g[threadIdx.x];
    if (threadIdx.x < 32) {
        __syncthreads();
    }
    g[threadIdx.x] = s[63 - threadIdx.x];
}
";
    let (dir, _) = dir_with("half.cu", text);
    let o = autosync_in(dir.path(), &["check", "--format", "json", "half.cu"]);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let d = &doc["files"][0]["kernels"][0]["divergences"][0];
    assert_eq!(d["confirmed"], true, "{doc}");
    let w = &d["witness"];
    assert!(w["threads"][0]["tid"][0].as_i64() < Some(32) && w["threads"][1]["tid"][0].as_i64() >= Some(32));
}
