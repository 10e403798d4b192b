//! The command line on CUDA files: the paper's micro-benchmarks end to end (with the
//! dynamic oracle), rewriting (diffs that `git apply` and `patch` accept, braces added
//! where needed), and bad input (exit 2, the file untouched).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{autosync, autosync_in};

mod templates;

fn micro(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("micro-benchmarks")
        .join(name)
}

/// (file, races, barriers needed)
const MICRO: [(&str, usize, usize); 8] = [
    ("1-1-If.cu", 1, 1),
    ("1-1-loop-inter.cu", 1, 1),
    ("1-1-loop-intra.cu", 1, 1),
    ("1-1-main.cu", 1, 1),
    ("2-1-main.cu", 2, 1),
    ("2-1-loop-d2-intra.cu", 2, 1),
    ("2-2-loop-d2-both.cu", 2, 2),
    ("2-2-loop-both.cu", 2, 2),
];

fn barriers(text: &str) -> usize {
    text.matches("__syncthreads();").count()
}

#[test]
fn micro_benchmarks_strip_and_fix_with_exactly_m_barriers() {
    for (file, _, m) in MICRO {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(file);
        std::fs::copy(micro(file), &p).unwrap();
        let original = std::fs::read_to_string(&p).unwrap();
        assert_eq!(barriers(&original), m, "{file} carries its m barriers");

        let out = autosync_in(
            dir.path(),
            &["fix", "--strip", "--oracle", "dynamic", "--format", "json", file],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let k = &doc["files"][0]["kernels"][0];
        assert_eq!(k["barriers"], m, "{file}");
        let fixed = std::fs::read_to_string(&p).unwrap();
        assert_eq!(barriers(&fixed), m, "{file}");
        // Where autosync puts them is where the file has them.
        assert_eq!(fixed, original, "{file}");

        let out = autosync_in(dir.path(), &["check", "--oracle", "dynamic", file]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{file}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn micro_benchmarks_without_barriers_race_and_get_m_back() {
    for (file, _, m) in MICRO {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(file);
        let original = std::fs::read_to_string(micro(file)).unwrap();
        let stripped: String = original
            .lines()
            .filter(|l| l.trim() != "__syncthreads();")
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&p, &stripped).unwrap();

        let out = autosync_in(
            dir.path(),
            &["check", "--oracle", "dynamic", "--format", "json", file],
        );
        assert_eq!(out.status.code(), Some(1), "{file} races without its barriers");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["files"][0]["kernels"][0]["verdict"], "race", "{file}");

        let out = autosync_in(dir.path(), &["fix", "--oracle", "dynamic", file]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{file}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let fixed = std::fs::read_to_string(&p).unwrap();
        assert_eq!(barriers(&fixed), m, "{file}:\n{fixed}");
        assert_eq!(fixed, original, "{file}");
        let out = autosync_in(dir.path(), &["check", "--oracle", "dynamic", file]);
        assert_eq!(out.status.code(), Some(0), "{file}");
    }
}

#[test]
fn bad_input_is_exit_2_with_a_located_diagnostic_and_the_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 4] = [
        (
            "syntax.cu",
            "__global__ void k(int *a) {\n    a[threadIdx.x] = ;\n    __syncthreads();\n}\n",
            "syntax.cu:2:20: syntax error",
        ),
        (
            "goto.cu",
            "__global__ void k(int *a) {\n    __syncthreads();\nagain:\n    a[0] = 1;\n    goto again;\n}\n",
            "goto.cu:5:5: unsupported: a backward `goto`",
        ),
        (
            "badinclude.cu",
            "#include\n__global__ void k(int *a) { __syncthreads(); }\n",
            "badinclude.cu:1:1: malformed `#include`",
        ),
        (
            "recursion.cu",
            "__device__ int f(int n) { return n ? f(n - 1) : 0; }\n__global__ void k(int *a) {\n    a[0] = f(3);\n    __syncthreads();\n}\n",
            "recursion.cu:1:38: unsupported: recursive call of `f`",
        ),
    ];
    for (name, text, expected) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        for cmd in [&["check"][..], &["fix"][..], &["fix", "--strip"][..]] {
            let mut args = cmd.to_vec();
            args.push(name);
            let out = autosync_in(dir.path(), &args);
            assert_eq!(out.status.code(), Some(2), "{name} {cmd:?}");
            // File-level errors (syntax, includes) go to stderr; a kernel the front end
            // cannot lower is that kernel's `unsupported` report on stdout.
            let err = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(err.contains(expected), "{name}: {err}");
            assert!(err.contains("help:"), "{name}: {err}");
            assert_eq!(std::fs::read_to_string(&p).unwrap(), text, "{name} untouched");
        }
    }
    // A header that is not found is a note: the kernel is checked.
    let include = "#include \"kernels/common.h\"\n__global__ void k(int *a) { __syncthreads(); }\n";
    std::fs::write(dir.path().join("include.cu"), include).unwrap();
    let out = autosync_in(dir.path(), &["check", "include.cu"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("note: include.cu:1: cannot find the included file \"kernels/common.h\""),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The include is found with -I.
    std::fs::create_dir_all(dir.path().join("inc/kernels")).unwrap();
    std::fs::write(dir.path().join("inc/kernels/common.h"), "#define N 4\n").unwrap();
    let out = autosync_in(
        dir.path(),
        &["check", "--oracle", "dynamic", "-I", "inc", "include.cu"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn diff_adds_braces_and_applies_with_git_apply_and_patch() {
    let dir = tempfile::tempdir().unwrap();
    // Thread t updates element t+i in iteration i: iterations race with each other, so a
    // barrier goes into the brace-less loop body.
    let src = "//--blockDim=8 --gridDim=1
__global__ void shift(int *out, int n)
{
    __shared__ int s[8];
    s[threadIdx.x] = 0;
    for (int i = 0; i < n; i++)
        s[(threadIdx.x + i) % 8] += i;
    out[threadIdx.x] = s[threadIdx.x];
}
";
    std::fs::write(dir.path().join("shift.cu"), src).unwrap();
    let out = autosync_in(dir.path(), &["fix", "--diff", "--oracle", "dynamic", "shift.cu"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let patch = String::from_utf8(out.stdout).unwrap();
    assert!(patch.starts_with("--- a/shift.cu\n+++ b/shift.cu\n"), "{patch}");
    std::fs::write(dir.path().join("p.diff"), &patch).unwrap();
    let git = Command::new("git")
        .current_dir(dir.path())
        .args(["apply", "--check", "p.diff"])
        .output()
        .unwrap();
    assert!(git.status.success(), "{}", String::from_utf8_lossy(&git.stderr));
    let patched = Command::new("patch")
        .current_dir(dir.path())
        .args(["-p1", "-i", "p.diff"])
        .output()
        .unwrap();
    assert!(
        patched.status.success(),
        "{}",
        String::from_utf8_lossy(&patched.stderr)
    );
    let fixed = std::fs::read_to_string(dir.path().join("shift.cu")).unwrap();
    // Same as --stdout would print, and the barriers went into new braces.
    let mut stdout_run = dir.path().to_path_buf();
    stdout_run.push("again.cu");
    std::fs::write(&stdout_run, src).unwrap();
    let out = autosync_in(
        dir.path(),
        &["fix", "--stdout", "--oracle", "dynamic", "again.cu"],
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), fixed);
    assert!(fixed.contains("    for (int i = 0; i < n; i++) {\n"), "{fixed}");
    assert!(
        fixed.contains("        s[(threadIdx.x + i) % 8] += i;\n"),
        "{fixed}"
    );
    assert_eq!(barriers(&fixed), 2, "{fixed}");
    let out = autosync_in(dir.path(), &["check", "--oracle", "dynamic", "shift.cu"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn template_kernels_are_named_by_instantiation_and_selectable() {
    let dir = tempfile::tempdir().unwrap();
    let src = "//--blockDim=8 --gridDim=1
template <class T, int N>
__global__ void shift(T *out)
{
    __shared__ T s[N + 1];
    s[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + 1];
}
template __global__ void shift<int, 8>(int *);
template __global__ void shift<float, 8>(float *);
";
    std::fs::write(dir.path().join("t.cu"), src).unwrap();
    let out = autosync_in(
        dir.path(),
        &["check", "--oracle", "dynamic", "--format", "json", "t.cu"],
    );
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = doc["files"][0]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shift<int,8>", "shift<float,8>"]);
    let out = autosync_in(
        dir.path(),
        &[
            "check",
            "--oracle",
            "dynamic",
            "--format",
            "json",
            "--kernel",
            "shift<float,8>",
            "t.cu",
        ],
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["kernels"].as_array().unwrap().len(), 1);
    let out = autosync_in(
        dir.path(),
        &[
            "check", "--oracle", "dynamic", "--format", "json", "--kernel", "shift", "t.cu",
        ],
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["kernels"].as_array().unwrap().len(), 2);
}

#[test]
fn the_aliasing_assumption_is_noted_and_alias_drops_it() {
    let src = "//--blockDim=4 --gridDim=1
__global__ void copy(int *dst, int *src)
{
    dst[threadIdx.x] = src[threadIdx.x + 1];
}
";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.cu"), src).unwrap();
    let out = autosync_in(
        dir.path(),
        &["check", "--oracle", "dynamic", "--format", "json", "c.cu"],
    );
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let k = &doc["files"][0]["kernels"][0];
    assert!(k["notes"][0].as_str().unwrap().contains("do not alias"), "{k}");
    // If dst and src may be the same array, thread t+1's write races with thread t's read.
    let out = autosync_in(
        dir.path(),
        &[
            "check",
            "--oracle",
            "dynamic",
            "--alias",
            "--param",
            "src_base=0",
            "c.cu",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let _ = autosync(&["--version"]);
}

#[test]
fn instantiations_of_one_template_share_their_edits() {
    let dir = tempfile::tempdir().unwrap();
    let same = "//--blockDim=8 --gridDim=1
template <class T>
__global__ void shift(T *out)
{
    __shared__ T s[9];
    T x = s[threadIdx.x + 1];
    s[threadIdx.x] = x;
    out[threadIdx.x] = x;
}
template __global__ void shift<int>(int *);
template __global__ void shift<float>(float *);
";
    std::fs::write(dir.path().join("same.cu"), same).unwrap();
    let out = autosync_in(dir.path(), &["fix", "--oracle", "dynamic", "same.cu"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let fixed = std::fs::read_to_string(dir.path().join("same.cu")).unwrap();
    assert_eq!(barriers(&fixed), 1, "{fixed}");

    // Only shift<8> takes the branch that needs a barrier; in shift<2> the branch is
    // folded away, so the barrier inside it serves both (tests/templates/ has more).
    let different = "//--blockDim=8 --gridDim=1
template <int N>
__global__ void shift(int *out)
{
    __shared__ int s[9];
    int x = 0;
    if (N > 4) {
        x = s[threadIdx.x + 1];
        s[threadIdx.x] = x;
    }
    out[threadIdx.x] = x;
}
template __global__ void shift<2>(int *);
template __global__ void shift<8>(int *);
";
    std::fs::write(dir.path().join("diff.cu"), different).unwrap();
    let out = autosync_in(
        dir.path(),
        &["fix", "--oracle", "dynamic", "--format", "json", "diff.cu"],
    );
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let statuses: Vec<&str> = doc["files"][0]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["unchanged", "fixed"]);
    assert_eq!(doc["files"][0]["kernels"][1]["inserted"][0]["line"], 9);
    let fixed = std::fs::read_to_string(dir.path().join("diff.cu")).unwrap();
    assert_eq!(
        fixed,
        different.replace(
            "        x = s[threadIdx.x + 1];\n",
            "        x = s[threadIdx.x + 1];\n        __syncthreads();\n"
        )
    );
}

#[test]
fn crlf_files_stay_crlf() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("crlf.cu");
    let original = "__global__ void k(int *A)\r\n{\r\n    __shared__ int s[64];\r\n    s[threadIdx.x] = A[threadIdx.x];\r\n    if (threadIdx.x < 32)\r\n        A[threadIdx.x] = s[63 - threadIdx.x];\r\n}\r\n";
    std::fs::write(&p, original).unwrap();
    let out = autosync_in(
        dir.path(),
        &["fix", "--block-dim", "64", "--grid-dim", "1", "crlf.cu"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let fixed = std::fs::read_to_string(&p).unwrap();
    assert!(fixed.contains("__syncthreads();\r\n"), "{fixed:?}");
    // Every line break is still CRLF.
    assert_eq!(
        fixed.matches('\n').count(),
        fixed.matches("\r\n").count(),
        "{fixed:?}"
    );
    assert_eq!(fixed.replace("    __syncthreads();\r\n", ""), original);
}

#[test]
fn strip_leaves_a_statement_after_a_label_before_a_closing_brace() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("labels.cu");
    let original = "__global__ void k(int *A, int mode)
{
    __shared__ int s[64];
    s[threadIdx.x] = A[threadIdx.x];
    switch (mode) {
    case 0:
        __syncthreads();
        break;
    case 1:
        __syncthreads();
    }
    A[threadIdx.x] = s[threadIdx.x];
done:
    __syncthreads();
}
";
    std::fs::write(&p, original).unwrap();
    let out = autosync_in(
        dir.path(),
        &[
            "fix",
            "--strip",
            "--block-dim",
            "64",
            "--grid-dim",
            "1",
            "--stdout",
            "labels.cu",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixed = String::from_utf8_lossy(&out.stdout);
    // The barrier after `case 0:` goes with its line (`break;` follows); the ones that
    // were all that followed `case 1:` and `done:` become `;`.
    assert!(fixed.contains("    case 0:\n        break;\n"), "{fixed}");
    assert!(fixed.contains("    case 1:\n        ;\n    }\n"), "{fixed}");
    assert!(fixed.contains("done:\n    ;\n}\n"), "{fixed}");
    assert_eq!(barriers(&fixed), 0);
}
