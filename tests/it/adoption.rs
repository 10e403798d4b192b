//! Issue #18: build-system flags (`-D`, `-U`, compilation databases), `fix --check`,
//! broken pipes, the JSON schema version.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::common::{autosync_in, code, dir_with, root, stdout};

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
    // The report (stderr) says what fix would do, not what it did.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("rotate.cu: kernel `rotate`: would insert 1 barrier(s) at line(s) 5;"),
        "{err}"
    );
    assert!(
        err.ends_with("processed 1 file, 1 kernel: 1 would be fixed\n"),
        "{err}"
    );
    assert!(!err.contains("inserted") && !err.contains(": 1 fixed"), "{err}");
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
    // Without the database: a races; b cannot find its header, which may define the
    // `SYNC` its barrier depends on: not checked.
    assert_eq!(verdict(root, &["src/a.cu"]), (1, "race".into()));
    let o = autosync_in(root, &["check", "src/b.cu"]);
    assert_eq!(code(&o), 2);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("device code under the conditional at src/b.cu:6"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // A missing database is an error.
    let o = autosync_in(root, &["check", "-p", "nowhere"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read the compilation database"));
}

// ---------------------------------------------------------------- the user's names

/// `check` in text, JSON and SARIF: the three reports.
fn three_reports(dir: &Path, file: &str) -> (String, Value, Value) {
    let text = stdout(&autosync_in(dir, &["check", "--color", "never", file]));
    let json =
        serde_json::from_slice(&autosync_in(dir, &["check", "--format", "json", file]).stdout).expect("json");
    let sarif = serde_json::from_slice(&autosync_in(dir, &["check", "--format", "sarif", file]).stdout)
        .expect("sarif");
    (text, json, sarif)
}

fn sarif_messages(sarif: &Value) -> Vec<String> {
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.to_string())
        .collect()
}

#[test]
fn dynamic_shared_memory_is_named_as_declared() {
    let k = "//--blockDim=64 --gridDim=1\n\
__global__ void shift(float *out) {\n\
    extern __shared__ float s[];\n\
    s[threadIdx.x] = out[threadIdx.x];\n\
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n\
}\n";
    let (dir, _) = dir_with("k.cu", k);
    let (text, json, sarif) = three_reports(dir.path(), "k.cu");
    assert!(
        text.contains("error[race]: write-read race on shared array `s`"),
        "{text}"
    );
    assert!(text.contains("thread 1 writes `s[1]`"), "{text}");
    assert_eq!(json["files"][0]["kernels"][0]["races"][0]["array"], "s");
    let m = sarif_messages(&sarif);
    assert_eq!(m.len(), 1);
    assert!(m[0].contains("race on array `s` in kernel `shift`"), "{m:?}");
}

/// The SDK's `SharedMemory<T>` declares the dynamic shared memory as `__smem` in a
/// helper: reports name the kernel's pointer to it.
#[test]
fn a_helpers_reserved_array_name_is_replaced_by_the_kernels_pointer() {
    let k = "//--blockDim=64 --gridDim=1\n\
template <class T> struct SharedMemory {\n\
    __device__ inline operator T *() { extern __shared__ int __smem[]; return (T *)__smem; }\n\
};\n\
__global__ void shift(float *out) {\n\
    float *buf = SharedMemory<float>();\n\
    buf[threadIdx.x] = out[threadIdx.x];\n\
    out[threadIdx.x] = buf[(threadIdx.x + 1) % 64];\n\
}\n";
    let (dir, _) = dir_with("k.cu", k);
    let (text, json, sarif) = three_reports(dir.path(), "k.cu");
    assert!(
        text.contains("error[race]: write-read race on shared array `buf`"),
        "{text}"
    );
    assert!(text.contains("thread 0 reads `buf[1]` (line 8) while"), "{text}");
    assert_eq!(json["files"][0]["kernels"][0]["races"][0]["array"], "buf");
    let m = sarif_messages(&sarif);
    assert!(m[0].contains("race on array `buf`"), "{m:?}");
    for report in [text, json.to_string(), m.concat()] {
        assert!(!report.contains("__smem"), "{report}");
    }
    // fix --explain too.
    let o = autosync_in(dir.path(), &["fix", "--stdout", "--explain", "k.cu"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the write-read race on `buf` between line 7 and line 8"),
        "{err}"
    );
}

/// Arrays a pointer chooses between are one array inside autosync: a report names the
/// part the witness touches, at its own index, and the note names the arrays.
#[test]
fn merged_arrays_are_reported_by_the_users_names() {
    let k = "//--blockDim=64 --gridDim=1\n\
__global__ void pick(int *a, int *b, int c) {\n\
    int *p = c ? a : b;\n\
    p[threadIdx.x] = p[threadIdx.x + 1];\n\
}\n";
    let (dir, _) = dir_with("k.cu", k);
    let (text, json, sarif) = three_reports(dir.path(), "k.cu");
    let race = &json["files"][0]["kernels"][0]["races"][0];
    let array = race["array"].as_str().unwrap();
    assert!(array == "a" || array == "b", "{race}");
    // The witness index is the part's own: thread t reads p[t + 1].
    let w = &race["witness"];
    // threads[0] makes the first access, threads[1] the second.
    let reader = if race["kind"] == "read-write" { 0 } else { 1 };
    let t = w["threads"][reader]["tid"][0].as_i64().unwrap();
    assert_eq!(w["index"].as_i64(), Some(t + 1), "{race}");
    assert_eq!(w["params"]["c"].as_i64() == Some(0), array == "b", "{race}");
    assert!(
        text.contains("note: `a`, `b` are checked as one memory (each in a range of its own, so they never overlap) because a pointer may point into any of them"),
        "{text}"
    );
    assert!(!text.contains("1099511627"), "{text}");
    assert!(sarif_messages(&sarif)[0].contains(&format!("race on array `{array}`")));
}

#[test]
fn help_cites_no_document_the_user_does_not_have() {
    for cmd in [
        &["--help"][..],
        &["check", "--help"],
        &["fix", "--help"],
        &["cost", "--help"],
    ] {
        let o = autosync_in(Path::new("."), cmd);
        assert_eq!(code(&o), 0);
        let help = stdout(&o);
        for word in ["DESIGN", "§", "Algorithm 1", "SDV", "Sec. ", "the paper"] {
            assert!(!help.contains(word), "`{cmd:?}` mentions {word}:\n{help}");
        }
    }
}

// ---------------------------------------------------------------- pre-commit and CI

fn yaml(file: &str) -> serde_yaml_ng::Value {
    let text = std::fs::read_to_string(root().join(file)).expect(file);
    serde_yaml_ng::from_str(&text).expect("valid YAML")
}

/// Runs a pre-commit hook's `entry` as pre-commit does (the file names appended), with
/// the built binary as `autosync`.
fn run_hook(hook: &serde_yaml_ng::Value, dir: &Path, files: &[&str]) -> Output {
    let entry = hook["entry"].as_str().unwrap();
    let mut words = entry.split_whitespace();
    assert_eq!(words.next(), Some("autosync"));
    Command::new(env!("CARGO_BIN_EXE_autosync"))
        .current_dir(dir)
        .args(words)
        .args(files)
        .output()
        .expect("run the hook")
}

#[test]
fn pre_commit_hooks_check_and_fix_cuda_files() {
    let hooks = yaml(".pre-commit-hooks.yaml");
    let hooks = hooks.as_sequence().expect("a list of hooks");
    let ids: Vec<&str> = hooks.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["autosync-check", "autosync-fix"]);
    for h in hooks {
        assert_eq!(h["language"], "rust");
        assert_eq!(h["pass_filenames"], true);
        assert!(h["name"].is_string() && h["description"].is_string());
        let files = regex::Regex::new(h["files"].as_str().unwrap()).unwrap();
        for f in ["k.cu", "src/a/b.cuh", "x.y.cu"] {
            assert!(files.is_match(f), "{f}");
        }
        for f in ["k.c", "k.cpp", "k.cu.orig", "k.cuda", "cu", "k.kpl"] {
            assert!(!files.is_match(f), "{f}");
        }
    }
    let (check, fix) = (&hooks[0], &hooks[1]);
    assert!(check["entry"].as_str().unwrap().starts_with("autosync check"));
    assert!(fix["entry"].as_str().unwrap().starts_with("autosync fix"));
    let (dir, p) = dir_with("racy.cu", ROTATE);
    let d = dir.path();
    std::fs::write(
        d.join("clean.cu"),
        ROTATE.replace("#ifdef SYNC\n", "").replace("#endif\n", ""),
    )
    .unwrap();
    // The check hook: a race fails the commit, a clean file passes.
    assert_eq!(code(&run_hook(check, d, &["racy.cu"])), 1);
    assert_eq!(code(&run_hook(check, d, &["clean.cu"])), 0);
    assert_eq!(code(&run_hook(check, d, &["clean.cu", "racy.cu"])), 1);
    // The fix hook rewrites the racy file (pre-commit then stops the commit because the
    // file changed) and leaves the clean one alone; afterwards the check passes.
    let clean_before = std::fs::read_to_string(d.join("clean.cu")).unwrap();
    assert_eq!(code(&run_hook(fix, d, &["clean.cu", "racy.cu"])), 0);
    assert_ne!(std::fs::read_to_string(&p).unwrap(), ROTATE);
    assert_eq!(std::fs::read_to_string(d.join("clean.cu")).unwrap(), clean_before);
    assert_eq!(code(&run_hook(check, d, &["clean.cu", "racy.cu"])), 0);
}

#[test]
fn the_github_action_builds_checks_and_uploads_sarif() {
    let action = yaml("action.yml");
    assert!(action["name"].is_string() && action["description"].is_string());
    assert_eq!(action["runs"]["using"], "composite");
    for input in ["paths", "args", "sarif-file", "upload", "fail-on-findings"] {
        assert!(action["inputs"][input]["description"].is_string(), "{input}");
    }
    let steps = action_steps(&action);
    let (z3, key, cache, build, check, upload) = (
        step(steps, "libz3-dev"),
        step(steps, "sha256sum"),
        step(steps, "actions/cache@"),
        step(steps, "cargo install"),
        step(steps, "autosync check --format sarif"),
        step(steps, "github/codeql-action/upload-sarif@"),
    );
    assert!(z3 < key && key < cache && cache < build && build < check && check < upload);
    for s in steps.iter().filter(|s| s["run"].is_string()) {
        assert_eq!(s["shell"], "bash", "a composite step needs a shell");
    }
    assert_eq!(steps[upload]["with"]["sarif_file"], "${{ inputs.sarif-file }}");
    assert_eq!(steps[check]["id"], "check");
    // The binary is cached under the key of the source it is built from, and a cache hit
    // skips the build.
    assert_eq!(steps[key]["id"], "key");
    assert_eq!(steps[cache]["id"], "cache");
    assert_eq!(steps[cache]["with"]["key"], "${{ steps.key.outputs.key }}");
    assert_eq!(steps[cache]["with"]["path"], "${{ runner.temp }}/autosync");
    assert_eq!(steps[build]["if"], "steps.cache.outputs.cache-hit != 'true'");
}

/// The steps of the action.
fn action_steps(action: &serde_yaml_ng::Value) -> &Vec<serde_yaml_ng::Value> {
    action["runs"]["steps"].as_sequence().expect("runs.steps")
}

/// The script of a step (empty for a `uses` step).
fn run_of(s: &serde_yaml_ng::Value) -> String {
    s["run"].as_str().unwrap_or("").to_string()
}

/// The position of the first step whose script or `uses` contains `what`.
fn step(steps: &[serde_yaml_ng::Value], what: &str) -> usize {
    steps
        .iter()
        .position(|s| run_of(s).contains(what) || s["uses"].as_str().unwrap_or("").contains(what))
        .unwrap_or_else(|| panic!("no step with {what}"))
}

/// Runs a step's script as a runner does (`bash --noprofile --norc -eo pipefail`) in
/// `dir`, with the built binary on PATH and `env`; returns the output and what the step
/// wrote to `$GITHUB_OUTPUT`.
fn run_step(script: &str, dir: &Path, env: &[(&str, &str)]) -> (Output, String) {
    let out = dir.join("github-output.txt");
    std::fs::write(&out, "").unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_autosync")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let o = Command::new("bash")
        .current_dir(dir)
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .env("PATH", path)
        .env("GITHUB_OUTPUT", &out)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (o, std::fs::read_to_string(&out).unwrap())
}

#[test]
fn the_github_action_quotes_its_inputs() {
    let action = yaml("action.yml");
    let steps = action_steps(&action);
    // No input is pasted into a script (where `${{ }}` would be expanded before bash sees
    // it, spaces and quotes included): every one comes through the environment.
    for s in steps {
        assert!(!run_of(s).contains("${{"), "{}", run_of(s));
    }
    let script = run_of(&steps[step(steps, "autosync check --format sarif")]);
    // Paths with spaces, one per line; an option whose value has a space, quoted.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("my kernels")).unwrap();
    std::fs::create_dir_all(d.join("inc dir")).unwrap();
    std::fs::write(d.join("my kernels/racy.cu"), ROTATE).unwrap();
    std::fs::write(
        d.join("clean.cu"),
        ROTATE.replace("#ifdef SYNC\n", "").replace("#endif\n", ""),
    )
    .unwrap();
    let env = [
        ("PATHS", "my kernels/racy.cu\nclean.cu\n"),
        ("ARGS", "-I 'inc dir' -D \"NOTE=a b\""),
        ("SARIF_FILE", "out dir.sarif"),
    ];
    let (o, out) = run_step(&script, d, &env);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(out, "exit-code=1\n");
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out dir.sarif")).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["ruleId"], "data-race");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "my%20kernels/racy.cu"
    );
    // The clean file alone: exit 0; `-D SYNC` given in args fixes the racy one too.
    let (o, out) = run_step(
        &script,
        d,
        &[("PATHS", "clean.cu"), ("ARGS", ""), ("SARIF_FILE", "a.sarif")],
    );
    assert_eq!((code(&o), out.as_str()), (0, "exit-code=0\n"));
    let env = [
        ("PATHS", "my kernels"),
        ("ARGS", "-D SYNC"),
        ("SARIF_FILE", "a.sarif"),
    ];
    let (o, out) = run_step(&script, d, &env);
    assert_eq!((code(&o), out.as_str()), (0, "exit-code=0\n"));
    // An unmatched quote in args fails the step with an error, nothing is checked.
    let env = [
        ("PATHS", "clean.cu"),
        ("ARGS", "-I 'inc dir"),
        ("SARIF_FILE", "b.sarif"),
    ];
    let (o, out) = run_step(&script, d, &env);
    assert_eq!((code(&o), out.as_str()), (2, ""));
    assert!(
        stdout(&o).contains("::error::the input args has an unmatched quote"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn the_github_action_keeps_the_results_its_last_run_used() {
    let action = yaml("action.yml");
    let steps = action_steps(&action);
    let (restore, check, save) = (
        step(steps, "actions/cache/restore@"),
        step(steps, "autosync check --format sarif"),
        step(steps, "actions/cache/save@"),
    );
    assert!(step(steps, "cargo install") < restore && restore < check && check < save);
    let results = "${{ runner.temp }}/autosync-results";
    assert_eq!(steps[restore]["with"]["path"], results);
    assert_eq!(steps[save]["with"]["path"], results);
    assert_eq!(steps[restore]["with"]["key"], steps[save]["with"]["key"]);
    let key = steps[save]["with"]["key"].as_str().unwrap();
    assert!(
        key.starts_with("autosync-results-${{ steps.key.outputs.key }}-"),
        "{key}"
    );
    assert!(
        key.contains("${{ github.run_id }}"),
        "a key of its own per run: {key}"
    );
    assert_eq!(
        steps[restore]["with"]["restore-keys"],
        "autosync-results-${{ steps.key.outputs.key }}-"
    );
    assert_eq!(action["inputs"]["cache"]["default"], "true");
    for s in [restore, save] {
        assert!(
            steps[s]["if"]
                .as_str()
                .unwrap()
                .contains("inputs.cache == 'true'")
        );
    }
    // The check step with RESULTS set: results kept; a run of one file of the two keeps
    // the entry of that file's kernel alone, read from the cache.
    let script = run_of(&steps[check]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("racy.cu"), ROTATE).unwrap();
    std::fs::write(
        d.join("clean.cu"),
        ROTATE
            .replace("rotate", "turn")
            .replace("#ifdef SYNC\n", "")
            .replace("#endif\n", ""),
    )
    .unwrap();
    let entries = |d: &Path| -> usize {
        std::fs::read_dir(d.join("results"))
            .unwrap()
            .flatten()
            .map(|sub| std::fs::read_dir(sub.path()).unwrap().count())
            .sum()
    };
    let results = d.join("results");
    let env = [
        ("PATHS", "racy.cu\nclean.cu"),
        ("ARGS", ""),
        ("SARIF_FILE", "a.sarif"),
        ("RESULTS", results.to_str().unwrap()),
    ];
    let (o, out) = run_step(&script, d, &env);
    assert_eq!((code(&o), out.as_str()), (0, "exit-code=1\n"));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(
        err,
        format!("autosync: cache {}: 0 hits, 2 misses\n", results.display())
    );
    assert_eq!(entries(d), 2);
    let env = [
        ("PATHS", "clean.cu"),
        ("ARGS", ""),
        ("SARIF_FILE", "b.sarif"),
        ("RESULTS", results.to_str().unwrap()),
    ];
    let (o, out) = run_step(&script, d, &env);
    assert_eq!((code(&o), out.as_str()), (0, "exit-code=0\n"));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(
        err,
        format!("autosync: cache {}: 1 hit, 0 misses\n", results.display())
    );
    assert_eq!(entries(d), 1, "the racy file's entry is pruned");
    assert_eq!(
        std::fs::read_to_string(d.join("b.sarif")).unwrap(),
        {
            let (_, _) = run_step(
                &script,
                d,
                &[("PATHS", "clean.cu"), ("ARGS", ""), ("SARIF_FILE", "c.sarif")],
            );
            std::fs::read_to_string(d.join("c.sarif")).unwrap()
        },
        "the log is the same without the cache"
    );
}

#[test]
fn the_github_action_keys_its_cache_by_the_source() {
    let action = yaml("action.yml");
    let steps = action_steps(&action);
    let script = run_of(&steps[step(steps, "sha256sum")]);
    // A copy of the action with a space in its path: the key names the OS, the
    // architecture, Z3 and a hash of the Rust source; it changes with the source only.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("the action");
    std::fs::create_dir_all(src.join("src")).unwrap();
    std::fs::create_dir_all(src.join("tests")).unwrap();
    std::fs::write(src.join("Cargo.toml"), "[package]\n").unwrap();
    std::fs::write(src.join("src/main.rs"), "fn main() {}\n").unwrap();
    let env = [
        ("GITHUB_ACTION_PATH", src.to_str().unwrap()),
        ("RUNNER_OS", "Linux"),
        ("RUNNER_ARCH", "X64"),
    ];
    let key = |d: &Path| {
        let (o, out) = run_step(&script, d, &env);
        assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let first = key(dir.path());
    let shape = regex::Regex::new(r"^key=autosync-Linux-X64-z3-\S+-src-[0-9a-f]{16}\n$").unwrap();
    assert!(shape.is_match(&first), "{first}");
    std::fs::write(src.join("tests/t.rs"), "// a test\n").unwrap();
    assert_eq!(key(dir.path()), first, "tests are not part of the binary");
    std::fs::write(src.join("src/main.rs"), "fn main() { }\n").unwrap();
    assert_ne!(key(dir.path()), first, "a source change builds again");
}
