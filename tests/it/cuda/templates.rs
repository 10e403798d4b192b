//! `fix` on templates (issue #28, class 5): the instantiations of one template share one
//! text, so they get one placement, synthesized for all of them together, and a file
//! is never written when an instantiation does not verify with the new text. Static
//! oracle, launch from the files' headers (`tests/templates/*.cu`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::autosync_in;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("templates")
        .join(name)
}

/// A temporary copy of a fixture: (its folder, the original text).
fn copy(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    std::fs::write(dir.path().join(name), &text).unwrap();
    (dir, text)
}

/// `autosync ARGS --format json` in `dir`: (exit code, the document).
fn json_in(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = autosync_in(dir, &all);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "bad JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), doc)
}

/// The kernels of the (only) file of a report, by name, in file order.
fn kernels(doc: &Value) -> Vec<(String, Value)> {
    doc["files"][0]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["name"].as_str().unwrap().to_string(), k.clone()))
        .collect()
}

/// (line, after_line) of each inserted barrier.
fn inserted(k: &Value) -> Vec<(u64, u64)> {
    k["inserted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["line"].as_u64().unwrap(), i["after_line"].as_u64().unwrap()))
        .collect()
}

/// `text` with `    __syncthreads();` inserted after each of `after` (1-based lines of
/// `text`).
fn with_barriers_after(text: &str, after: &[usize]) -> String {
    let mut out = String::new();
    for (n, line) in text.lines().enumerate() {
        out.push_str(line);
        out.push('\n');
        if after.contains(&(n + 1)) {
            out.push_str("    __syncthreads();\n");
        }
    }
    out
}

/// `autosync check` on a file: the exit code and each kernel's verdict.
fn verdicts(dir: &Path, file: &str) -> (i32, Vec<(String, String)>) {
    let (code, doc) = json_in(dir, &["check", file]);
    let v = kernels(&doc)
        .into_iter()
        .map(|(n, k)| (n, k["verdict"].as_str().unwrap().to_string()))
        .collect();
    (code, v)
}

fn both_verified() -> Vec<(String, String)> {
    vec![
        ("k<32>".to_string(), "verified".to_string()),
        ("k<64>".to_string(), "verified".to_string()),
    ]
}

#[test]
fn one_barrier_serves_the_instantiation_that_races_and_the_one_that_does_not() {
    let (dir, original) = copy("one_needs.cu");
    assert_eq!(
        verdicts(dir.path(), "one_needs.cu").1,
        [
            ("k<32>".to_string(), "verified".to_string()),
            ("k<64>".to_string(), "race".to_string())
        ]
    );
    let (code, doc) = json_in(dir.path(), &["fix", "one_needs.cu"]);
    assert_eq!(code, 0, "{doc}");
    let ks = kernels(&doc);
    assert_eq!(ks.len(), 2);
    for ((name, k), other) in ks.iter().zip(["k<64>", "k<32>"]) {
        assert_eq!(k["status"], "fixed", "{name}: {k}");
        assert_eq!(inserted(k), [(10, 9)], "{name}");
        assert_eq!(k["barriers"], 1, "{name}");
        assert_eq!(k["cost"], 1.0, "{name}");
        assert_eq!(k["original_cost"], 0.0, "{name}");
        let note = format!(
            "placed together with `{other}` (instantiations of one template share one text): the placement \
             costs 2 summed over them"
        );
        assert!(
            k["notes"].as_array().unwrap().contains(&Value::from(note)),
            "{name}: {k}"
        );
    }
    let fixed = std::fs::read_to_string(dir.path().join("one_needs.cu")).unwrap();
    assert_eq!(fixed, with_barriers_after(&original, &[9]));
    assert_eq!(verdicts(dir.path(), "one_needs.cu"), (0, both_verified()));
}

#[test]
fn kernel_option_fixes_that_instantiation_only() {
    // k<32> needs nothing; k<64>, not selected, is not fixed: nothing to write.
    let (dir, original) = copy("one_needs.cu");
    let (code, doc) = json_in(dir.path(), &["fix", "--kernel", "k<32>", "one_needs.cu"]);
    assert_eq!(code, 0, "{doc}");
    let ks = kernels(&doc);
    assert_eq!(ks.len(), 1);
    assert_eq!(ks[0].0, "k<32>");
    assert_eq!(ks[0].1["status"], "unchanged");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("one_needs.cu")).unwrap(),
        original
    );
}

#[test]
fn kernel_option_puts_no_barrier_where_another_instantiation_diverges() {
    // Alone, k<64> would get the barrier inside `if (t < N)` (cost 0.5), which diverges
    // in k<32>: the one written goes before the `if`.
    let (dir, original) = copy("guarded.cu");
    let (code, doc) = json_in(dir.path(), &["fix", "--kernel", "k<64>", "guarded.cu"]);
    assert_eq!(code, 0, "{doc}");
    let ks = kernels(&doc);
    assert_eq!(ks.len(), 1);
    let (name, k) = &ks[0];
    assert_eq!(name, "k<64>");
    assert_eq!(k["status"], "fixed");
    assert_eq!(inserted(k), [(11, 10)]);
    assert_eq!(k["cost"], 1.0);
    // The first optimum (inside the `if`) was refuted by k<32>'s divergence.
    assert_eq!(k["solver_calls"], 2);
    let fixed = std::fs::read_to_string(dir.path().join("guarded.cu")).unwrap();
    assert_eq!(fixed, with_barriers_after(&original, &[10]));
    assert_eq!(fixed.lines().nth(11), Some("    if (t < N) {"));
    assert_eq!(verdicts(dir.path(), "guarded.cu"), (0, both_verified()));

    // Without --kernel: the same placement for both, and --explain says why not inside.
    let (dir, _) = copy("guarded.cu");
    let out = autosync_in(dir.path(), &["fix", "--explain", "--stdout", "guarded.cu"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        with_barriers_after(&original, &[10])
    );
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(
        report.contains(
            "rejected at the top of the block at line 11 (cost 0.5): a barrier there diverges in `k<32>`, \
             which shares this text (an instantiation of the same template)"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "no race of this kernel: it is there for the other instantiation(s) of its template (`k<64>`)"
        ),
        "{report}"
    );
}

#[test]
fn no_common_placement_is_no_solution_naming_the_instantiations() {
    let reason = "no barrier placement serves all of `k<32>`, `k<64>`, which share one source text \
                  (instantiations of one template): in `k<32>`, a barrier inside the block at line 9 can be \
                  reached by some threads of a block and not others (barrier divergence); in `k<64>`, no \
                  barrier placement removes the race between line 10 and line 11 on `s`";
    for selection in [&["--kernel", "k<64>"][..], &[]] {
        let (dir, original) = copy("guarded_inside.cu");
        let mut args = vec!["fix"];
        args.extend(selection);
        args.push("guarded_inside.cu");
        let (code, doc) = json_in(dir.path(), &args);
        assert_eq!(code, 1, "{doc}");
        let ks = kernels(&doc);
        assert_eq!(ks.len(), if selection.is_empty() { 2 } else { 1 });
        for (name, k) in &ks {
            assert_eq!(k["status"], "no-solution", "{name}");
            assert_eq!(k["reason"], reason, "{name}");
            assert_eq!(k["inserted"].as_array().unwrap().len(), 0, "{name}");
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join("guarded_inside.cu")).unwrap(),
            original,
            "{selection:?}"
        );
    }
}

#[test]
fn instantiations_needing_barriers_at_different_places_get_both() {
    let (dir, original) = copy("two_places.cu");
    let (code, doc) = json_in(dir.path(), &["fix", "two_places.cu"]);
    assert_eq!(code, 0, "{doc}");
    let ks = kernels(&doc);
    assert_eq!(ks.len(), 2);
    for (name, k) in &ks {
        assert_eq!(k["status"], "fixed", "{name}");
        assert_eq!(inserted(k), [(11, 10), (14, 12)], "{name}");
        assert_eq!(k["barriers"], 2, "{name}");
        assert_eq!(k["cost"], 2.0, "{name}");
        let notes = k["notes"].as_array().unwrap();
        assert!(
            notes.iter().any(|n| n
                .as_str()
                .unwrap()
                .ends_with("the placement costs 4 summed over them")),
            "{name}: {k}"
        );
    }
    let fixed = std::fs::read_to_string(dir.path().join("two_places.cu")).unwrap();
    assert_eq!(fixed, with_barriers_after(&original, &[10, 12]));
    assert_eq!(verdicts(dir.path(), "two_places.cu"), (0, both_verified()));
}

#[test]
fn a_kernel_that_is_no_template_is_synthesized_alone_as_before() {
    let (dir, _) = copy("mixed.cu");
    let rotate = |args: &[&str]| {
        let (code, doc) = json_in(dir.path(), args);
        assert_eq!(code, 0, "{doc}");
        kernels(&doc).into_iter().find(|(n, _)| n == "rotate").unwrap().1
    };
    let whole = rotate(&["fix", "--stdout", "mixed.cu"]);
    let alone = rotate(&["fix", "--stdout", "--kernel", "rotate", "mixed.cu"]);
    for k in [&whole, &alone] {
        assert_eq!(k["status"], "fixed");
        // Inside `if (t < 32)` diverges: before it, as without templates in the file.
        assert_eq!(inserted(k), [(8, 7)]);
        assert_eq!(k["cost"], 1.0);
        assert_eq!(k["oracle_calls"], 3);
        assert_eq!(k["solver_calls"], 2);
        assert!(
            !k["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n.as_str().unwrap().contains("placed together")),
            "{k}"
        );
    }
    let (_, doc) = json_in(dir.path(), &["fix", "--stdout", "mixed.cu"]);
    for (name, k) in kernels(&doc).iter().filter(|(n, _)| n != "rotate") {
        assert_eq!(inserted(k), [(20, 18)], "{name}");
    }
}

#[test]
fn a_placement_found_for_one_instantiation_alone_is_not_written_if_another_diverges() {
    // The naive baseline synthesizes each selected instantiation alone; its barrier
    // inside `if (t < N)` diverges in k<32>, which the check of the fixed text finds.
    let (dir, original) = copy("guarded.cu");
    let (code, doc) = json_in(dir.path(), &["fix", "--naive", "--kernel", "k<64>", "guarded.cu"]);
    assert_eq!(code, 1, "{doc}");
    let ks = kernels(&doc);
    assert_eq!(ks.len(), 1);
    assert_eq!(ks[0].1["status"], "no-solution");
    assert_eq!(
        ks[0].1["reason"],
        "with the fixed text, `k<32>` has 1 divergent barrier(s); `k<32>`, `k<64>` are instantiations of one \
         template and share one text, so the placement is not applied"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("guarded.cu")).unwrap(),
        original
    );
}
