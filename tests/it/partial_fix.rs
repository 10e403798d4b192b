//! A kernel with races between blocks (no barrier fixes them) and a shared-memory race
//! (a barrier fixes it): `fix` stays `no-solution` (exit 1), but the fixable part is
//! fixed where the user asks to see or write it: `--diff` and `--stdout` show the
//! barrier, `fix --partial` writes it, plain `fix` writes nothing. A race that no grid
//! barrier can order (one execution of one statement) is not sent to `--cooperative`.

use serde_json::Value;

use crate::common::{autosync_in, code, dir_with, stderr, stdout};

/// `s` races between threads of a block (a barrier after line 4 fixes it); `out` races
/// between blocks (line 4 with line 5, and line 5 with itself), and so does `g` (line 6
/// with itself: every thread of every block writes `g[0]`).
const MIXED: &str = "//--blockDim=64 --gridDim=4
__global__ void k(int *out, int *g) {
    __shared__ int s[64];
    s[threadIdx.x] = out[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
    g[0] = threadIdx.x;
}
";

/// `MIXED` with the barrier that fixes its shared-memory race.
const PARTIAL: &str = "//--blockDim=64 --gridDim=4
__global__ void k(int *out, int *g) {
    __shared__ int s[64];
    s[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
    g[0] = threadIdx.x;
}
";

const DIFF: &str = "--- a/mixed.cu
+++ b/mixed.cu
@@ -2,6 +2,7 @@
 __global__ void k(int *out, int *g) {
     __shared__ int s[64];
     s[threadIdx.x] = out[threadIdx.x];
+    __syncthreads();
     out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
     g[0] = threadIdx.x;
 }
";

/// The kernel's note on its partial placement.
const NOTE: &str = "  = barriers after line(s) 4 fix every other race of this kernel (line(s) 5 of the partially \
                    fixed text); the races above remain";

const NOT_WRITTEN: &str = "mixed.cu: not written: races between blocks remain that no barrier fixes; `fix --partial` \
                           writes the barriers for the other races (`--diff` shows them)";

const SUMMARY: &str = "processed 1 file, 1 kernel: 0 fixed, 1 no-solution";

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

#[test]
fn diff_shows_the_fixable_part_and_the_kernel_stays_no_solution() {
    let (dir, path) = dir_with("mixed.cu", MIXED);
    let out = autosync_in(dir.path(), &["fix", "--diff", "mixed.cu"]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), DIFF);
    let report = stderr(&out);
    assert!(
        has_line(
            &report,
            "error[no-solution]: kernel `k`: no barrier placement fixes this kernel"
        ),
        "{report}"
    );
    assert!(has_line(&report, NOTE), "{report}");
    assert!(has_line(&report, SUMMARY), "{report}");
    assert_eq!(std::fs::read_to_string(path).expect("read"), MIXED);
}

#[test]
fn stdout_prints_the_partially_fixed_text() {
    let (dir, path) = dir_with("mixed.cu", MIXED);
    let out = autosync_in(dir.path(), &["fix", "--stdout", "mixed.cu"]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), PARTIAL);
    assert!(has_line(&stderr(&out), SUMMARY), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(path).expect("read"), MIXED);
}

#[test]
fn without_partial_nothing_is_written() {
    let (dir, path) = dir_with("mixed.cu", MIXED);
    let out = autosync_in(dir.path(), &["fix", "mixed.cu"]);
    assert_eq!(code(&out), 1);
    let report = stdout(&out);
    assert!(has_line(&report, NOTE), "{report}");
    assert!(has_line(&report, NOT_WRITTEN), "{report}");
    assert!(has_line(&report, SUMMARY), "{report}");
    assert_eq!(std::fs::read_to_string(path).expect("read"), MIXED);
}

#[test]
fn partial_writes_the_fixable_part_and_exits_1() {
    let (dir, path) = dir_with("mixed.cu", MIXED);
    let out = autosync_in(dir.path(), &["fix", "--partial", "mixed.cu"]);
    assert_eq!(code(&out), 1);
    let report = stdout(&out);
    assert!(
        has_line(
            &report,
            "mixed.cu: written partially fixed: 3 race(s) between blocks remain (see above)"
        ),
        "{report}"
    );
    assert!(has_line(&report, SUMMARY), "{report}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), PARTIAL);
    // What remains are the races between blocks, and only them.
    let out = autosync_in(dir.path(), &["check", "--format", "json", "mixed.cu"]);
    assert_eq!(code(&out), 1);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let races = doc["files"][0]["kernels"][0]["races"]
        .as_array()
        .expect("races")
        .clone();
    assert_eq!(races.len(), 3, "{races:#?}");
    assert!(races.iter().all(|r| r["fixable"] == false), "{races:#?}");
}

#[test]
fn partial_on_a_file_barriers_fix_whole_is_a_plain_fix() {
    let text = "//--blockDim=64 --gridDim=4
__global__ void k(int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = out[blockIdx.x * 64 + threadIdx.x];
    out[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
";
    let (dir, path) = dir_with("whole.cu", text);
    let out = autosync_in(dir.path(), &["fix", "--partial", "whole.cu"]);
    assert_eq!(code(&out), 0);
    assert!(has_line(&stdout(&out), "whole.cu: written"), "{}", stdout(&out));
    assert!(
        std::fs::read_to_string(path)
            .expect("read")
            .contains("    __syncthreads();\n"),
    );
}

#[test]
fn partial_conflicts_with_flags_that_write_nothing() {
    let (dir, path) = dir_with("mixed.cu", MIXED);
    for flag in ["--diff", "--stdout", "--check"] {
        let out = autosync_in(dir.path(), &["fix", "--partial", flag, "mixed.cu"]);
        assert_eq!(code(&out), 2, "{flag}");
        assert!(stderr(&out).contains("cannot be used with"), "{}", stderr(&out));
    }
    assert_eq!(std::fs::read_to_string(path).expect("read"), MIXED);
}

#[test]
fn json_reports_the_partial_fix() {
    let (dir, path) = dir_with("mixed.cu", MIXED);
    let out = autosync_in(dir.path(), &["fix", "--format", "json", "--stdout", "mixed.cu"]);
    assert_eq!(code(&out), 1);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let file = &doc["files"][0];
    assert_eq!(file["fixed_source"], PARTIAL);
    let k = &file["kernels"][0];
    assert_eq!(k["status"], "no-solution");
    assert_eq!(k["inserted"], serde_json::json!([]));
    assert_eq!(
        k["partial_inserted"],
        serde_json::json!([{"line": 5, "after_line": 4}])
    );
    assert_eq!(k["partial_fix"], true);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), MIXED);
    // With --partial the JSON run writes the file too.
    let out = autosync_in(dir.path(), &["fix", "--format", "json", "--partial", "mixed.cu"]);
    assert_eq!(code(&out), 1);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), PARTIAL);
}

/// The advice for a race between blocks: a grid barrier where one orders it (line 4
/// with line 5), not where both accesses are one execution of one statement (line 6).
#[test]
fn no_cooperative_hint_for_a_race_of_one_statement() {
    let (dir, _) = dir_with("mixed.cu", MIXED);
    let out = autosync_in(dir.path(), &["check", "--format", "json", "mixed.cu"]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let races = doc["files"][0]["kernels"][0]["races"]
        .as_array()
        .expect("races")
        .clone();
    let hint = |first: u64, second: u64| -> String {
        races
            .iter()
            .find(|r| r["fixable"] == false && r["first"]["line"] == first && r["second"]["line"] == second)
            .map(|r| r["hint"].as_str().unwrap_or_default().to_string())
            .unwrap_or_else(|| panic!("no race {first}-{second}: {races:#?}"))
    };
    assert!(hint(4, 5).contains("`autosync fix --cooperative` places it"));
    let one = "no barrier orders two accesses of one execution of one statement, not even a grid-wide one \
               (`--cooperative`): let one thread do it (e.g. under `if (blockIdx.x == 0 && threadIdx.x == 0)`), \
               give each block its own element, or use an atomic operation";
    assert_eq!(hint(6, 6), one);
    assert_eq!(hint(5, 5), one);
    // The shared-memory race has no hint.
    assert!(
        races
            .iter()
            .filter(|r| r["fixable"] == true)
            .all(|r| r.get("hint").is_none())
    );
    // The text report says the same.
    let out = autosync_in(dir.path(), &["check", "mixed.cu"]);
    let text = stdout(&out);
    let help = format!(
        "  = no block barrier can fix this: the threads are in different blocks, and `__syncthreads()` only orders \
         threads of one block; {one}"
    );
    assert_eq!(text.lines().filter(|l| *l == help).count(), 2, "{text}");
    // And `fix`'s reason names the race no grid barrier orders.
    let out = autosync_in(dir.path(), &["fix", "--diff", "mixed.cu"]);
    let reason = format!(
        "  = the write-write race of line 5 with itself on global array `out` is between threads of different \
         blocks in one execution of the statement ({one})"
    );
    assert!(has_line(&stderr(&out), &reason), "{}", stderr(&out));
}
