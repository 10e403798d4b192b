//! Re-synthesis from scratch: every race-free corpus kernel that has barriers (and
//! verifies as it is: no documented false alarm) is
//! stripped of them and fixed again (`autosync fix --strip`), and the result must verify
//! with no more barriers than the original (the measurement of issue #14: "re-synthesized
//! by `fix --strip` and verified, with no more barriers than the original").
//!
//! `KNOWN` lists the files where that fails today, each with the reason; the test fails
//! when one of them starts to work too (take it off the list) or another one stops.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

use crate::common::bin;

/// Files (relative to `tests/corpus`) where `fix --strip` does not give back a verified
/// placement with at most the original number of barriers, and why.
const KNOWN: &[(&str, &str)] = &[];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("corpus")
}

/// The race-free corpus files that have barriers.
fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![corpus()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("corpus folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "cu") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                let verified = text.lines().any(|l| l.trim() == "//expect: verified");
                // Files with a documented false alarm do not verify as they are.
                let skip = text
                    .lines()
                    .any(|l| l.starts_with("//slow:") || l.starts_with("//expect-tool:"));
                if verified && !skip && (text.contains("__syncthreads") || text.contains(".sync()")) {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

fn fix_json(file: &Path, mode: &str) -> (Option<i32>, Value) {
    let out = Command::new(bin())
        .args(["fix", mode, "--check", "--format", "json"])
        .arg(file)
        .output()
        .expect("autosync runs");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), doc)
}

fn kernels(doc: &Value) -> Vec<Value> {
    doc["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["kernels"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// `None` when `fix --strip` gives back a verified placement with at most as many
/// barriers as the file has; else what went wrong.
fn resynthesize(file: &Path) -> Option<String> {
    let (code, stripped) = fix_json(file, "--strip");
    let ks = kernels(&stripped);
    if !matches!(code, Some(0 | 1)) || ks.is_empty() {
        return Some(format!("exit {code:?}, no report"));
    }
    let statuses: Vec<&str> = ks.iter().map(|k| k["status"].as_str().unwrap_or("?")).collect();
    if statuses.iter().any(|s| !matches!(*s, "fixed" | "unchanged")) {
        return Some(statuses.join(","));
    }
    let (_, original) = fix_json(file, "--keep-existing");
    let count = |ks: &[Value]| {
        ks.iter()
            .map(|k| k["barriers"].as_u64().unwrap_or(0))
            .sum::<u64>()
    };
    let (now, before) = (count(&ks), count(&kernels(&original)));
    (now > before).then(|| format!("more barriers ({now} > {before})"))
}

#[test]
fn fix_strip_gives_back_a_verified_placement_with_no_more_barriers() {
    let files = candidates();
    assert!(files.len() > 80, "the corpus has {} such files", files.len());
    let todo = Mutex::new(files.clone());
    let failed = Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let Some(f) = todo.lock().expect("queue").pop() else {
                        break;
                    };
                    if let Some(why) = resynthesize(&f) {
                        let rel = f.strip_prefix(corpus()).unwrap_or(&f).display().to_string();
                        failed.lock().expect("results").insert(rel, why);
                    }
                }
            });
        }
    });
    let failed = failed.into_inner().expect("results");
    let known: BTreeMap<String, &str> = KNOWN.iter().map(|(f, why)| (f.to_string(), *why)).collect();
    let new: Vec<String> = failed
        .iter()
        .filter(|(f, _)| !known.contains_key(*f))
        .map(|(f, why)| format!("{f}: {why}"))
        .collect();
    let fixed: Vec<&String> = known.keys().filter(|f| !failed.contains_key(*f)).collect();
    assert!(new.is_empty(), "fix --strip now fails on:\n{}", new.join("\n"));
    assert!(
        fixed.is_empty(),
        "fix --strip now works on {fixed:?}: take them off KNOWN in tests/it/resynthesis.rs"
    );
    eprintln!(
        "fix --strip re-synthesized {} of {} race-free corpus files with barriers",
        files.len() - failed.len(),
        files.len()
    );
}
