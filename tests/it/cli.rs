//! The command line end to end on the AutoSync paper's examples (`examples/*.kpl`),
//! with the dynamic SDV interpreter as oracle: exact placements, lines, costs, oracle
//! calls, exit codes and file handling.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::autosync;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(name)
}

const LAUNCH: [&str; 6] = ["--oracle", "dynamic", "--block-dim", "8", "--grid-dim", "1"];

/// `fix --stdout --format json` on an example: (exit code, the kernel's JSON entry).
fn fix_json(file: &str, extra: &[&str]) -> (i32, Value) {
    let path = example(file);
    let mut args = vec!["fix", "--stdout", "--format", "json"];
    args.extend(LAUNCH);
    args.extend(extra);
    args.push(path.to_str().unwrap());
    let out = autosync(&args);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    (out.status.code().unwrap(), files[0]["kernels"][0].clone())
}

fn lines(v: &Value, key: &str) -> Vec<u64> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["line"].as_u64().unwrap())
        .collect()
}

#[test]
fn fig2_one_barrier_between_read_and_write() {
    let (code, k) = fix_json("fig2.kpl", &[]);
    assert_eq!(code, 0);
    assert_eq!(k["status"], "fixed");
    // Read at line 5, write at line 7: the barrier goes right after the read.
    assert_eq!(lines(&k, "inserted"), [6]);
    assert_eq!(k["barriers"], 1);
    assert_eq!(k["cost"], 1.0);
    assert_eq!(k["original_cost"], 0.0);
    assert_eq!(k["oracle_calls"], 2);
    assert_eq!(k["solver_calls"], 1);
}

#[test]
fn fig4_two_barriers_top_of_loop_and_between() {
    let (code, k) = fix_json("fig4.kpl", &[]);
    assert_eq!(code, 0);
    // One at the top of the loop body (new line 7), one after the read (new line 9).
    assert_eq!(lines(&k, "inserted"), [7, 9]);
    assert_eq!(k["cost"], 200.0);
    // The oracle said the race is both intra- and inter-iteration: one round suffices.
    assert_eq!(k["oracle_calls"], 2);
}

#[test]
fn fig4_faithful_refines_like_the_paper() {
    let (code, k) = fix_json("fig4.kpl", &["--faithful"]);
    assert_eq!(code, 0);
    assert_eq!(lines(&k, "inserted"), [7, 9]);
    // Sec. II-B: a barrier for P1 alone, then P0 alone, then both — 3 rounds plus the
    // initial call, as in Table I (2-2-loop:both, 4 oracle calls).
    assert_eq!(k["iterations"], 3);
    assert_eq!(k["oracle_calls"], 4);
}

#[test]
fn fig6_barrier_between_the_conditionals_after_divergence_exclusion() {
    let (code, k) = fix_json("fig6.kpl", &[]);
    assert_eq!(code, 0);
    // After the first `if` (lines 6–8): the new barrier is line 9.
    assert_eq!(lines(&k, "inserted"), [9]);
    assert_eq!(k["cost"], 1.0);
    // Inside the first if (diverges), top of the second (diverges), between: 1 + 3 calls.
    assert_eq!(k["oracle_calls"], 4);
}

#[test]
fn fig7_one_barrier_fixes_both_races() {
    let (code, k) = fix_json("fig7.kpl", &[]);
    assert_eq!(code, 0);
    // Reads at lines 5 and 6, writes at 7 and 8: one barrier after both reads.
    assert_eq!(lines(&k, "inserted"), [7]);
    assert_eq!(k["barriers"], 1);
    assert_eq!(k["oracle_calls"], 2);
}

#[test]
fn naive_finds_the_same_number_of_barriers_with_more_calls() {
    for (file, n) in [("fig2.kpl", 1), ("fig4.kpl", 2), ("fig6.kpl", 1), ("fig7.kpl", 1)] {
        let (code, k) = fix_json(file, &["--naive"]);
        let (_, a) = fix_json(file, &[]);
        assert_eq!(code, 0, "{file}");
        assert_eq!(k["barriers"], n, "{file}");
        assert!(
            k["oracle_calls"].as_u64() > a["oracle_calls"].as_u64(),
            "{file}: naive {} vs autosync {}",
            k["oracle_calls"],
            a["oracle_calls"]
        );
    }
}

#[test]
fn self_race_has_no_solution() {
    let (code, k) = fix_json("self_race.kpl", &[]);
    assert_eq!(code, 1);
    assert_eq!(k["status"], "no-solution");
    assert!(
        k["reason"].as_str().unwrap().contains("races with itself"),
        "{}",
        k["reason"]
    );
    assert_eq!(k["races"][0]["first"]["line"], 4);
    assert_eq!(k["races"][0]["second"]["line"], 4);
}

#[test]
fn cross_block_global_race_has_no_solution() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("g.kpl");
    std::fs::write(&p, "kernel g(global A[]) {\n    A[tid] = bid;\n}\n").unwrap();
    let out = autosync(&[
        "fix",
        "--format",
        "json",
        "--oracle",
        "dynamic",
        "--block-dim",
        "4",
        "--grid-dim",
        "2",
        p.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let k = &doc["files"][0]["kernels"][0];
    assert_eq!(k["status"], "no-solution");
    assert!(
        k["reason"].as_str().unwrap().contains("different blocks"),
        "{}",
        k["reason"]
    );
    assert_eq!(k["races"][0]["fixable"], false);
}

#[test]
fn check_json_reports_the_race() {
    let path = example("fig2.kpl");
    let mut args = vec!["check", "--format", "json"];
    args.extend(LAUNCH);
    args.push(path.to_str().unwrap());
    let out = autosync(&args);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let k = &doc["files"][0]["kernels"][0];
    assert_eq!(k["name"], "fig2");
    assert_eq!(k["verdict"], "race");
    let races = k["races"].as_array().unwrap();
    assert_eq!(races.len(), 1);
    assert_eq!(races[0]["array"], "A");
    assert_eq!(races[0]["kind"], "read-write");
    assert_eq!(races[0]["first"], serde_json::json!({"line": 5, "column": 5}));
    assert_eq!(races[0]["second"], serde_json::json!({"line": 7, "column": 5}));
    assert_eq!(races[0]["fixable"], true);
    assert!(k["divergences"].as_array().unwrap().is_empty());
}

#[test]
fn check_json_reports_divergence_and_clean_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("d.kpl");
    std::fs::write(
        &p,
        "kernel div(shared A[]) {\n    if (tid < 3) {\n        barrier;\n    }\n}\n\
         kernel ok(shared A[]) {\n    A[tid] = 1;\n    barrier;\n    local x;\n    x = A[tid + 1];\n}\n",
    )
    .unwrap();
    let mut args = vec!["check", "--format", "json"];
    args.extend(LAUNCH);
    args.push(p.to_str().unwrap());
    let out = autosync(&args);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ks = &doc["files"][0]["kernels"];
    assert_eq!(ks[0]["verdict"], "divergence");
    assert_eq!(ks[0]["divergences"][0]["line"], 3);
    assert_eq!(ks[1]["verdict"], "verified");
    // Only the clean kernel: exit 0.
    let mut args = vec!["check", "--kernel", "ok"];
    args.extend(LAUNCH);
    args.push(p.to_str().unwrap());
    assert_eq!(autosync(&args).status.code(), Some(0));
}

#[test]
fn fix_rewrites_in_place_keeping_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("fig7.kpl");
    std::fs::copy(example("fig7.kpl"), &p).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mut args = vec!["fix"];
    args.extend(LAUNCH);
    args.push(p.to_str().unwrap());
    let out = autosync(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&p).unwrap();
    let original = std::fs::read_to_string(example("fig7.kpl")).unwrap();
    assert_eq!(
        text,
        original.replace("    y = B[tid + 1];\n", "    y = B[tid + 1];\n    barrier;\n")
    );
    assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o640);
    // Fixed files check clean, and a second fix changes nothing.
    let mut args = vec!["check"];
    args.extend(LAUNCH);
    args.push(p.to_str().unwrap());
    assert_eq!(autosync(&args).status.code(), Some(0));
    let mut args = vec!["fix"];
    args.extend(LAUNCH);
    args.push(p.to_str().unwrap());
    assert_eq!(autosync(&args).status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
}

#[test]
fn files_are_untouched_on_failure_and_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("self.kpl");
    std::fs::copy(example("self_race.kpl"), &p).unwrap();
    let before = std::fs::read_to_string(&p).unwrap();
    let mut args = vec!["fix"];
    args.extend(LAUNCH);
    args.push(p.to_str().unwrap());
    assert_eq!(autosync(&args).status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), before);

    let bad = dir.path().join("bad.kpl");
    std::fs::write(&bad, "kernel k(shared A[]) {\n    A[tid] = ;\n}\n").unwrap();
    let mut args = vec!["fix"];
    args.extend(LAUNCH);
    args.push(bad.to_str().unwrap());
    let out = autosync(&args);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.kpl:2:14: syntax error"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&bad).unwrap(),
        "kernel k(shared A[]) {\n    A[tid] = ;\n}\n"
    );

    let out = autosync(&["check", dir.path().join("missing.kpl").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn strip_removes_a_superfluous_barrier_and_keeps_the_needed_one() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("over.kpl");
    let src = "kernel over(shared A[]) {
    local x;
    barrier;
    x = A[tid + 1];
    barrier;
    A[tid] = x;
    barrier;
}
";
    std::fs::write(&p, src).unwrap();
    let mut args = vec!["fix", "--strip", "--format", "json"];
    args.extend(LAUNCH);
    args.push(p.to_str().unwrap());
    let out = autosync(&args);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let k = &doc["files"][0]["kernels"][0];
    assert_eq!(k["status"], "fixed");
    assert_eq!(lines(k, "removed"), [3, 7]);
    assert!(lines(k, "inserted").is_empty());
    assert_eq!(k["barriers"], 1);
    assert_eq!(k["original_cost"], 3.0);
    assert_eq!(k["cost"], 1.0);
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "kernel over(shared A[]) {\n    local x;\n    x = A[tid + 1];\n    barrier;\n    A[tid] = x;\n}\n"
    );
}

#[test]
fn diff_applies_with_git_apply_and_patch() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(example("fig4.kpl"), dir.path().join("fig4.kpl")).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_autosync"))
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    let mut args = vec!["fix", "--diff"];
    args.extend(LAUNCH);
    args.push("fig4.kpl");
    let diff = run(&args);
    assert_eq!(diff.status.code(), Some(0));
    let patch_text = String::from_utf8(diff.stdout).unwrap();
    assert!(
        patch_text.starts_with("--- a/fig4.kpl\n+++ b/fig4.kpl\n"),
        "{patch_text}"
    );
    let mut args = vec!["fix", "--stdout"];
    args.extend(LAUNCH);
    args.push("fig4.kpl");
    let fixed = String::from_utf8(run(&args).stdout).unwrap();
    // The file itself was not touched by --diff / --stdout.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("fig4.kpl")).unwrap(),
        std::fs::read_to_string(example("fig4.kpl")).unwrap()
    );
    std::fs::write(dir.path().join("p.diff"), &patch_text).unwrap();
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
    assert_eq!(
        std::fs::read_to_string(dir.path().join("fig4.kpl")).unwrap(),
        fixed
    );
    // And git apply accepts it on the original.
    std::fs::copy(example("fig4.kpl"), dir.path().join("fig4.kpl")).unwrap();
    let git = Command::new("git")
        .current_dir(dir.path())
        .args(["apply", "p.diff"])
        .output()
        .unwrap();
    assert!(git.status.success(), "{}", String::from_utf8_lossy(&git.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("fig4.kpl")).unwrap(),
        fixed
    );
}

/// [verifier]: `fix` with the static verifier (the default oracle) places the same
/// barriers as with the dynamic interpreter, with and without a concrete launch.
#[test]
fn static_oracle_gives_the_same_placements_as_the_dynamic_one() {
    for file in ["fig2.kpl", "fig4.kpl", "fig6.kpl", "fig7.kpl", "reduction.kpl"] {
        let (code, dynamic) = fix_json(file, &[]);
        assert_eq!(code, 0, "{file}");
        for launch in [vec!["--block-dim", "8", "--grid-dim", "1"], vec![]] {
            let path = example(file);
            let mut args = vec!["fix", "--stdout", "--format", "json"];
            args.extend(&launch);
            args.push(path.to_str().unwrap());
            let out = autosync(&args);
            assert_eq!(out.status.code(), Some(0), "{file} {launch:?}");
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            let k = &doc["files"][0]["kernels"][0];
            assert_eq!(
                lines(k, "inserted"),
                lines(&dynamic, "inserted"),
                "{file} {launch:?}"
            );
            assert_eq!(k["cost"], dynamic["cost"], "{file} {launch:?}");
        }
    }
}

#[test]
fn a_file_without_kernels_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("helpers.cu");
    std::fs::write(&path, "__device__ int twice(int x) { return 2 * x; }\n").expect("write");
    let out = autosync(&["check", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "helpers.cu: no kernel here (no `__global__` function in this file itself); nothing checked"
        ),
        "{text}"
    );
}

/// Races between blocks leave no barrier-only fix, but the report still shows the
/// barriers that fix the kernel's other races; the file stays untouched.
#[test]
fn unfixable_races_still_show_the_partial_placement() {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path().join("mixed.cu");
    let text = "//--blockDim=64 --gridDim=4
__global__ void k(int *out, int *g) {
    __shared__ int s[64];
    s[threadIdx.x] = out[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
    g[0] = threadIdx.x;
}
";
    std::fs::write(&p, text).expect("write");
    let path = p.to_str().expect("utf-8 path");
    let out = autosync(&["fix", "--format", "json", path]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let k = &doc["files"][0]["kernels"][0];
    assert_eq!(k["status"], "no-solution");
    assert_eq!(
        k["partial_inserted"],
        serde_json::json!([{"line": 5, "after_line": 4}])
    );
    assert!(
        k["races"]
            .as_array()
            .expect("races")
            .iter()
            .all(|r| r["fixable"] == false)
    );
    assert_eq!(std::fs::read_to_string(&p).expect("read"), text);
    let out = autosync(&["fix", path]);
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        report.contains("barriers after line(s) 4 fix every other race of this kernel"),
        "{report}"
    );
}

/// GPUVerify's `--only-intra-group` in a file's header: races between blocks are not
/// checked (and the report says so); without it the same kernel has no barrier-only fix.
#[test]
fn only_intra_group_header_skips_races_between_blocks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let kernel = "__global__ void k(int *out) {
    __shared__ int s[64];
    s[threadIdx.x] = out[threadIdx.x];
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
";
    for (header, oracle, status, code) in [
        (
            "//--blockDim=64 --gridDim=4 --only-intra-group\n",
            "static",
            "fixed",
            0,
        ),
        (
            "//--blockDim=64 --gridDim=4 --only-intra-group\n",
            "dynamic",
            "fixed",
            0,
        ),
        ("//--blockDim=64 --gridDim=4\n", "static", "no-solution", 1),
    ] {
        let p = dir.path().join("intra.cu");
        std::fs::write(&p, format!("{header}{kernel}")).expect("write");
        let out = autosync(&[
            "fix",
            "--stdout",
            "--format",
            "json",
            "--oracle",
            oracle,
            p.to_str().expect("utf-8"),
        ]);
        assert_eq!(out.status.code(), Some(code), "{header} {oracle}");
        let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
        let k = &doc["files"][0]["kernels"][0];
        assert_eq!(k["status"], status, "{header} {oracle}");
        let skipped = k["notes"].as_array().expect("notes").iter().any(|n| {
            n.as_str()
                .is_some_and(|n| n.contains("races between threads of different blocks are not checked"))
        });
        assert_eq!(skipped, header.contains("only-intra-group"));
        if code == 0 {
            assert_eq!(k["inserted"][0]["after_line"], 4);
        }
    }
}

/// Text report of `check` on a corpus file (run in `tests/corpus/`), kernel times
/// replaced by `[TIME]`.
fn check_corpus_text(file: &str, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["check", "--color", "never"];
    args.extend(extra);
    args.push(file);
    let out = Command::new(env!("CARGO_BIN_EXE_autosync"))
        .args(&args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("corpus"))
        .output()
        .expect("run autosync");
    let text = String::from_utf8_lossy(&out.stdout);
    let text = text
        .lines()
        .map(|l| match l.rfind(" [") {
            Some(i) if l.ends_with(" ms]") => format!("{} [TIME]", &l[..i]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    (out.status.code().unwrap(), text)
}

#[test]
fn benign_write_write_races_are_a_note_unless_no_benign_tolerance() {
    let alias = "  note: assuming the pointer parameters `data`, `found` do not alias each other, as \
                 GPUVerify does; pass --alias to drop this assumption (or mark them __restrict__ to \
                 state it)";
    let (code, text) = check_corpus_text("benign/found_flag.cu", &[]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        text,
        [
            "benign/found_flag.cu: kernel `search`: verified (no data race, no barrier divergence) [TIME]",
            "  note: 1 write-write pair stores equal values (`found` line 10): a benign race, not \
             reported as in GPUVerify (--no-benign-tolerance reports it)",
            alias,
            "checked 1 file, 1 kernel: 1 verified",
        ]
        .join("\n")
    );
    let (code, text) = check_corpus_text("benign/found_flag.cu", &["--no-benign-tolerance"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(
            "error[race]: write-write race on global array `found`\n   ┌─ benign/found_flag.cu:10:9"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "benign/found_flag.cu: kernel `search`: race (1 race(s), 0 divergent barrier(s)) [TIME]"
        )
    );
    assert!(!text.contains("benign race"), "{text}");
    // JSON: the pair under `benign_races`, or as a race.
    let json = |extra: &[&str]| -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/benign/found_flag.cu");
        let mut args = vec!["check", "--format", "json"];
        args.extend(extra);
        args.push(path.to_str().unwrap());
        let out = autosync(&args);
        let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        doc["files"][0]["kernels"][0].clone()
    };
    let k = json(&[]);
    assert_eq!(k["verdict"], "verified");
    assert_eq!(
        k["benign_races"],
        serde_json::json!([{"array": "found", "first": {"line": 10, "column": 9}, "second": {"line": 10, "column": 9}}])
    );
    let k = json(&["--no-benign-tolerance"]);
    assert_eq!(k["verdict"], "race");
    assert_eq!(k["benign_races"], serde_json::json!([]));
    assert_eq!(k["races"][0]["kind"], "write-write");
    assert_eq!(k["races"][0]["first"]["line"], 10);
    assert_eq!(k["races"][0]["second"]["line"], 10);
}
