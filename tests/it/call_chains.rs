//! Issue #35 item 2: an access (or barrier) of a `__device__` function that the front end
//! inlines is reported at its own line, with the chain of calls from the kernel that
//! reaches it: "in `rotate`, called at line 11", "in `g`, called from `f` at line 9,
//! called at line 16". Text, JSON (`calls` on each place), SARIF (related locations at
//! the calls) and `fix`'s reasons; the LSP's related information is in `lsp.rs`, the
//! header case in `header_locations.rs`, and the corpus has the same cases
//! (`language/deviceCall*.cu`, `files/headerDevice*.cu`).

use serde_json::{Value, json};

use crate::common::{autosync_in, code, dir_with, stdout, write};
use crate::sarif::sarif_in;

/// A device function of the checked file whose read of the neighbour's cell races with
/// the neighbour's write; the kernel calls it at line 11. Its last statement takes the
/// call's place for barriers but is reported at its own line (4).
const ROTATE: &str = "//--blockDim=64 --gridDim=1
__device__ void rotate(int *s, int t) {
    int right = s[(t + 1) % 64];
    s[t] = right;
}

__global__ void rotateAll(int *g) {
    __shared__ int s[64];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    rotate(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
";

/// Two calls deep: the kernel calls `f` (line 16), which writes its own cell and calls
/// `g` (line 9), which reads the neighbour's cell and writes its own.
const NESTED: &str = "//--blockDim=64 --gridDim=1
__device__ void g(int *s, int t) {
    int right = s[(t + 1) % 64];
    s[t] = right;
}

__device__ void f(int *s, int t) {
    s[t] += 1;
    g(s, t);
}

__global__ void k(int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    f(s, threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
";

/// One device function called at two places (lines 11 and 13), racing at each.
const TWICE: &str = "//--blockDim=64 --gridDim=1
__device__ void shiftLeft(int *s, int t) {
    int next = s[(t + 1) % 64];
    s[t] = next;
}

__global__ void shiftTwice(int *g) {
    __shared__ int s[64];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    shiftLeft(s, threadIdx.x);
    __syncthreads();
    shiftLeft(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
";

/// A barrier of a device function that half of the threads call.
const DIVERGENT: &str = "//--blockDim=64 --gridDim=1
__device__ void publish(int *s, int t) {
    __syncthreads();
    s[t] = t;
}

__global__ void halfPublish(int *g) {
    __shared__ int s[64];
    s[threadIdx.x] = 0;
    __syncthreads();
    if (threadIdx.x < 32)
        publish(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
";

fn lines(s: &str) -> Vec<&str> {
    s.lines().map(str::trim_end).collect()
}

/// A text report with the witness's values (threads, blocks, cells) and the time
/// replaced, as the corpus does: `thread T`, `` `s[_]` ``, `[TIME]`.
fn normalized(out: &str) -> String {
    let threads = regex::Regex::new(r"thread \d+( of block \d+)?").expect("regex");
    let cells = regex::Regex::new(r"`(\w+)\[\d+\]`").expect("regex");
    let time = regex::Regex::new(r" \[[0-9.]+ ms\]").expect("regex");
    let out = threads.replace_all(out, "thread T");
    let out = cells.replace_all(&out, "`${1}[_]`");
    time.replace_all(&out, " [TIME]").into_owned()
}

/// `check --color never NAME` on `text` in a temporary folder: exit code and stdout
/// ([`normalized`]).
fn check_text(name: &str, text: &str) -> (i32, String) {
    let (dir, _) = dir_with(name, text);
    let o = autosync_in(dir.path(), &["check", "--color", "never", name]);
    (code(&o), normalized(&stdout(&o)))
}

/// The races of the first kernel of `check --format json NAME`.
fn races(name: &str, text: &str) -> Vec<Value> {
    let (dir, _) = dir_with(name, text);
    let o = autosync_in(dir.path(), &["check", "--format", "json", name]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).expect("a JSON document");
    doc["files"][0]["kernels"][0]["races"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn a_race_in_a_device_function_is_at_its_lines_with_the_call() {
    let (code, out) = check_text("rotate.cu", ROTATE);
    assert_eq!(code, 1, "{out}");
    let l = lines(&out);
    assert_eq!(
        l[..15],
        [
            "error[race]: read-write race on shared array `s`",
            "   ┌─ rotate.cu:4:5",
            "   │",
            " 3 │     int right = s[(t + 1) % 64];",
            "   │                 --------------- thread T reads `s[_]`",
            " 4 │     s[t] = right;",
            "   │     ^^^^^^^^^^^^ thread T writes `s[_]`",
            "   ·",
            "11 │     rotate(s, threadIdx.x);",
            "   │     ---------------------- `rotate` is called here",
            "   │",
            "   = in kernel `rotateAll`: thread T writes `s[_]` (line 4) while thread T reads `s[_]` (line 3) in the same barrier interval, both in `rotate`, called at line 11",
            "   = witness launch: 64 threads per block, 1 block",
            "   = help: a barrier between the two accesses fixes this; they are both in `rotate` (called at line 11), a device function, inside which `autosync fix` places no barrier: add it there",
            "",
        ]
    );
    assert!(
        l[15].starts_with("rotate.cu: kernel `rotateAll`: race (1 race(s), 0 divergent barrier(s))"),
        "{out}"
    );
}

#[test]
fn the_twin_with_a_barrier_in_the_function_verifies() {
    let fixed = ROTATE.replace(
        "    int right = s[(t + 1) % 64];\n",
        "    int right = s[(t + 1) % 64];\n    __syncthreads();\n",
    );
    let (code, out) = check_text("rotate.cu", &fixed);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("rotate.cu: kernel `rotateAll`: verified (no data race, no barrier divergence)"),
        "{out}"
    );
    assert!(!out.contains("called"), "{out}");
}

#[test]
fn json_places_have_the_calls_innermost_first() {
    let rs = races("rotate.cu", ROTATE);
    assert_eq!(rs.len(), 1, "{rs:#?}");
    let call = json!([{"function": "rotate", "line": 11, "column": 5}]);
    assert_eq!(rs[0]["first"], json!({"line": 3, "column": 17, "calls": call}));
    assert_eq!(rs[0]["second"], json!({"line": 4, "column": 5, "calls": call}));

    let rs = races("nested.cu", NESTED);
    assert_eq!(rs.len(), 2, "{rs:#?}");
    let in_g = json!([
        {"function": "g", "line": 9, "column": 5},
        {"function": "f", "line": 16, "column": 5},
    ]);
    let in_f = json!([{"function": "f", "line": 16, "column": 5}]);
    assert_eq!(rs[0]["first"], json!({"line": 3, "column": 17, "calls": in_g}));
    assert_eq!(rs[0]["second"], json!({"line": 4, "column": 5, "calls": in_g}));
    assert_eq!(rs[1]["first"], json!({"line": 8, "column": 5, "calls": in_f}));
    assert_eq!(rs[1]["second"], json!({"line": 3, "column": 17, "calls": in_g}));

    // The kernel's own code has no `calls` (the fields of a place are unchanged).
    let plain = "//--blockDim=64 --gridDim=1
__global__ void k(int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = out[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
";
    let rs = races("plain.cu", plain);
    assert_eq!(rs[0]["first"], json!({"line": 4, "column": 5}));
    assert_eq!(rs[0]["second"], json!({"line": 5, "column": 24}));
}

#[test]
fn a_nested_call_names_every_call_from_the_kernel_down() {
    let (code, out) = check_text("nested.cu", NESTED);
    assert_eq!(code, 1, "{out}");
    let l = lines(&out);
    assert!(
        l.contains(
            &"   = in kernel `k`: thread T writes `s[_]` (line 4) while thread T reads `s[_]` (line 3) in the same barrier interval, both in `g`, called from `f` at line 9, called at line 16"
        ),
        "{out}"
    );
    // Accesses reached through different calls say theirs each.
    assert!(
        l.contains(
            &"   = in kernel `k`: thread T reads `s[_]` (line 3, in `g`, called from `f` at line 9, called at line 16) while thread T writes `s[_]` (line 8, in `f`, called at line 16) in the same barrier interval"
        ),
        "{out}"
    );
    // Both calls are labelled in the snippet.
    assert!(l.contains(&" 9 │     g(s, t);"), "{out}");
    assert!(l.contains(&"   │     ------- `g` is called here"), "{out}");
    assert!(l.contains(&"16 │     f(s, threadIdx.x);"), "{out}");
    assert!(
        l.contains(&"   │     ----------------- `f` is called here"),
        "{out}"
    );
}

#[test]
fn each_call_of_a_function_has_its_own_race() {
    let (code, out) = check_text("twice.cu", TWICE);
    assert_eq!(code, 1, "{out}");
    let l = lines(&out);
    for site in [11, 13] {
        assert!(
            l.contains(&format!(
                "   = in kernel `shiftTwice`: thread T writes `s[_]` (line 4) while thread T reads `s[_]` (line 3) in the same barrier interval, both in `shiftLeft`, called at line {site}"
            ).as_str()),
            "{out}"
        );
    }
    assert!(out.contains("race (2 race(s), 0 divergent barrier(s))"), "{out}");
    let rs = races("twice.cu", TWICE);
    let sites: Vec<&Value> = rs.iter().map(|r| &r["second"]["calls"][0]["line"]).collect();
    assert_eq!(sites, [&json!(11), &json!(13)], "{rs:#?}");
}

#[test]
fn a_divergent_barrier_of_a_device_function_names_its_call() {
    let (code, out) = check_text("divergent.cu", DIVERGENT);
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        lines(&out)[..17],
        [
            "error[divergence]: barrier divergence",
            "   ┌─ divergent.cu:3:5",
            "   │",
            " 3 │     __syncthreads();",
            "   │     ^^^^^^^^^^^^^^^ thread T reaches this barrier but thread T does not",
            "   ·",
            "11 │     if (threadIdx.x < 32)",
            "   │     --------------------- thread T and thread T disagree on this condition",
            "12 │         publish(s, threadIdx.x);",
            "   │         ----------------------- `publish` is called here",
            "   │",
            "   = in kernel `halfPublish`: the guard `if (threadIdx.x < 32)` (line 11) lets some threads of a block reach the barrier and not others; barrier divergence is undefined behaviour",
            "   = the barrier (line 3) is in `publish`, called at line 12",
            "   = witness launch: 64 threads per block, 1 block",
            "   = help: every thread of a block must reach the barrier, or none: move the call of `publish` (line 12) out of the guard, or the barrier out of `publish`",
            "",
            "divergent.cu: kernel `halfPublish`: divergence (0 race(s), 1 divergent barrier(s)) [TIME]",
        ]
    );
    let (dir, _) = dir_with("divergent.cu", DIVERGENT);
    let o = autosync_in(dir.path(), &["check", "--format", "json", "divergent.cu"]);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("a JSON document");
    let d = &doc["files"][0]["kernels"][0]["divergences"][0];
    assert_eq!(d["line"], 3);
    assert_eq!(
        d["calls"],
        json!([{"function": "publish", "line": 12, "column": 9}])
    );
    let (_, sarif) = sarif_in(dir.path(), &["divergent.cu"]);
    let r = &sarif["runs"][0]["results"][0];
    assert_eq!(r["ruleId"], "barrier-divergence");
    let text = r["message"]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains(" reaches the barrier at line 3, in `publish`, called at line 12 while "),
        "{text}"
    );
    assert_eq!(
        r["relatedLocations"][0]["message"]["text"],
        "`publish` is called here"
    );
    assert_eq!(
        r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        12
    );
}

#[test]
fn sarif_relates_each_access_to_its_calls() {
    let (dir, _) = dir_with("nested.cu", NESTED);
    let (code, doc) = sarif_in(dir.path(), &["nested.cu"]);
    assert_eq!(code, 1);
    let r = &doc["runs"][0]["results"][1];
    assert_eq!(r["locations"][0]["physicalLocation"]["region"]["startLine"], 8);
    let related = r["relatedLocations"].as_array().cloned().unwrap_or_default();
    let at = |v: &Value| {
        (
            v["message"]["text"].as_str().unwrap_or_default().to_string(),
            v["physicalLocation"]["region"]["startLine"].as_u64().unwrap_or(0),
        )
    };
    assert_eq!(
        related.iter().map(at).collect::<Vec<_>>(),
        [
            ("read of `s` (second access)".to_string(), 3),
            ("`f` is called here".to_string(), 16),
            ("`g` is called here".to_string(), 9),
        ]
    );
    let text = normalized(r["message"]["text"].as_str().unwrap_or_default());
    assert!(
        text.contains(
            "reads `s[_]` (line 3, in `g`, called from `f` at line 9, called at line 16) while thread T writes `s[_]` (line 8, in `f`, called at line 16) in the same barrier interval"
        ),
        "{text}"
    );
}

#[test]
fn fix_says_why_it_places_no_barrier_in_a_device_function() {
    let (dir, _) = dir_with("rotate.cu", ROTATE);
    let o = autosync_in(dir.path(), &["fix", "--color", "never", "rotate.cu"]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let out = normalized(&stdout(&o));
    assert!(
        lines(&out).contains(
            &"  = no barrier placement removes the race between line 3 and line 4 on `s`: `fix` places no barrier inside a device function it inlines"
        ),
        "{out}"
    );
    assert!(
        lines(&out).contains(
            &"  = thread T writes `s[_]` (line 4) while thread T reads `s[_]` (line 3) in the same barrier interval, both in `rotate`, called at line 11"
        ),
        "{out}"
    );
    let text = std::fs::read_to_string(dir.path().join("rotate.cu")).expect("the file");
    assert_eq!(text, ROTATE);
}

#[test]
fn a_race_between_the_kernel_and_a_call_is_fixed_in_the_kernel() {
    // The kernel writes its own cell and the function reads the neighbour's: a barrier
    // before the call, in the kernel's text, fixes it.
    let src = "//--blockDim=64 --gridDim=1
__device__ int left(const int *s, int t) {
    return s[(t + 63) % 64];
}

__global__ void k(int *g) {
    __shared__ int s[64];
    s[threadIdx.x] = g[threadIdx.x];
    g[threadIdx.x] = left(s, threadIdx.x);
}
";
    let (status, out) = check_text("left.cu", src);
    assert_eq!(status, 1, "{out}");
    assert!(
        lines(&out).contains(
            &"  = in kernel `k`: thread T reads `s[_]` (line 3, in `left`, called at line 9) while thread T writes `s[_]` (line 8) in the same barrier interval"
        ),
        "{out}"
    );
    assert!(
        out.contains("help: a barrier between the two accesses fixes this: run `autosync fix left.cu`"),
        "{out}"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "left.cu", src);
    let o = autosync_in(dir.path(), &["fix", "--color", "never", "left.cu"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let fixed = std::fs::read_to_string(dir.path().join("left.cu")).expect("the file");
    assert!(
        fixed.contains("    s[threadIdx.x] = g[threadIdx.x];\n    __syncthreads();\n    g[threadIdx.x] = left(s, threadIdx.x);"),
        "{fixed}"
    );
}

#[test]
fn a_race_across_iterations_of_a_kernel_loop_is_fixed_in_the_kernel() {
    // Both accesses are in `rotate`, but the race is between iterations of the kernel's
    // loop around the call: a barrier in the loop, outside the function, orders them.
    let src = "//--blockDim=64 --gridDim=1
__device__ void rotate(int *s, int t) {
    int right = s[(t + 1) % 64];
    __syncthreads();
    s[t] = right;
}

__global__ void rotateMany(int *g, int n) {
    __shared__ int s[64];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    for (int k = 0; k < n; k++) {
        rotate(s, threadIdx.x);
    }
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
";
    let (status, out) = check_text("loop.cu", src);
    assert_eq!(status, 1, "{out}");
    let l = lines(&out);
    assert!(
        l.contains(
            &"   = in kernel `rotateMany`: thread T writes `s[_]` (line 5, loop iteration 0) while thread T reads `s[_]` (line 3, loop iteration 1) with no barrier between them, both in `rotate`, called at line 13"
        ),
        "{out}"
    );
    assert!(
        l.contains(&"   = help: a barrier between the two accesses fixes this: run `autosync fix loop.cu`"),
        "{out}"
    );
    let (dir, _) = dir_with("loop.cu", src);
    let o = autosync_in(dir.path(), &["fix", "--color", "never", "loop.cu"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let fixed = std::fs::read_to_string(dir.path().join("loop.cu")).expect("the file");
    assert!(
        fixed.contains(
            "    for (int k = 0; k < n; k++) {\n        __syncthreads();\n        rotate(s, threadIdx.x);"
        ),
        "{fixed}"
    );
}

#[test]
fn a_race_across_iterations_of_a_loop_of_the_function_is_left_to_the_user() {
    // The loop is inside `tree`: every barrier that orders its iterations is in the
    // function, where `fix` places none.
    let src = "//--blockDim=64 --gridDim=1
__device__ void tree(int *s, int t) {
    for (int d = 1; d < 64; d *= 2) {
        if (t + d < 64)
            s[t] += s[t + d];
    }
}

__global__ void sum(int *g) {
    __shared__ int s[64];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    tree(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[0];
}
";
    let (status, out) = check_text("tree.cu", src);
    assert_eq!(status, 1, "{out}");
    assert!(
        out.contains(
            "help: a barrier between the two accesses fixes this; they are both in `tree` (called at line 13), a device function, inside which `autosync fix` places no barrier: add it there"
        ),
        "{out}"
    );
    assert!(!out.contains("run `autosync fix tree.cu`"), "{out}");
}
