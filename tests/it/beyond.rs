//! Beyond the paper (issue #7): statements that race with themselves are split (read
//! the racing operand into a local, barrier, then write), and `fix` reports barriers
//! that the cheapest placement removes or moves. Static oracle, launch from the files'
//! header comments (or given).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::autosync;

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("beyond")
        .join(name)
}

/// `fix --stdout --format json`: (exit code, the fixed text, kernel entries by name).
fn fix(name: &str, extra: &[&str]) -> (i32, String, Vec<Value>) {
    let path = file(name);
    let mut args = vec!["fix", "--stdout", "--format", "json"];
    args.extend(extra);
    args.push(path.to_str().unwrap());
    let out = autosync(&args);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    let f = &doc["files"][0];
    let ks = f["kernels"].as_array().unwrap().clone();
    (
        out.status.code().unwrap(),
        doc["files"][0]["fixed_source"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        ks,
    )
}

fn kernel<'a>(ks: &'a [Value], name: &str) -> &'a Value {
    ks.iter()
        .find(|k| k["name"] == name)
        .unwrap_or_else(|| panic!("no kernel {name}"))
}

fn lines(v: &Value, key: &str) -> Vec<u64> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["line"].as_u64().unwrap())
        .collect()
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn self_racing_statements_are_split() {
    let (code, fixed, ks) = fix("stencil.cu", &[]);
    assert_eq!(code, 0);
    let expected = "//--blockDim=64 --gridDim=1
__global__ void stencil(int *A) {
    int tid = threadIdx.x;
    int a_tid_1 = A[tid + 1];
    __syncthreads();
    A[tid] = A[tid] + a_tid_1;
}

__global__ void compound(float *A) {
    unsigned tid = threadIdx.x;
    float a_tid_1 = A[tid + 1];
    __syncthreads();
    A[tid] += a_tid_1;
}

__global__ void in_loop(int *A, int n) {
    int i = threadIdx.x;
    for (int k = 0; k < n; k++) {
        __syncthreads();
        int a_i_1 = A[i + 1];
        __syncthreads();
        A[i] = A[i] + a_i_1;
    }
}

__global__ void neighbours(unsigned *A) {
    int i = threadIdx.x + 1;
    unsigned a_i_m1 = A[i - 1];
    unsigned a_i_1 = A[i + 1];
    __syncthreads();
    A[i] = a_i_m1 + a_i_1; // both neighbours
}
";
    assert_eq!(fixed, expected);
    for (name, split, barrier_lines, cost) in [
        ("stencil", 4, vec![5], 1.0),
        ("compound", 9, vec![12], 1.0),
        // The split inside the loop (cost 100), and one at the top of the body for the
        // race of the write with the next iteration's read.
        ("in_loop", 15, vec![19, 21], 200.0),
        ("neighbours", 21, vec![30], 1.0),
    ] {
        let k = kernel(&ks, name);
        assert_eq!(k["status"], "fixed", "{name}");
        assert_eq!(lines(k, "split"), [split], "{name}");
        assert_eq!(lines(k, "inserted"), barrier_lines, "{name}");
        assert_eq!(k["cost"], cost, "{name}");
        assert_eq!(k["original_cost"], 0.0, "{name}");
        let splits: Vec<&Value> = k["inserted"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["split"] == true)
            .collect();
        assert_eq!(splits.len(), 1, "{name}");
        assert_eq!(splits[0]["after_line"], split, "{name}");
    }
    // The rewritten file verifies as written.
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("fixed.cu");
    std::fs::write(&out_path, &fixed).unwrap();
    let out = autosync(&["check", out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn two_dimensional_stencil_is_split() {
    let (code, fixed, ks) = fix("stencil2d.cu", &[]);
    assert_eq!(code, 0);
    assert_eq!(
        fixed,
        "//--blockDim=[16,16] --gridDim=1
__global__ void stencil2d(float *out) {
    __shared__ float tile[17][17];
    int x = threadIdx.x, y = threadIdx.y;
    float tile_y_1_x = tile[y + 1][x];
    float tile_y_x_1 = tile[y][x + 1];
    __syncthreads();
    tile[y][x] = tile[y][x] + tile_y_1_x + tile_y_x_1;
    out[y * 16 + x] = tile[y][x];
}
"
    );
    let k = kernel(&ks, "stencil2d");
    assert_eq!(lines(k, "split"), [5]);
    assert_eq!(lines(k, "inserted"), [7]);
    assert_eq!(k["cost"], 1.0);
}

#[test]
fn split_in_text_report_and_check_suggests_fix() {
    let path = file("stencil.cu");
    let out = autosync(&["fix", "--diff", "--kernel", "stencil", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("note: line 4 raced with itself; it was split: its racing operand is read into a local before the barrier at line 5"),
        "{err}"
    );
    let diff = text(&out);
    assert!(diff.contains("-    A[tid] = A[tid] + A[tid + 1];\n+    int a_tid_1 = A[tid + 1];\n+    __syncthreads();\n+    A[tid] = A[tid] + a_tid_1;\n"), "{diff}");
}

#[test]
fn statements_a_split_cannot_fix_or_write_stay_unsolved() {
    let (code, fixed, ks) = fix("unsplittable.cu", &[]);
    assert_eq!(code, 1);
    assert_eq!(fixed, std::fs::read_to_string(file("unsplittable.cu")).unwrap());
    for k in &ks {
        assert_eq!(k["status"], "no-solution", "{}", k["name"]);
        assert_eq!(lines(k, "split"), Vec::<u64>::new());
    }
    let reason = |n: &str| kernel(&ks, n)["reason"].as_str().unwrap().to_string();
    assert!(
        reason("same").starts_with("line 3 races with itself on `A` (write-write"),
        "{}",
        reason("same")
    );
    assert!(reason("same").contains("neither a barrier nor splitting the statement"));
    assert!(
        reason("braceless").ends_with("line 9: it is not directly inside braces (the body of a brace-less `if`/`for`/`while`, or a label); add braces"),
        "{}",
        reason("braceless")
    );
    assert!(
        reason("conditional").ends_with("line 14 does more than read memory and then write it (it has control flow, a call, an atomic or another write)"),
        "{}",
        reason("conditional")
    );
}

#[test]
fn kpl_forms_of_the_stencil() {
    let (code, fixed, ks) = fix("stencil.kpl", &["--block-dim", "64", "--grid-dim", "1"]);
    assert_eq!(code, 1);
    let k = kernel(&ks, "stencil");
    assert_eq!(k["status"], "fixed");
    assert_eq!(lines(k, "inserted"), [8]);
    assert!(
        fixed.contains("    b = A[tid + 1];\n    barrier;\n    A[tid] = a + b;\n"),
        "{fixed}"
    );
    let same = kernel(&ks, "same");
    assert_eq!(same["status"], "no-solution");
    assert!(
        same["reason"]
            .as_str()
            .unwrap()
            .starts_with("line 11 races with itself on `A` (write-write")
    );
}

#[test]
fn redundant_barriers_are_reported_without_strip() {
    let launch = ["--block-dim", "64", "--grid-dim", "1"];
    let (code, fixed, ks) = fix("oversync.kpl", &launch);
    assert_eq!(code, 0);
    assert_eq!(fixed, std::fs::read_to_string(file("oversync.kpl")).unwrap());
    for (name, redundant, optimal, instead, cost) in [
        ("everywhere", vec![3, 9], 2.0, vec![], 4.0),
        ("hoist", vec![15], 1.0, vec![13], 100.0),
        ("twice", vec![24], 1.0, vec![], 2.0),
    ] {
        let k = kernel(&ks, name);
        assert_eq!(k["status"], "unchanged", "{name}");
        assert_eq!(lines(k, "redundant"), redundant, "{name}");
        assert_eq!(k["optimal_cost"], optimal, "{name}");
        assert_eq!(k["original_cost"], cost, "{name}");
        assert_eq!(k["cost"], cost, "{name}");
        let after: Vec<u64> = k["optimal_inserted"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["after_line"].as_u64().unwrap())
            .collect();
        assert_eq!(after, instead, "{name}");
    }
    let path = file("oversync.kpl");
    let mut args = vec!["fix", "--stdout"];
    args.extend(launch);
    args.push(path.to_str().unwrap());
    let out = autosync(&args);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: kernel `hoist`: the barrier at line 15 can be removed or moved: the cheapest placement costs 1 (it puts barriers after line(s) 13 instead), these barriers cost 100; run with --strip to apply it"), "{err}");
    assert!(
        err.contains("warning: kernel `twice`: the barrier at line 24 can be removed or moved"),
        "{err}"
    );
    assert_eq!(err.matches("warning: kernel `everywhere`").count(), 2, "{err}");
}

#[test]
fn keep_existing_adds_only_and_reports_nothing() {
    let (code, _, ks) = fix(
        "oversync.kpl",
        &["--block-dim", "64", "--grid-dim", "1", "--keep-existing"],
    );
    assert_eq!(code, 0);
    for k in &ks {
        assert_eq!(k["status"], "unchanged");
        assert_eq!(lines(k, "redundant"), Vec::<u64>::new());
        assert_eq!(k["optimal_cost"], Value::Null);
    }
    let path = file("oversync.kpl");
    let out = autosync(&[
        "fix",
        "--stdout",
        "--strip",
        "--keep-existing",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn strip_applies_the_optimal_placement_and_says_what_moved() {
    let launch = ["--block-dim", "64", "--grid-dim", "1", "--strip"];
    let (code, fixed, ks) = fix("oversync.kpl", &launch);
    assert_eq!(code, 0);
    for (name, removed, inserted, cost, was) in [
        ("everywhere", vec![3, 9], vec![], 2.0, 4.0),
        ("hoist", vec![15], vec![12], 1.0, 100.0),
        ("twice", vec![24], vec![], 1.0, 2.0),
    ] {
        let k = kernel(&ks, name);
        assert_eq!(k["status"], "fixed", "{name}");
        assert_eq!(lines(k, "removed"), removed, "{name}");
        assert_eq!(lines(k, "redundant"), removed, "{name}");
        assert_eq!(lines(k, "inserted"), inserted, "{name}");
        assert_eq!(k["cost"], cost, "{name}");
        assert_eq!(k["optimal_cost"], cost, "{name}");
        assert_eq!(k["original_cost"], was, "{name}");
    }
    assert!(
        fixed.contains(
            "    A[tid] = tid;\n    barrier;\n    for (i = 0; i < n; i = i + 1) {\n        z = i;\n    }\n"
        ),
        "{fixed}"
    );
    let path = file("oversync.kpl");
    let mut args = vec!["fix", "--stdout"];
    args.extend(launch);
    args.push(path.to_str().unwrap());
    let out = autosync(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("note: moved: the barrier(s) at original line(s) 15 were replaced by the barrier(s) now at line(s) 12; cost 100 → 1"), "{err}");
    assert!(err.contains("note: moved: the barrier(s) at original line(s) 24 were removed (the kernel is race-free without them); cost 2 → 1"), "{err}");
}
