//! Issue #35: reports of device code defined in a header the checked file includes
//! are at the header's lines (text, JSON `file`, SARIF artifacts) with the call of the
//! checked file that reaches them (`calls`, see tests/it/call_chains.rs), `fix` writes no
//! barrier into the header, and a template kernel checked on its own names the
//! template parameter it cannot know.

use std::path::Path;

use serde_json::Value;

use crate::common::{autosync_in, code, stdout, write};
use crate::sarif::sarif_in;

/// A device function in a header whose two accesses race: `Comparator` reads `s[i]`
/// and writes `s[i + 1]`, so thread 0's write and thread 1's read meet at `s[1]`.
const COMMON_H: &str = "#pragma once
__device__ void Comparator(int *s, int i) {
    int a = s[i];
    s[i + 1] = a;
}
";

const SORT_CU: &str = "#include \"common.h\"

__global__ void sortStep(int *g) {
    __shared__ int s[129];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    Comparator(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}

int main() { int *g; sortStep<<<1, 128>>>(g); }
";

/// A template kernel in the project's header, launched from the main file.
const KERN_CUH: &str = "#pragma once
template <typename T, int N>
__global__ void scaleShift(T *a) {
    __shared__ T s[N];
    s[threadIdx.x] = a[threadIdx.x];
    a[threadIdx.x] = s[(threadIdx.x + 1) % N];
}
";

const MAIN_CU: &str = "#include \"kern.cuh\"
int main() { float *a; scaleShift<float, 128><<<1, 128>>>(a); }
";

/// A folder with `common.h` and `sort.cu`, and one with `kern.cuh` and `main.cu`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "common.h", COMMON_H);
    write(dir.path(), "sort.cu", SORT_CU);
    write(dir.path(), "kern.cuh", KERN_CUH);
    write(dir.path(), "main.cu", MAIN_CU);
    dir
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().map(str::trim_end).collect()
}

fn check_json(dir: &Path, file: &str) -> Value {
    let o = autosync_in(dir, &["check", "--format", "json", file]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    serde_json::from_slice(&o.stdout).expect("a JSON document")
}

#[test]
fn a_race_in_a_header_function_is_reported_at_the_header_lines() {
    let dir = project();
    let o = autosync_in(dir.path(), &["check", "--color", "never", "sort.cu"]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    assert_eq!(
        lines(&out)[..17],
        [
            "error[race]: read-write race on shared array `s`",
            "  ┌─ common.h:4:5",
            "  │",
            "3 │     int a = s[i];",
            "  │             ---- thread 1 reads `s[1]`",
            "4 │     s[i + 1] = a;",
            "  │     ^^^^^^^^^^^^ thread 0 writes `s[1]`",
            "  │",
            "  ┌─ sort.cu:7:5",
            "  │",
            "7 │     Comparator(s, threadIdx.x);",
            "  │     -------------------------- `Comparator` is called here",
            "  │",
            "  = in kernel `sortStep`: thread 0 writes `s[1]` (common.h:4) while thread 1 reads `s[1]` (common.h:3) in the same barrier interval, both in `Comparator`, called at line 7",
            "  = witness launch: 128 threads per block, 1 block",
            "  = checked for the launch from line 12: 128 threads, 1 block",
            "  = help: a barrier between the two accesses fixes this; they are in common.h, an included header, where `autosync fix` places no barrier: add it there",
        ]
    );
}

#[test]
fn json_names_the_header_of_each_access() {
    let dir = project();
    let doc = check_json(dir.path(), "sort.cu");
    let race = &doc["files"][0]["kernels"][0]["races"][0];
    // `calls`: the call of the checked file that reaches the header's code.
    let calls = serde_json::json!([{"function": "Comparator", "line": 7, "column": 5}]);
    assert_eq!(
        race["first"],
        serde_json::json!({"file": "common.h", "line": 3, "column": 13, "calls": calls})
    );
    assert_eq!(
        race["second"],
        serde_json::json!({"file": "common.h", "line": 4, "column": 5, "calls": calls})
    );
    assert_eq!(doc["version"], 1);
}

#[test]
fn a_kernel_in_a_header_is_reported_at_the_header_lines() {
    let dir = project();
    let o = autosync_in(dir.path(), &["check", "--color", "never", "main.cu"]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    let l = lines(&out);
    assert_eq!(l[0], "error[race]: write-read race on shared array `s`");
    assert_eq!(l[1], "  ┌─ kern.cuh:6:22");
    assert!(
        l.contains(
            &"  = in kernel `scaleShift<float,128>`: thread 0 reads `s[1]` (kern.cuh:6) while thread 1 writes `s[1]` (kern.cuh:5) in the same barrier interval"
        ),
        "{out}"
    );
    assert!(
        l.contains(
            &"  note: `scaleShift` is defined in kern.cuh:3, a header this file includes and launches it from: its accesses are reported at the header's lines, and `fix` places no barrier in the header (add them there yourself, or run `autosync fix` on the header)"
        ),
        "{out}"
    );
    let doc = check_json(dir.path(), "main.cu");
    let race = &doc["files"][0]["kernels"][0]["races"][0];
    assert_eq!(
        race["first"],
        serde_json::json!({"file": "kern.cuh", "line": 5, "column": 5})
    );
    assert_eq!(
        race["second"],
        serde_json::json!({"file": "kern.cuh", "line": 6, "column": 22})
    );
}

#[test]
fn sarif_locations_are_in_the_header() {
    let dir = project();
    let (code, doc) = sarif_in(dir.path(), &["sort.cu"]);
    assert_eq!(code, 1);
    let result = &doc["runs"][0]["results"][0];
    let first = &result["locations"][0]["physicalLocation"];
    assert_eq!(first["artifactLocation"]["uri"], "common.h");
    assert_eq!(first["region"]["startLine"], 3);
    assert_eq!(first["region"]["startColumn"], 13);
    let second = &result["relatedLocations"][0]["physicalLocation"];
    assert_eq!(second["artifactLocation"]["uri"], "common.h");
    assert_eq!(second["region"]["startLine"], 4);
    // The call that reaches the header's code, in the checked file.
    let call = &result["relatedLocations"][1];
    assert_eq!(call["message"]["text"], "`Comparator` is called here");
    assert_eq!(call["physicalLocation"]["artifactLocation"]["uri"], "sort.cu");
    assert_eq!(call["physicalLocation"]["region"]["startLine"], 7);
    assert_eq!(call["physicalLocation"]["region"]["startColumn"], 5);
    let text = result["message"]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("(common.h:3) in the same barrier interval, both in `Comparator`, called at line 7."),
        "{text}"
    );
}

#[test]
fn fix_writes_no_barrier_into_the_header() {
    let dir = project();
    let o = autosync_in(dir.path(), &["fix", "--color", "never", "sort.cu"]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        lines(&out).contains(
            &"  = no barrier placement removes the race between line 3 of an included header and line 4 of an included header on `s`: `fix` places no barrier in an included header"
        ),
        "{out}"
    );
    let header = std::fs::read_to_string(dir.path().join("common.h")).expect("the header");
    assert_eq!(header, COMMON_H);
    let main = std::fs::read_to_string(dir.path().join("sort.cu")).expect("the file");
    assert_eq!(main, SORT_CU);
}

#[test]
fn a_member_of_a_template_parameter_names_the_parameter() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(
        dir.path(),
        "apply.cuh",
        "template <typename Op>\n__global__ void apply(float *a) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    a[i] = Op::apply(a[i]);\n}\n",
    );
    let o = autosync_in(dir.path(), &["check", "--color", "never", "apply.cuh"]);
    let out = stdout(&o);
    assert_eq!(code(&o), 0, "{out}");
    let l = lines(&out);
    assert!(
        l.contains(
            &"  note: `Op::apply` is a member of `Op`, a template parameter of `apply`: what it does is not known in this file (check the file that instantiates the template, where `Op` is known); the call's result is taken as arbitrary, and it may read and write everything its arguments reach"
        ),
        "{out}"
    );
    assert!(!out.contains("is not defined in this file"), "{out}");
}
