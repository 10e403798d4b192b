//! Issue #6: diagnostics (snapshots of the text output, colors), SARIF, GitHub review
//! suggestions, batch runs over files and directories, `fix --explain`.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{assert_snapshot, autosync, autosync_in, root, stderr, stdout, write};

/// Replaces every `12.3 ms` by `<t> ms`: timings differ between runs.
fn redact_times(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(" ms") {
        let head = &rest[..i];
        let num_start = head
            .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map_or(0, |j| j + 1);
        if num_start < head.len() && head[num_start..].contains('.') {
            out.push_str(&head[..num_start]);
            out.push_str("<t>");
        } else {
            out.push_str(head);
        }
        out.push_str(" ms");
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    out
}

const DIVERGENT: &str = "kernel div(shared A[]) {\n    if (tid < 3) {\n        barrier;\n    }\n}\n";
const CROSS_BLOCK: &str = "kernel g(global A[]) {\n    A[tid] = bid;\n}\n";
const CLEAN: &str =
    "kernel ok(shared A[]) {\n    A[tid] = 1;\n    barrier;\n    local x;\n    x = A[tid + 1];\n}\n";
const BAD: &str = "kernel k(shared A[]) {\n    A[tid] = ;\n}\n";

// ---------------------------------------------------------------- text diagnostics

#[test]
fn snapshot_race() {
    let out = autosync(&["check", "--color", "never", "examples/fig2.kpl"]);
    assert_eq!(out.status.code(), Some(1));
    assert_snapshot!("check_race", redact_times(&stdout(&out)));
}

#[test]
fn snapshot_loop_race() {
    let out = autosync(&["check", "--color", "never", "examples/fig4.kpl"]);
    assert_eq!(out.status.code(), Some(1));
    assert_snapshot!("check_loop_race", redact_times(&stdout(&out)));
}

#[test]
fn snapshot_divergence() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "div.kpl", DIVERGENT);
    let out = autosync_in(dir.path(), &["check", "--color", "never", "div.kpl"]);
    assert_eq!(out.status.code(), Some(1));
    assert_snapshot!("check_divergence", redact_times(&stdout(&out)));
}

#[test]
fn snapshot_unfixable_race() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "g.kpl", CROSS_BLOCK);
    let out = autosync_in(
        dir.path(),
        &[
            "check",
            "--color",
            "never",
            "--block-dim",
            "4",
            "--grid-dim",
            "2",
            "g.kpl",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("no block barrier can fix this: the threads are in different blocks"),
        "{text}"
    );
    assert_snapshot!("check_unfixable_race", redact_times(&text));
    // `fix` says the same, and exits 1.
    let out = autosync_in(
        dir.path(),
        &[
            "fix",
            "--color",
            "never",
            "--block-dim",
            "4",
            "--grid-dim",
            "2",
            "g.kpl",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_snapshot!("fix_unfixable_race", redact_times(&stdout(&out)));
}

#[test]
fn snapshot_fix_summary_and_explain() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["fig4.kpl", "fig6.kpl", "fig7.kpl"] {
        std::fs::copy(root().join("examples").join(f), dir.path().join(f)).unwrap();
    }
    write(dir.path(), "ok.kpl", CLEAN);
    let out = autosync_in(dir.path(), &["fix", "--color", "never", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = redact_times(&stdout(&out));
    assert!(
        text.ends_with("processed 4 files, 4 kernels: 3 fixed, 1 unchanged\n"),
        "{text}"
    );
    assert_snapshot!("fix_summary", text);

    for f in ["fig4.kpl", "fig6.kpl", "fig7.kpl"] {
        std::fs::copy(root().join("examples").join(f), dir.path().join(f)).unwrap();
    }
    let out = autosync_in(
        dir.path(),
        &[
            "fix",
            "--explain",
            "--color",
            "never",
            "fig4.kpl",
            "fig6.kpl",
            "fig7.kpl",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_snapshot!("fix_explain", redact_times(&stdout(&out)));
}

#[test]
fn explain_of_fig6_names_the_divergent_places() {
    let out = autosync(&[
        "fix",
        "--stdout",
        "--explain",
        "--color",
        "never",
        "examples/fig6.kpl",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report = stderr(&out);
    assert!(
        report.contains("the barrier inserted at line 9 (after lines 6–8 of the original, cost 1) removes:"),
        "{report}"
    );
    assert!(
        report.contains("rejected after line 7 (cost 0.5): a barrier there diverges"),
        "{report}"
    );
}

#[test]
fn explain_json_only_with_the_flag() {
    let run = |extra: &[&str]| {
        let mut args = vec!["fix", "--stdout", "--format", "json"];
        args.extend(extra);
        args.push("examples/fig6.kpl");
        let out = autosync(&args);
        assert_eq!(out.status.code(), Some(0));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["files"][0]["kernels"][0]["inserted"][0].clone()
    };
    let plain = run(&[]);
    assert_eq!(plain["line"], 9);
    assert!(plain.get("explain").is_none(), "{plain}");
    let e = run(&["--explain"])["explain"].clone();
    assert_eq!(e["place"], "after lines 6–8");
    assert_eq!(e["cost"], 1.0);
    assert_eq!(e["fixes"][0]["array"], "A");
    assert_eq!(e["fixes"][0]["first"]["line"], 7);
    assert_eq!(e["fixes"][0]["second"]["line"], 10);
    let rejected = e["rejected"].as_array().unwrap();
    assert_eq!(rejected.len(), 2, "{e}");
    assert_eq!(rejected[0]["line"], 7);
    assert!(rejected[0]["why"].as_str().unwrap().contains("diverges"));
}

#[test]
fn colors_follow_the_color_flag_and_no_color() {
    let ansi = |o: &Output| o.stdout.contains(&0x1b);
    let always = autosync(&["check", "--color", "always", "examples/fig2.kpl"]);
    assert!(ansi(&always));
    let never = autosync(&["check", "--color", "never", "examples/fig2.kpl"]);
    assert!(!ansi(&never));
    // Not a terminal: auto means no colors.
    let auto = autosync(&["check", "examples/fig2.kpl"]);
    assert!(!ansi(&auto));
    // --color always wins over NO_COLOR (a flag beats the environment).
    let out = Command::new(env!("CARGO_BIN_EXE_autosync"))
        .current_dir(root())
        .env("NO_COLOR", "1")
        .args(["check", "--color", "always", "examples/fig2.kpl"])
        .output()
        .unwrap();
    assert!(ansi(&out));
    assert_eq!(
        redact_times(&String::from_utf8_lossy(&never.stdout)),
        redact_times(&String::from_utf8_lossy(&auto.stdout))
    );
}

// ---------------------------------------------------------------- SARIF

#[test]
fn sarif_has_the_required_fields_and_exact_locations() {
    let out = autosync(&[
        "check",
        "--format",
        "sarif",
        "examples/fig2.kpl",
        "micro-benchmarks/1-1-main.cu",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    assert!(doc["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "autosync");
    assert!(driver["version"].is_string());
    assert!(driver["informationUri"].is_string());
    let rules: Vec<&str> = driver["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "data-race",
            "cross-block-race",
            "barrier-divergence",
            "unsupported"
        ]
    );
    let results = runs[0]["results"].as_array().unwrap();
    for r in results {
        assert!(r["message"]["text"].is_string(), "{r}");
        assert!(r["ruleId"].is_string(), "{r}");
        assert!(r["level"].is_string(), "{r}");
        let loc = &r["locations"][0]["physicalLocation"];
        assert!(loc["artifactLocation"]["uri"].is_string(), "{r}");
        assert!(loc["region"]["startLine"].is_u64(), "{r}");
    }
    // fig2: the read at 5:5 races with the write at 7:5 (the related location).
    let fig2: Vec<&Value> = results
        .iter()
        .filter(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "examples/fig2.kpl")
        .collect();
    assert_eq!(fig2.len(), 1);
    let r = fig2[0];
    assert_eq!(r["ruleId"], "data-race");
    assert_eq!(r["level"], "error");
    let region = &r["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(5), Some(5))
    );
    let related = &r["relatedLocations"][0]["physicalLocation"];
    assert_eq!(related["artifactLocation"]["uri"], "examples/fig2.kpl");
    assert_eq!(related["region"]["startLine"], 7);
    assert_eq!(related["region"]["startColumn"], 5);
    assert!(
        r["message"]["text"].as_str().unwrap().contains("(line 7) while"),
        "{}",
        r["message"]["text"]
    );
    // The CUDA micro-benchmark without its barrier: a race on shared memory, by line.
    let cu: Vec<&Value> = results
        .iter()
        .filter(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "micro-benchmarks/1-1-main.cu"
        })
        .collect();
    assert!(cu.is_empty(), "1-1-main.cu has its barrier: {cu:?}");
}

#[test]
fn sarif_reports_unfixable_races_divergence_and_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "g.kpl", CROSS_BLOCK);
    write(dir.path(), "div.kpl", DIVERGENT);
    write(dir.path(), "bad.kpl", BAD);
    let out = autosync_in(
        dir.path(),
        &[
            "check",
            "--format",
            "sarif",
            "--block-dim",
            "4",
            "--grid-dim",
            "2",
            ".",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let got: Vec<(String, String, u64)> = results
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"];
            (
                r["ruleId"].as_str().unwrap().to_string(),
                loc["artifactLocation"]["uri"].as_str().unwrap().to_string(),
                loc["region"]["startLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("unsupported".to_string(), "bad.kpl".to_string(), 2),
            ("barrier-divergence".to_string(), "div.kpl".to_string(), 3),
            ("cross-block-race".to_string(), "g.kpl".to_string(), 2),
        ]
    );
}

// ---------------------------------------------------------------- GitHub suggestions

/// Applies review comments (`line`, optional `start_line`, a ```suggestion block in the
/// body) to a file, as GitHub does when they are committed.
fn apply_suggestions(original: &str, comments: &[Value]) -> String {
    let mut lines: Vec<String> = original.split_inclusive('\n').map(str::to_string).collect();
    let mut cs: Vec<&Value> = comments.iter().collect();
    cs.sort_by_key(|c| std::cmp::Reverse(c["line"].as_u64().unwrap()));
    for c in cs {
        assert_eq!(c["side"], "RIGHT");
        let end = c["line"].as_u64().unwrap() as usize;
        let start = c["start_line"].as_u64().map_or(end, |s| s as usize);
        assert!(start <= end);
        let body = c["body"].as_str().unwrap();
        let open = body.find("```suggestion\n").expect("a suggestion block") + "```suggestion\n".len();
        let close = body[open..].rfind("```").expect("closing fence") + open;
        let new: Vec<String> = body[open..close]
            .split_inclusive('\n')
            .map(str::to_string)
            .collect();
        lines.splice(start - 1..end, new);
    }
    lines.concat()
}

fn github_round_trip(dir: &Path, file: &str, extra: &[&str]) -> usize {
    let original = std::fs::read_to_string(dir.join(file)).unwrap();
    let mut args = vec!["fix", "--format", "github"];
    args.extend(extra);
    args.push(file);
    let out = autosync_in(dir, &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let comments: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    // --format github does not touch the file.
    assert_eq!(std::fs::read_to_string(dir.join(file)).unwrap(), original);
    for c in &comments {
        assert_eq!(c["path"], file);
    }
    let mut args = vec!["fix", "--stdout"];
    args.extend(extra);
    args.push(file);
    let fixed = stdout(&autosync_in(dir, &args));
    assert_eq!(
        apply_suggestions(&original, &comments),
        fixed,
        "{file}: {comments:#?}"
    );
    // And the diff applies with git apply to the same result.
    let mut args = vec!["fix", "--diff"];
    args.extend(extra);
    args.push(file);
    let diff = stdout(&autosync_in(dir, &args));
    std::fs::write(dir.join("p.diff"), diff).unwrap();
    let git = Command::new("git")
        .current_dir(dir)
        .args(["apply", "p.diff"])
        .output()
        .unwrap();
    assert!(git.status.success(), "{}", String::from_utf8_lossy(&git.stderr));
    assert_eq!(std::fs::read_to_string(dir.join(file)).unwrap(), fixed);
    std::fs::write(dir.join(file), &original).unwrap();
    comments.len()
}

#[test]
fn github_suggestions_applied_give_what_fix_writes() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["fig2.kpl", "fig4.kpl", "fig6.kpl", "fig7.kpl", "reduce.cu"] {
        std::fs::copy(root().join("examples").join(f), dir.path().join(f)).unwrap();
    }
    assert_eq!(github_round_trip(dir.path(), "fig2.kpl", &[]), 1);
    assert_eq!(github_round_trip(dir.path(), "fig4.kpl", &[]), 2);
    assert_eq!(github_round_trip(dir.path(), "fig6.kpl", &[]), 1);
    assert_eq!(github_round_trip(dir.path(), "fig7.kpl", &[]), 1);
    assert!(github_round_trip(dir.path(), "reduce.cu", &["--oracle", "dynamic"]) >= 1);
    // Removals (--strip) and braces added around a brace-less body.
    write(
        dir.path(),
        "over.kpl",
        "kernel over(shared A[]) {\n    local x;\n    barrier;\n    x = A[tid + 1];\n    barrier;\n    A[tid] = x;\n    barrier;\n}\n",
    );
    assert_eq!(github_round_trip(dir.path(), "over.kpl", &["--strip"]), 2);
    write(
        dir.path(),
        "shift.cu",
        "//--blockDim=8 --gridDim=1\n__global__ void shift(int *out, int n)\n{\n    __shared__ int s[8];\n    \
         s[threadIdx.x] = 0;\n    for (int i = 0; i < n; i++)\n        s[(threadIdx.x + i) % 8] += i;\n    \
         out[threadIdx.x] = s[threadIdx.x];\n}\n",
    );
    let fixed = stdout(&autosync_in(
        dir.path(),
        &["fix", "--stdout", "--oracle", "dynamic", "shift.cu"],
    ));
    assert!(fixed.contains("i++) {\n"), "braces added: {fixed}");
    let n = github_round_trip(dir.path(), "shift.cu", &["--oracle", "dynamic"]);
    assert!(n >= 1);
}

#[test]
fn github_suggestion_shape() {
    let out = autosync(&["fix", "--format", "github", "examples/fig2.kpl"]);
    assert_eq!(out.status.code(), Some(0));
    let comments: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(comments.len(), 1);
    let c = &comments[0];
    assert_eq!(c["path"], "examples/fig2.kpl");
    assert_eq!(c["line"], 5);
    assert_eq!(c["side"], "RIGHT");
    assert!(c.get("start_line").is_none());
    assert_eq!(
        c["body"],
        "**autosync**: Insert `barrier;` after line 5: it removes the read-write race on `A` between line 5 \
         and line 7.\n\n```suggestion\n    x = A[tid + 1];\n    barrier;\n```\n"
    );
}

// ---------------------------------------------------------------- batch

#[test]
fn batch_over_a_directory_reports_every_file_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "k/a_clean.kpl", CLEAN);
    std::fs::copy(root().join("examples/fig2.kpl"), dir.path().join("k/b_racy.kpl")).unwrap();
    write(dir.path(), "k/c_bad.kpl", BAD);
    // Not picked up by the walk.
    write(dir.path(), "k/notes.txt", "not a kernel\n");
    write(dir.path(), "k/old.kpl.bak", BAD);
    write(dir.path(), "k/README.md", "# kernels\n");
    let out = autosync_in(dir.path(), &["check", "--color", "never", "k"]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    let err = stderr(&out);
    assert!(text.contains("k/a_clean.kpl: kernel `ok`: verified"), "{text}");
    assert!(text.contains("k/b_racy.kpl: kernel `fig2`: race"), "{text}");
    assert!(err.contains("k/c_bad.kpl:2:14: syntax error"), "{err}");
    assert!(!text.contains("notes.txt") && !err.contains("notes.txt"));
    assert!(!text.contains(".bak") && !err.contains(".bak"));
    assert!(!text.contains("README") && !err.contains("README"));
    assert!(
        text.find("a_clean").unwrap() < text.find("b_racy").unwrap(),
        "file order: {text}"
    );
    assert_eq!(
        text.lines().last(),
        Some("checked 3 files, 2 kernels: 1 verified, 1 with races; 1 file with errors")
    );

    // JSON: one document, the files in sorted order, the bad one with its error.
    let out = autosync_in(dir.path(), &["check", "--format", "json", "k"]);
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["k/a_clean.kpl", "k/b_racy.kpl", "k/c_bad.kpl"]);
    assert_eq!(files[0]["kernels"][0]["verdict"], "verified");
    assert_eq!(files[1]["kernels"][0]["verdict"], "race");
    assert!(files[2]["error"].as_str().unwrap().contains("syntax error"));

    // fix: the good files are still fixed, the summary counts them.
    let out = autosync_in(dir.path(), &["fix", "--color", "never", "k"]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.contains("k/b_racy.kpl: written"), "{text}");
    assert_eq!(
        text.lines().last(),
        Some("processed 3 files, 2 kernels: 1 fixed, 1 unchanged; 1 file with errors")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("k/c_bad.kpl")).unwrap(),
        BAD
    );
}

#[test]
fn batch_exit_code_is_the_worst_over_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.kpl", CLEAN);
    std::fs::copy(root().join("examples/fig2.kpl"), dir.path().join("b.kpl")).unwrap();
    write(dir.path(), "c.cuh", "// a header without kernels\n#define N 4\n");
    let out = autosync_in(dir.path(), &["check", "--color", "never", "a.kpl"]);
    assert_eq!(out.status.code(), Some(0));
    let out = autosync_in(dir.path(), &["check", "--color", "never", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).lines().last(),
        Some("checked 3 files, 2 kernels: 1 verified, 1 with races")
    );
    let empty = tempfile::tempdir().unwrap();
    let out = autosync_in(empty.path(), &["check", "."]);
    // An empty folder is no error (issue #35; tests/it/walk.rs has the exact message).
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("no CUDA files found"), "{}", stderr(&out));
}
