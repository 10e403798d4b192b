//! C's meaning of values through the command line: `--wrap` per C type, the documented
//! no-overflow deviation, typed parameters (enums, bools), preconditions that can never
//! hold, and inputs deep enough to overflow a small stack. Each kernel is written to a
//! temporary file and checked with `--format json`; races are asserted by line.

use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{autosync, dir_with};

fn run(name: &str, text: &str, args: &[&str]) -> Output {
    let (_dir, path) = dir_with(name, text);
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.push(path.to_str().expect("a UTF-8 temp path"));
    autosync(&all)
}

/// (verdict, sorted race lines (first, second)) of the only kernel, and the exit code.
fn verdict(name: &str, text: &str, args: &[&str]) -> (String, Vec<(u64, u64)>, Option<i32>) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = run(name, text, &all);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let k = &doc["files"][0]["kernels"][0];
    let mut lines: Vec<(u64, u64)> = k["races"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    let l = |w: &str| r[w]["line"].as_u64().unwrap_or(0);
                    (l("first"), l("second"))
                })
                .collect()
        })
        .unwrap_or_default();
    lines.sort();
    lines.dedup();
    (
        k["verdict"].as_str().unwrap_or("?").to_string(),
        lines,
        out.status.code(),
    )
}

const COMPOUND_ADD: &str = "//--blockDim=8 --gridDim=1
__global__ void k(int *A, int m)
{
    __requires(m == -1);
    unsigned u = 0;
    u += m;
    if (u > 5)
        A[0] = threadIdx.x;
}
";

#[test]
fn wrap_is_bit_precise_per_c_type_where_the_default_assumes_no_overflow() {
    // Default: the sum is stored with its mathematical value -1 (documented deviation).
    let (v, races, code) = verdict("add.cu", COMPOUND_ADD, &[]);
    assert_eq!((v.as_str(), races.len(), code), ("verified", 0, Some(0)));
    // --wrap: u is UINT_MAX > 5, every thread writes A[0].
    let (v, races, code) = verdict("add.cu", COMPOUND_ADD, &["--wrap"]);
    assert_eq!((v.as_str(), races, code), ("race", vec![(8, 8)], Some(1)));
}

#[test]
fn wrap_wraps_narrow_types_and_keeps_signed_values_negative() {
    // An unsigned char counter wraps at 256 under --wrap: thread t and t + 256 collide
    // only there; and a signed value stays negative (not a huge unsigned one).
    let src = "//--blockDim=512 --gridDim=1
__global__ void k(int *A)
{
    __shared__ int s[512];
    unsigned char c = threadIdx.x;
    c = c + 1;
    int d = -1;
    if (d < 0)
        s[c] = threadIdx.x;
}
";
    let (v, races, _) = verdict("narrow.cu", src, &[]);
    assert_eq!((v.as_str(), races), ("race", vec![(9, 9)]));
    let (v, races, _) = verdict("narrow.cu", src, &["--wrap"]);
    assert_eq!((v.as_str(), races), ("race", vec![(9, 9)]));
    // With a 256-thread block, c + 1 stays distinct in both modes.
    let small = src.replace("--blockDim=512", "--blockDim=256");
    assert_eq!(verdict("narrow.cu", &small, &[]).0, "verified");
    assert_eq!(verdict("narrow.cu", &small, &["--wrap"]).0, "verified");
}

#[test]
fn a_subtraction_below_zero_is_unsigned_where_it_is_compared() {
    let src = "//--blockDim=64 --gridDim=1
__global__ void k(int *A)
{
    if (threadIdx.x - 2 > 100)
        A[0] = threadIdx.x;
}
";
    let (v, races, _) = verdict("sub.cu", src, &[]);
    assert_eq!((v.as_str(), races), ("race", vec![(5, 5)]));
    // In a signed type the comparison is what it says: no thread of 64 passes.
    let signed = src.replace("threadIdx.x - 2 > 100", "(int)threadIdx.x - 2 > 100");
    assert_eq!(verdict("sub.cu", &signed, &[]).0, "verified");
}

#[test]
fn enum_parameters_have_one_value_within_their_enumerators_range() {
    // mode is 0..3 for three enumerators: threads 4 apart never meet (one block).
    let three = "enum Mode { A = 0, B, C };
__global__ void k(float *y, Mode mode)
{
    int i = threadIdx.x;
    if (i % 4 == 0)
        y[i + mode] = y[i];
}
";
    let (v, races, code) = verdict("enum.cu", three, &["--grid-dim", "1"]);
    assert_eq!((v.as_str(), races, code), ("verified", vec![], Some(0)));
    // Five enumerators: mode can be 4, and thread 0 writes what thread 4 reads.
    let five = three.replace("A = 0, B, C", "A = 0, B, C, D, E");
    let (v, races, _) = verdict("enum.cu", &five, &["--grid-dim", "1"]);
    assert_eq!((v.as_str(), races), ("race", vec![(6, 6)]));
}

#[test]
fn bool_parameters_are_zero_or_one() {
    let src = "__global__ void k(int *A, bool flag)
{
    if (flag == 2)
        A[0] = threadIdx.x;
}
";
    assert_eq!(verdict("bool.cu", src, &["--grid-dim", "1"]).0, "verified");
    let int = src.replace("bool flag", "int flag");
    let (v, races, _) = verdict("bool.cu", &int, &["--grid-dim", "1"]);
    assert_eq!((v.as_str(), races), ("race", vec![(4, 4)]));
}

#[test]
fn preconditions_that_never_hold_are_an_error() {
    for (name, text) in [
        (
            "contra.kpl",
            "kernel k(global A[], n) requires n > 5 && n < 3 {\n    A[0] = tid;\n}\n",
        ),
        (
            "contra.cu",
            "//--blockDim=64 --gridDim=1\n__global__ void k(int *A)\n{\n    __requires(blockDim.x == 128);\n    A[0] = threadIdx.x;\n}\n",
        ),
    ] {
        for oracle in ["static", "dynamic"] {
            let out = run(name, text, &["--color", "never", "--oracle", oracle]);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(2), "{name} {oracle}: {stdout}");
            assert!(stdout.contains("unsupported"), "{name} {oracle}: {stdout}");
            if oracle == "static" {
                assert!(stdout.contains("can never hold"), "{name}: {stdout}");
            }
        }
        // Satisfiable twins verify.
        let ok = text
            .replace("n > 5 && n < 3", "n > 2 && n < 5")
            .replace("blockDim.x == 128", "blockDim.x == 64")
            .replace("A[0] = tid", "A[bid * bdim + tid] = 1")
            .replace("A[0] = threadIdx.x", "A[threadIdx.x] = 1");
        assert_eq!(verdict(name, &ok, &[]).0, "verified", "{ok}");
    }
}

#[test]
fn deep_expressions_get_a_verdict_or_a_clear_error() {
    let sum = vec!["tid"; 3000].join(" + ");
    let (v, _, code) = verdict(
        "sum.kpl",
        &format!("kernel k(shared A[]) {{\n    A[{sum}] = 1;\n}}\n"),
        &[],
    );
    assert_eq!((v.as_str(), code), ("verified", Some(0)));
    let parens = format!("{}tid{}", "(".repeat(3000), ")".repeat(3000));
    let (v, _, code) = verdict(
        "parens.kpl",
        &format!("kernel k(shared A[]) {{\n    A[{parens}] = 1;\n}}\n"),
        &[],
    );
    assert_eq!((v.as_str(), code), ("verified", Some(0)));
    // Beyond the limits: a located error, exit 2, no crash.
    let deeper = format!("{}tid{}", "(".repeat(12_000), ")".repeat(12_000));
    let out = run(
        "deeper.kpl",
        &format!("kernel k(shared A[]) {{\n    A[{deeper}] = 1;\n}}\n"),
        &["--color", "never"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nested more than"));
    let cuda = format!(
        "__global__ void k(int *A) {{\n    A[{}] = 1;\n}}\n",
        vec!["threadIdx.x"; 3000].join(" + ")
    );
    let out = run("sum.cu", &cuda, &["--color", "never"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn alias_lets_pointers_of_any_element_type_and_device_arrays_overlap() {
    // An `int*` and an `unsigned char*` parameter: thread t writes bytes 4t..4t+3 through
    // one and byte 4t'+1 through the other, which may be inside another thread's int.
    let sizes = "__global__ void k(int *a, unsigned char *b)
{
    a[threadIdx.x] = 1;
    b[4 * threadIdx.x + 1] = 2;
}
";
    assert_eq!(verdict("sizes.cu", sizes, &["--grid-dim", "1"]).0, "verified");
    let (v, races, _) = verdict("sizes.cu", sizes, &["--grid-dim", "1", "--alias"]);
    assert_eq!((v.as_str(), races), ("race", vec![(3, 4)]));
    // A pointer parameter may point into a `__device__` array of the file.
    let device = "__device__ int buf[256];
__global__ void k(int *p)
{
    p[threadIdx.x] = 1;
    buf[threadIdx.x + 1] = 2;
}
";
    assert_eq!(verdict("device.cu", device, &["--grid-dim", "1"]).0, "verified");
    let (v, races, _) = verdict("device.cu", device, &["--grid-dim", "1", "--alias"]);
    assert_eq!((v.as_str(), races), ("race", vec![(4, 5)]));
    // __restrict__ keeps a parameter apart, as the user states.
    let restrict = sizes
        .replace("int *a", "int *__restrict__ a")
        .replace("char *b", "char *__restrict__ b");
    assert_eq!(
        verdict("sizes.cu", &restrict, &["--grid-dim", "1", "--alias"]).0,
        "verified"
    );
}

#[test]
fn parameters_of_any_type_have_one_value_per_launch() {
    // A float parameter is untracked, but the same in every thread: a guard on it does
    // not make the barrier diverge. (Whether the barrier runs is still unknown, so the
    // race it would prevent is reported.)
    let src = "__global__ void k(float *A, float x)
{
    __shared__ float s[64];
    s[threadIdx.x] = A[threadIdx.x];
    if (x * 2.0f > 0.5f) {
        __syncthreads();
    }
    A[threadIdx.x] = s[63 - threadIdx.x];
}
";
    let (v, races, code) = verdict("fparam.cu", src, &["--grid-dim", "1", "--block-dim", "64"]);
    assert_eq!((v.as_str(), races, code), ("race", vec![(4, 8)], Some(1)));
    let always = src.replace(
        "if (x * 2.0f > 0.5f) {\n        __syncthreads();\n    }",
        "__syncthreads();",
    );
    assert_eq!(
        verdict("fparam.cu", &always, &["--grid-dim", "1", "--block-dim", "64"]).0,
        "verified"
    );
    // A value read from memory differs between threads: that guard diverges.
    let per_thread = src.replace("x * 2.0f > 0.5f", "A[threadIdx.x] > x");
    assert_eq!(
        verdict(
            "fparam.cu",
            &per_thread,
            &["--grid-dim", "1", "--block-dim", "64"]
        )
        .0,
        "divergence"
    );
}

#[test]
fn latin1_files_are_checked_and_fixed_byte_for_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("latin1.cu");
    let original: &[u8] = b"// Copyright \xa9 2010, \xb5s\n__global__ void k(int *A)\n{\n    __shared__ int s[64];\n    s[threadIdx.x] = A[threadIdx.x]; // \xe9t\xe9\n    A[threadIdx.x] = s[63 - threadIdx.x];\n}\n";
    std::fs::write(&path, original).expect("write");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_autosync"))
            .args(args)
            .args(["--block-dim", "64", "--grid-dim", "1"])
            .arg(&path)
            .output()
            .expect("run autosync")
    };
    let check = run(&["check", "--color", "never"]);
    assert_eq!(
        check.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // The report quotes the line as the user wrote it, at the right column.
    assert!(String::from_utf8_lossy(&check.stdout).contains("latin1.cu:6:22"));
    let fix = run(&["fix"]);
    assert_eq!(fix.status.code(), Some(0));
    let fixed = std::fs::read(&path).expect("read back");
    let mut expected = original.to_vec();
    let at = original
        .windows(4)
        .position(|w| w == b"\xe9t\xe9\n")
        .expect("marker")
        + 4;
    expected.splice(at..at, b"    __syncthreads();\n".iter().copied());
    assert_eq!(fixed, expected);
}

#[test]
fn add_noovfl_keeps_an_offset_index_from_wrapping_onto_element_zero() {
    // Under `--wrap`, `base + threadIdx.x` may wrap to 0 and meet thread 0's `A[0]`;
    // `__add_noovfl(base, threadIdx.x)` rules that out. The default mode assumes no
    // overflow anyway.
    let src = "//--blockDim=64 --gridDim=1\n__global__ void k(unsigned *A, unsigned base)\n{\n    __requires(base >= 1);\n    __requires(__add_noovfl(base, threadIdx.x));\n    if (threadIdx.x == 0)\n        A[0] = 7;\n    A[base + threadIdx.x] = threadIdx.x;\n}\n";
    assert_eq!(verdict("noovfl.cu", src, &["--wrap"]).0, "verified");
    assert_eq!(verdict("noovfl.cu", src, &[]).0, "verified");
    let racy = src.replace("    __requires(__add_noovfl(base, threadIdx.x));\n", "");
    let (v, races, code) = verdict("noovfl.cu", &racy, &["--wrap"]);
    assert_eq!((v.as_str(), races, code), ("race", vec![(6, 7)], Some(1)));
    assert_eq!(verdict("noovfl.cu", &racy, &[]).0, "verified");
}

#[test]
fn two_thread_preconditions_that_never_hold_are_an_error() {
    // `rank[t] < rank[u]` for every ordered pair of distinct threads: never.
    let src = "//--blockDim=64 --gridDim=1\n__global__ void k(const int *rank, int *A)\n{\n    __requires(rank[threadIdx.x] < rank[__other_int(threadIdx.x)]);\n    A[rank[threadIdx.x]] = 1;\n}\n";
    let out = run("unsat.cu", src, &["--color", "never"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains("can never hold"), "{stdout}");
    // `!=` (GPUVerify's `__distinct_int`) can hold, and keeps the writes apart.
    let ok = src.replace(
        "rank[threadIdx.x] < rank[__other_int(threadIdx.x)]",
        "__distinct_int(rank[threadIdx.x])",
    );
    assert_eq!(verdict("unsat.cu", &ok, &["--no-benign-tolerance"]).0, "verified");
}

/// Issue #28, class 4: the repetition-free counter rule holds for unbounded arithmetic
/// only. Odd threads add 1 and even threads add `0xffffffff` (-1 modulo 2^32) to one
/// counter: under `--wrap` two threads can draw one slot, so the stores race; the default
/// mode states that counters never wrap, and there the slots are distinct.
#[test]
fn wrap_turns_off_the_repetition_free_counter_rule() {
    let src = "//--blockDim=64 --gridDim=1
__global__ void k(unsigned *counter, int *slots)
{
    unsigned step = (threadIdx.x % 2 == 1) ? 1u : 0xffffffffu;
    unsigned slot = atomicAdd(counter, step);
    slots[slot] = threadIdx.x;
}
";
    let (v, races, code) = verdict("wrapcount.cu", src, &["--wrap"]);
    assert_eq!((v.as_str(), races, code), ("race", vec![(6, 6)], Some(1)));
    let (v, races, code) = verdict("wrapcount.cu", src, &[]);
    assert_eq!((v.as_str(), races.len(), code), ("verified", 0, Some(0)));
}
