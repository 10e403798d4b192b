//! Cost models on the command line: `fix --cost-model`, `autosync cost`, their exit
//! codes and exact numbers.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::common::{autosync, root, write};

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// A kernel whose write happens under a guard that always holds: the paper's model
/// prefers a barrier inside the guard (IC = 0.5), the others right after the read.
const GUARDED: &str = "// cost models disagree
// on this one
kernel models(shared A[], n) requires n == 5 {
    local x;
    x = A[tid + 1];
    if (n > 3) {
        A[tid] = x;
    }
}
";

/// `fix --stdout --format json` (static oracle): the kernel's `inserted` list.
fn inserted(path: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["fix", "--stdout", "--format", "json"];
    args.extend(extra);
    args.push(path.to_str().unwrap());
    let out = autosync(&args);
    let doc = stdout_json(&out);
    let k = &doc["files"][0]["kernels"][0];
    (
        out.status.code().unwrap(),
        json!({"inserted": k["inserted"], "cost": k["cost"]}),
    )
}

#[test]
fn each_model_places_the_barrier_of_the_guarded_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "models.kpl", GUARDED);
    let launch = ["--block-dim", "8", "--grid-dim", "2"];
    // paper: at the top of the `if` block (line 6), cost IC = 0.5.
    let (code, v) = inserted(&p, &launch);
    assert_eq!(code, 0);
    assert_eq!(
        v,
        json!({"inserted": [{"line": 7, "after_line": 6}], "cost": 0.5})
    );
    let mut bounds = launch.to_vec();
    bounds.extend(["--cost-model", "bounds"]);
    let (_, v) = inserted(&p, &bounds);
    assert_eq!(
        v,
        json!({"inserted": [{"line": 6, "after_line": 5}], "cost": 1.0})
    );
    // profile: both places execute once per block, 2 blocks: the earlier one.
    let mut profile = launch.to_vec();
    profile.extend(["--cost-model", "profile"]);
    let (_, v) = inserted(&p, &profile);
    assert_eq!(
        v,
        json!({"inserted": [{"line": 6, "after_line": 5}], "cost": 2.0})
    );
}

#[test]
fn a_table_moves_the_barrier_where_it_is_cheaper() {
    let dir = tempfile::tempdir().unwrap();
    let fig2 = root().join("examples/fig2.kpl");
    // Default: right after the read at line 5.
    let (_, v) = inserted(&fig2, &[]);
    assert_eq!(v["inserted"], json!([{"line": 6, "after_line": 5}]));
    let table = write(dir.path(), "t.json", r#"{"weights": {"5": 10}, "default": 1}"#);
    let arg = format!("table:{}", table.display());
    let (code, v) = inserted(&fig2, &["--cost-model", &arg]);
    assert_eq!(code, 0);
    assert_eq!(
        v,
        json!({"inserted": [{"line": 7, "after_line": 6}], "cost": 1.0})
    );
    // Lines 5 and 6 expensive: the barrier cannot go elsewhere, it costs 3.
    let table = write(dir.path(), "t2.json", r#"{"weights": {"5": 4, "6": 3}}"#);
    let arg = format!("table:{}", table.display());
    let (_, v) = inserted(&fig2, &["--cost-model", &arg]);
    assert_eq!(
        v,
        json!({"inserted": [{"line": 7, "after_line": 6}], "cost": 3.0})
    );
}

#[test]
fn bad_tables_and_models_exit_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let fig2 = root().join("examples/fig2.kpl");
    let fig2 = fig2.to_str().unwrap();
    let bad = write(dir.path(), "bad.json", r#"{"weights": {"five": 1}}"#);
    let cases = [
        (
            format!("table:{}", bad.display()),
            "bad cost table: `five` is not a line number",
        ),
        (
            format!("table:{}", dir.path().join("missing.json").display()),
            "cannot read the cost table",
        ),
        (
            "fast".to_string(),
            "expected paper, bounds, profile or table:FILE",
        ),
    ];
    for (model, message) in cases {
        let out = autosync(&["fix", "--stdout", "--cost-model", &model, fig2]);
        assert_eq!(out.status.code(), Some(2), "{model}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{model}: {err}");
    }
    let out = autosync(&["cost", "--table", bad.to_str().unwrap(), fig2]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`five` is not a line number"));
}

#[test]
fn cost_json_on_a_micro_benchmark() {
    // One barrier at the top of `for (i = 0; i < n; i++)`, n = 4, 8 threads, 1 block.
    let out = autosync(&[
        "cost",
        "--format",
        "json",
        "--param",
        "n=4",
        "micro-benchmarks/1-1-loop-inter.cu",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc = stdout_json(&out);
    let f = &doc["files"][0];
    assert_eq!(f["path"], "micro-benchmarks/1-1-loop-inter.cu");
    let k = &f["kernels"][0];
    assert_eq!(k["name"], "loop_inter");
    assert_eq!(
        k["barriers"],
        json!([{"line": 13, "after_line": 12, "static_cost": 100.0, "bounds_cost": 4.0, "executions": 4.0}])
    );
    let models: Vec<Value> = k["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            json!([
                m["name"],
                m["current_cost"],
                m["optimal_cost"],
                m["optimal_lines"]
            ])
        })
        .collect();
    assert_eq!(
        models,
        [
            json!(["paper", 100.0, 100.0, [12]]),
            json!(["bounds", 4.0, 4.0, [12]]),
            json!(["profile", 4.0, 4.0, [12]]),
        ]
    );
}

#[test]
fn cost_text_compares_models_and_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "models.kpl", GUARDED);
    let table = write(dir.path(), "t.json", r#"{"weights": {"5": 0.1}}"#);
    let out = autosync(&[
        "cost",
        "--block-dim",
        "8",
        "--grid-dim",
        "2",
        "--table",
        table.to_str().unwrap(),
        p.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| {
            ["paper", "bounds", "profile", "table"]
                .iter()
                .any(|m| l.trim_start().starts_with(m))
        })
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec!["paper", "0", "0.5", "6"],
            vec!["bounds", "0", "1", "5"],
            vec!["profile", "0", "2", "5"],
            vec!["table", "0", "0.1", "5"],
        ],
        "{text}"
    );
    assert!(text.contains("no barriers"), "{text}");
}

/// `--cost-model`'s help comes from the driver's registry: every model is named.
#[test]
fn cost_model_help_names_every_model() {
    let out = autosync(&["fix", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for m in ["`paper`", "`bounds`", "`profile`", "`table:FILE`"] {
        assert!(help.contains(m), "{m} missing from:\n{help}");
    }
}
