//! Issue #32 item 4, one finding per cause: the racing pairs one barrier separates are
//! one diagnostic in the text report (title with the count, the arrays, the lines and
//! the barrier's place; the pairs listed below), one SARIF result and one LSP
//! diagnostic; `--format json` keeps every pair, each with its `group`, and the kernel's
//! `groups`. A group is an error when a run confirmed any pair. A kernel with one race
//! reports it as before.

use serde_json::Value;

use crate::common::{autosync_in, code, dir_with, stdout};
use crate::lsp::{Server, editor_capabilities};
use crate::sarif::sarif_in;

/// One missing barrier (after line 7) leaves four pairs on two arrays racing.
const ONE_CAUSE: &str = "//--blockDim=64 --gridDim=1
__global__ void twoArrays(float *out) {
    __shared__ float a[65];
    __shared__ float b[65];
    int t = threadIdx.x;
    a[t] = t;
    b[t] = 2 * t;
    float x = a[t + 1];
    float y = b[t + 1];
    float z = a[t + 1] * b[t + 1];
    out[t] = x + y + z;
}
";

/// Two missing barriers (after line 6 and after line 9), two pairs each.
const TWO_CAUSES: &str = "//--blockDim=64 --gridDim=1
__global__ void twoPhases(float *out) {
    __shared__ float a[66];
    __shared__ float b[66];
    int t = threadIdx.x;
    a[t] = t;
    float x = a[t + 1];
    float x2 = a[t + 2];
    b[t] = x + x2;
    float y = b[t + 1];
    float y2 = b[t + 2];
    out[t] = y + y2;
}
";

/// One race: reported exactly as before grouping.
const SINGLE: &str = "//--blockDim=64 --gridDim=1
__global__ void shift(float *out) {
    __shared__ float a[65];
    int t = threadIdx.x;
    a[t] = t;
    out[t] = a[t + 1];
}
";

/// One barrier after line 13 separates a confirmed race on `other` and a race on `buf`
/// no run shows (the offsets trade places every iteration, see `confirm.rs`).
const MIX: &str = "//--blockDim=64 --gridDim=1
__global__ void pingPong(float *g, int steps) {
    __shared__ float buf[256];
    __shared__ float other[65];
    int t = threadIdx.x;
    int src = 0;
    int dst = 128;
    buf[t] = g[t];
    other[t] = g[t];
    __syncthreads();
    for (int k = 0; k < steps; k++) {
        float v = buf[src + t + 1];
        float w = other[t + 1];
        buf[dst + t] = v;
        other[t] = w;
        __syncthreads();
        int old = src;
        src = dst * 1;
        dst = old * old;
    }
    g[t] = buf[src + t] + other[t];
}
";

/// Two pairs on `buf` that no run shows, one barrier after line 11 separates them.
const ALL_POSSIBLE: &str = "//--blockDim=64 --gridDim=1
__global__ void pingPong(float *g, int steps) {
    __shared__ float buf[256];
    int t = threadIdx.x;
    int src = 0;
    int dst = 128;
    buf[t] = g[t];
    __syncthreads();
    for (int k = 0; k < steps; k++) {
        float v = buf[src + t + 1];
        float u = buf[src + t + 2];
        buf[dst + t] = v + u;
        __syncthreads();
        int old = src;
        src = dst * 1;
        dst = old * old;
    }
    g[t] = buf[src + t];
}
";

/// `check --color never FILE` on `text`: the exit code and the report without the
/// kernel's time.
fn check_text(name: &str, text: &str, args: &[&str]) -> (i32, String) {
    let (dir, _) = dir_with(name, text);
    let mut a = vec!["check", "--color", "never"];
    a.extend_from_slice(args);
    a.push(name);
    let o = autosync_in(dir.path(), &a);
    let out = stdout(&o);
    let timeless: Vec<String> = out
        .lines()
        .map(|l| match l.rfind(" [") {
            Some(i) if l.ends_with(" ms]") => format!("{} [TIME]", &l[..i]),
            _ => l.to_string(),
        })
        .collect();
    (code(&o), timeless.join("\n") + "\n")
}

fn check_json(name: &str, text: &str) -> Value {
    let (dir, _) = dir_with(name, text);
    let o = autosync_in(dir.path(), &["check", "--format", "json", name]);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    doc["files"][0]["kernels"][0].clone()
}

#[test]
fn one_missing_barrier_is_one_diagnostic() {
    let (c, text) = check_text("one.cu", ONE_CAUSE, &[]);
    assert_eq!(c, 1);
    let expected = "\
error[race]: 4 racing pairs on shared arrays `a` and `b` between lines 6–10; a barrier after line 7 separates them all
   ┌─ one.cu:7:5
   │
 6 │     a[t] = t;
   │     --------- writes `a`
 7 │     b[t] = 2 * t;
   │     ^^^^^^^^^^^^^
   │     │
   │     a barrier after line 7 would separate the two accesses of all 4 pairs
   │     writes `b`
 8 │     float x = a[t + 1];
   │               -------- reads `a`
 9 │     float y = b[t + 1];
   │               -------- reads `b`
10 │     float z = a[t + 1] * b[t + 1];
   │               --------   -------- reads `b`
   │               │           
   │               reads `a`
   │
   = in kernel `twoArrays`: 4 pairs of accesses with no barrier between them, each confirmed by a run:
       write-read on `a`: line 6 and line 8
       write-read on `a`: line 6 and line 10
       write-read on `b`: line 7 and line 9
       write-read on `b`: line 7 and line 10
   = for example, thread 0 reads `a[1]` (line 8) while thread 1 writes `a[1]` (line 6) in the same barrier interval
   = witness launch: 64 threads per block, 1 block
   = help: a barrier after line 7 lies between the two accesses of each pair on the paths that race; `autosync fix one.cu` places barriers and checks that every thread of a block reaches them

one.cu: kernel `twoArrays`: race (4 race(s) in 1 group(s), 0 divergent barrier(s)) [TIME]
checked 1 file, 1 kernel: 0 verified, 1 with races
";
    assert_eq!(text, expected);
}

#[test]
fn two_missing_barriers_are_two_diagnostics() {
    let (c, text) = check_text("two.cu", TWO_CAUSES, &[]);
    assert_eq!(c, 1);
    let titles: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("error") || l.starts_with("warning"))
        .collect();
    assert_eq!(
        titles,
        [
            "error[race]: 2 racing pairs on shared array `a` between lines 6–8; a barrier after line 6 separates \
             them all",
            "error[race]: 2 racing pairs on shared array `b` between lines 9–11; a barrier after line 9 separates \
             them all",
        ],
        "{text}"
    );
    assert!(text.contains(
        "      write-read on `a`: line 6 and line 7\n      write-read on `a`: line 6 and line 8\n"
    ));
    assert!(text.contains(
        "       write-read on `b`: line 9 and line 10\n       write-read on `b`: line 9 and line 11\n"
    ));
    assert!(text.contains(
        "two.cu: kernel `twoPhases`: race (4 race(s) in 2 group(s), 0 divergent barrier(s)) [TIME]"
    ));
}

#[test]
fn a_single_race_is_reported_as_before() {
    let (c, text) = check_text("single.cu", SINGLE, &[]);
    assert_eq!(c, 1);
    let expected = "\
error[race]: write-read race on shared array `a`
  ┌─ single.cu:6:14
  │
5 │     a[t] = t;
  │     --------- thread 1 writes `a[1]`
6 │     out[t] = a[t + 1];
  │              ^^^^^^^^ thread 0 reads `a[1]`
  │
  = in kernel `shift`: thread 0 reads `a[1]` (line 6) while thread 1 writes `a[1]` (line 5) in the same barrier interval
  = witness launch: 64 threads per block, 1 block
  = help: a barrier between the two accesses fixes this: run `autosync fix single.cu`

single.cu: kernel `shift`: race (1 race(s), 0 divergent barrier(s)) [TIME]
checked 1 file, 1 kernel: 0 verified, 1 with races
";
    assert_eq!(text, expected);
    let k = check_json("single.cu", SINGLE);
    assert_eq!(k["races"][0]["group"], 0);
    assert_eq!(
        k["groups"],
        serde_json::json!([{"races": [0], "barrier": {"after_line": 5, "place": "after line 5"}}])
    );
}

#[test]
fn json_keeps_every_pair_with_its_group() {
    let k = check_json("two.cu", TWO_CAUSES);
    let races = k["races"].as_array().expect("races");
    let pairs: Vec<(u64, u64, u64)> = races
        .iter()
        .map(|r| {
            (
                r["first"]["line"].as_u64().unwrap_or(0),
                r["second"]["line"].as_u64().unwrap_or(0),
                r["group"].as_u64().unwrap_or(99),
            )
        })
        .collect();
    assert_eq!(pairs, [(6, 7, 0), (6, 8, 0), (9, 10, 1), (9, 11, 1)]);
    assert_eq!(
        k["groups"],
        serde_json::json!([
            {"races": [0, 1], "barrier": {"after_line": 6, "place": "after line 6"}},
            {"races": [2, 3], "barrier": {"after_line": 9, "place": "after line 9"}},
        ])
    );
    // Every race keeps its own witness and verdict.
    assert!(
        races
            .iter()
            .all(|r| r["confirmed"] == true && r["witness"].is_object())
    );
}

#[test]
fn a_group_with_a_confirmed_pair_is_an_error_that_counts_both() {
    let (c, text) = check_text("mix.cu", MIX, &[]);
    assert_eq!(c, 1);
    assert!(
        text.starts_with(
            "error[race]: 2 racing pairs (1 confirmed, 1 possible) on shared arrays `buf` and `other` between \
             lines 12–15; a barrier after line 13 separates them all\n"
        ),
        "{text}"
    );
    assert!(text.contains(
        "   = in kernel `pingPong`: 2 pairs of accesses with no barrier between them, 1 confirmed by a run and 1 \
         possible:\n       read-write on `buf`: line 12 and line 14; possible\n       read-write on `other`: line 13 \
         and line 15\n"
    ));
    // The witness shown is the confirmed pair's.
    assert!(
        text.contains("   = for example, thread 1 writes `other[1]` (line 15, loop iteration 0)"),
        "{text}"
    );
    assert!(text.contains("   = possible, not confirmed (1 pair): a run on its launch does not show it"));
    // `--fail-on confirmed` fails: one pair is confirmed.
    assert_eq!(check_text("mix.cu", MIX, &["--fail-on", "confirmed"]).0, 1);
    // JSON: each pair keeps its own verdict.
    let k = check_json("mix.cu", MIX);
    let verdicts: Vec<(&str, bool, u64)> = k["races"]
        .as_array()
        .expect("races")
        .iter()
        .map(|r| {
            (
                r["array"].as_str().unwrap_or(""),
                r["confirmed"] == true,
                r["group"].as_u64().unwrap_or(99),
            )
        })
        .collect();
    assert_eq!(verdicts, [("buf", false, 0), ("other", true, 0)]);
}

#[test]
fn a_group_no_run_confirms_is_a_warning() {
    let (c, text) = check_text("poss.cu", ALL_POSSIBLE, &[]);
    assert_eq!(c, 1, "a possible race still fails by default");
    assert!(
        text.starts_with(
            "warning[possible-race]: 2 possible racing pairs on shared array `buf` between lines 10–12; a barrier \
             after line 11 separates them all\n"
        ),
        "{text}"
    );
    assert!(text.contains("2 pairs of accesses with no barrier between them, none confirmed by a run:"));
    assert_eq!(
        check_text("poss.cu", ALL_POSSIBLE, &["--fail-on", "confirmed"]).0,
        0
    );
}

#[test]
fn sarif_has_one_result_per_group() {
    let (dir, _) = dir_with("two.cu", TWO_CAUSES);
    let (c, log) = sarif_in(dir.path(), &["two.cu"]);
    assert_eq!(c, 1);
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "{results:#?}");
    for (r, (barrier, reads)) in results.iter().zip([(6, [7, 8]), (9, [10, 11])]) {
        assert_eq!(r["ruleId"], "data-race");
        assert_eq!(r["level"], "error");
        let at = |l: &Value| l["physicalLocation"]["region"]["startLine"].as_u64().unwrap_or(0);
        assert_eq!(at(&r["locations"][0]), barrier, "the first pair's first access");
        let related: Vec<(u64, String)> = r["relatedLocations"]
            .as_array()
            .expect("related")
            .iter()
            .map(|l| (at(l), l["message"]["text"].as_str().unwrap_or("").to_string()))
            .collect();
        let array = if barrier == 6 { "a" } else { "b" };
        assert_eq!(
            related,
            [
                (reads[0], format!("read of `{array}`")),
                (reads[1], format!("read of `{array}`")),
                (
                    barrier,
                    format!("a barrier after line {barrier} would separate the two accesses of every pair")
                ),
            ]
        );
        let msg = r["message"]["text"].as_str().unwrap_or("");
        assert!(
            msg.starts_with(&format!(
                "2 racing pairs on shared array `{array}` between lines {barrier}–{}; a barrier after line \
                 {barrier} separates them all (kernel `twoPhases`). The pairs: write-read on `{array}`: line \
                 {barrier} and line {}; write-read on `{array}`: line {barrier} and line {}.",
                reads[1], reads[0], reads[1]
            )),
            "{msg}"
        );
    }
    let prints: Vec<&str> = results
        .iter()
        .map(|r| r["partialFingerprints"]["autosync/v1"].as_str().unwrap_or(""))
        .collect();
    assert_ne!(prints[0], prints[1]);
}

#[test]
fn the_editor_gets_one_diagnostic_per_group() {
    let mut s = Server::start(&["--no-cache"]);
    s.initialize(editor_capabilities());
    let uri = s.open("two.cu", TWO_CAUSES, 1);
    let diags = s.diagnostics(&uri, 1);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    for (d, (array, barrier, reads)) in diags.iter().zip([("a", 6, [7, 8]), ("b", 9, [10, 11])]) {
        assert_eq!(d["severity"], 1, "error");
        assert_eq!(d["code"], "data-race");
        // At the second access of the group's first pair (0-based lines).
        assert_eq!(d["range"]["start"]["line"], reads[0] - 1);
        let msg = d["message"].as_str().unwrap_or_default();
        assert!(
            msg.starts_with(&format!(
                "2 racing pairs on shared array `{array}` between lines {barrier}–{}; a barrier after line \
                 {barrier} separates them all\nin kernel `twoPhases`: 2 pairs of accesses",
                reads[1]
            )),
            "{msg}"
        );
        let related: Vec<(u64, String)> = d["relatedInformation"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|r| {
                (
                    r["location"]["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
                    r["message"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        assert_eq!(
            related,
            [
                (barrier, format!("writes `{array}`")),
                (reads[0], format!("reads `{array}`")),
                (reads[1], format!("reads `{array}`")),
                (
                    barrier,
                    format!("a barrier after line {barrier} would separate the two accesses of both pairs")
                ),
            ],
            "{d:#}"
        );
    }
    assert_eq!(s.shutdown(), 0);
}
