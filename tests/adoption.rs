//! Issue #18: build-system flags (`-D`, `-U`, compilation databases), `fix --check`,
//! broken pipes, the JSON schema version.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn autosync_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_autosync"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run autosync")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

/// A kernel that races unless `SYNC` is defined (its barrier is behind the macro).
const ROTATE: &str = "//--blockDim=64 --gridDim=1\n\
__global__ void rotate(int *out) {\n\
  __shared__ int s[64];\n\
  s[threadIdx.x] = out[threadIdx.x];\n\
#ifdef SYNC\n\
  __syncthreads();\n\
#endif\n\
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n\
}\n";

fn dir_with(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    (dir, p)
}

fn verdict(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut a = vec!["check", "--format", "json"];
    a.extend_from_slice(args);
    let o = autosync_in(dir, &a);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("json");
    let v = doc["files"][0]["kernels"][0]["verdict"]
        .as_str()
        .unwrap_or("none")
        .to_string();
    (code(&o), v)
}

#[test]
fn macros_from_the_command_line_decide_the_verdict() {
    let (dir, _) = dir_with("rotate.cu", ROTATE);
    let d = dir.path();
    assert_eq!(verdict(d, &["rotate.cu"]), (1, "race".into()));
    assert_eq!(verdict(d, &["-DSYNC", "rotate.cu"]), (0, "verified".into()));
    assert_eq!(verdict(d, &["-D", "SYNC", "rotate.cu"]), (0, "verified".into()));
    assert_eq!(verdict(d, &["-D", "SYNC=0", "rotate.cu"]), (0, "verified".into()));
    // -U wins over -D, whatever the order.
    assert_eq!(verdict(d, &["-USYNC", "-DSYNC", "rotate.cu"]), (1, "race".into()));
    assert_eq!(
        verdict(d, &["-D", "SYNC", "-U", "SYNC", "rotate.cu"]),
        (1, "race".into())
    );
    // The same flags on fix and cost.
    let o = autosync_in(d, &["fix", "--check", "-DSYNC", "rotate.cu"]);
    assert_eq!(code(&o), 0);
    let o = autosync_in(d, &["cost", "-DSYNC", "rotate.cu"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    // A bad name is a usage error.
    let o = autosync_in(d, &["check", "-D", "1X", "rotate.cu"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn command_line_macros_win_over_the_header_comment() {
    let text = ROTATE.replace("--gridDim=1\n", "--gridDim=1 -DSYNC\n");
    let (dir, _) = dir_with("rotate.cu", &text);
    let d = dir.path();
    assert_eq!(verdict(d, &["rotate.cu"]), (0, "verified".into()));
    assert_eq!(verdict(d, &["-USYNC", "rotate.cu"]), (1, "race".into()));
    // A value: `#if` sees the command line's.
    let valued = ROTATE
        .replace("#ifdef SYNC", "#if SYNC")
        .replace("--gridDim=1\n", "--gridDim=1 -DSYNC=1\n");
    std::fs::write(d.join("v.cu"), valued).unwrap();
    assert_eq!(verdict(d, &["v.cu"]), (0, "verified".into()));
    assert_eq!(verdict(d, &["-DSYNC=0", "v.cu"]), (1, "race".into()));
}

#[test]
fn fix_check_prints_the_diff_and_writes_nothing() {
    let (dir, p) = dir_with("rotate.cu", ROTATE);
    let d = dir.path();
    let o = autosync_in(d, &["fix", "--check", "rotate.cu"]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        stdout(&o),
        "--- a/rotate.cu\n+++ b/rotate.cu\n@@ -2,6 +2,7 @@\n __global__ void rotate(int *out) {\n \
         __shared__ int s[64];\n s[threadIdx.x] = out[threadIdx.x];\n+__syncthreads();\n #ifdef SYNC\n \
         __syncthreads();\n #endif\n"
    );
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        ROTATE,
        "--check never writes"
    );
    // Already synchronized: exit 0, no output on stdout.
    let o = autosync_in(d, &["fix", "--check", "-DSYNC", "rotate.cu"]);
    assert_eq!((code(&o), stdout(&o)), (0, String::new()));
    // Errors keep exit code 2.
    let o = autosync_in(d, &["fix", "--check", "missing.cu"]);
    assert_eq!((code(&o), stdout(&o)), (2, String::new()));
    // --check conflicts with --diff and --stdout.
    assert_eq!(
        code(&autosync_in(d, &["fix", "--check", "--diff", "rotate.cu"])),
        2
    );
}

#[test]
fn a_closed_pipe_ends_quietly_with_success() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..40 {
        std::fs::write(dir.path().join(format!("k{i:02}.cu")), ROTATE).unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_autosync"))
        .current_dir(dir.path())
        .args(["check", "."])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Close the read end at once: every write fails with EPIPE.
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("wait");
    assert_eq!(code(&o), 0, "stderr: {}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}

/// The fields docs/cli.md lists for a `check` kernel and race.
const KERNEL_FIELDS: &[&str] = &[
    "name",
    "verdict",
    "races",
    "divergences",
    "time_ms",
    "notes",
    "benign_races",
];
const RACE_FIELDS: &[&str] = &[
    "array", "kind", "first", "second", "fixable", "intra", "inter", "witness",
];

#[test]
fn json_documents_carry_the_schema_version_and_the_documented_fields() {
    let (dir, _) = dir_with("rotate.cu", ROTATE);
    let d = dir.path();
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md")).unwrap();
    assert!(docs.contains(r#"{"version": 1, "files": ["#));
    for f in KERNEL_FIELDS.iter().chain(RACE_FIELDS) {
        assert!(docs.contains(&format!("\"{f}\"")), "docs/cli.md documents `{f}`");
    }
    for cmd in [
        &["check", "--format", "json", "rotate.cu"][..],
        &["fix", "--format", "json", "--check", "rotate.cu"],
        &["cost", "--format", "json", "rotate.cu"],
    ] {
        let o = autosync_in(d, cmd);
        let doc: Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(doc["version"], 1, "{cmd:?}");
        assert!(doc["files"].is_array());
    }
    let o = autosync_in(d, &["check", "--format", "json", "rotate.cu"]);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let k = &doc["files"][0]["kernels"][0];
    for f in KERNEL_FIELDS {
        assert!(k.get(f).is_some(), "kernel field `{f}`");
    }
    for f in RACE_FIELDS {
        assert!(k["races"][0].get(f).is_some(), "race field `{f}`");
    }
}

/// Two corpus-style files in a source tree, a build folder with a database whose
/// entries give one file `-DSYNC` through an nvcc `command` and the other `-I` and a
/// forced include through clang `arguments`.
#[test]
fn compilation_database_flags_are_used_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src/inc")).unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("src/a.cu"), ROTATE).unwrap();
    // b.cu needs WIDTH from a header found through -I, and SYNC from a forced include.
    let b = ROTATE
        .replace("__global__", "#include \"width.h\"\n__global__")
        .replace("s[64]", "s[WIDTH]");
    std::fs::write(root.join("src/b.cu"), b).unwrap();
    std::fs::write(root.join("src/inc/width.h"), "#define WIDTH 64\n").unwrap();
    std::fs::write(root.join("src/inc/sync.h"), "#define SYNC\n").unwrap();
    std::fs::write(root.join("src/other.cpp"), "int main() {}\n").unwrap();
    let db = serde_json::json!([
        {"directory": root.join("build"), "file": "../src/a.cu",
         "command": "/usr/local/cuda/bin/nvcc -DSYNC -std=c++17 -arch=sm_70 -o a.o -c ../src/a.cu"},
        {"directory": root.join("src"), "file": root.join("src/b.cu"),
         "arguments": ["clang++", "-x", "cuda", "-Iinc", "-include", "inc/sync.h", "-c", "b.cu"]},
        {"directory": root.join("src"), "file": "other.cpp", "arguments": ["g++", "-c", "other.cpp"]}
    ]);
    std::fs::write(root.join("build/compile_commands.json"), db.to_string()).unwrap();
    // -p with no file: every .cu of the database, each with its flags.
    let o = autosync_in(root, &["check", "--format", "json", "-p", "build"]);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("json");
    let verdicts: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kernels"][0]["verdict"].as_str().unwrap_or("error"))
        .collect();
    assert_eq!(verdicts, ["verified", "verified"], "{doc}");
    assert_eq!(code(&o), 0);
    // A file given on the command line takes its entry's flags (relative path).
    assert_eq!(
        verdict(root, &["-p", "build", "src/a.cu"]),
        (0, "verified".into())
    );
    assert_eq!(
        verdict(
            root,
            &["--compile-commands", "build/compile_commands.json", "src/a.cu"]
        ),
        (0, "verified".into())
    );
    // The command line wins over the database.
    assert_eq!(
        verdict(root, &["-p", "build", "-USYNC", "src/a.cu"]),
        (1, "race".into())
    );
    // Without the database: a races, b cannot find its header.
    assert_eq!(verdict(root, &["src/a.cu"]), (1, "race".into()));
    assert_eq!(code(&autosync_in(root, &["check", "src/b.cu"])), 2);
    // A missing database is an error.
    let o = autosync_in(root, &["check", "-p", "nowhere"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read the compilation database"));
}
