//! Atomics in CUDA (seed 000, Sec. 4; issue #7): the kernels of `tests/atomics/`,
//! checked through the CLI with both oracles. Each file says
//!
//! ```text
//! //expect: verified | race LINE...        — the static verdict and exactly the lines
//!                                             of the reported races
//! //expect-unfixable                        — every reported race is cross-block
//! //dynamic: verified (why)                 — the interpreter finds nothing (a false
//!                                             alarm of the verifier); else it says
//!                                             what `//expect:` says
//! ```
//!
//! Whatever the interpreter reports, the verifier reports too (static ⊇ dynamic).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("atomics")
}

/// What one oracle said about a file: the verdicts, the lines of the races (first
/// and second access), and whether each race is fixable.
#[derive(Debug)]
struct Said {
    verdict: String,
    lines: BTreeSet<u64>,
    pairs: BTreeSet<(u64, u64, bool)>,
}

fn check(path: &Path, oracle: &str) -> Said {
    let out = Command::new(env!("CARGO_BIN_EXE_autosync"))
        .args(["check", "--format", "json", "--oracle", oracle])
        .arg(path)
        .output()
        .expect("run autosync");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let mut verdicts = Vec::new();
    let mut lines = BTreeSet::new();
    let mut pairs = BTreeSet::new();
    for k in doc["files"][0]["kernels"].as_array().into_iter().flatten() {
        verdicts.push(k["verdict"].as_str().unwrap_or("").to_string());
        for r in k["races"].as_array().into_iter().flatten() {
            let a = r["first"]["line"].as_u64().unwrap_or(0);
            let b = r["second"]["line"].as_u64().unwrap_or(0);
            lines.extend([a, b]);
            pairs.insert((a, b, r["fixable"].as_bool().unwrap_or(true)));
        }
    }
    let verdict = if verdicts.iter().any(|v| v == "race") {
        "race"
    } else if verdicts.iter().all(|v| v == "verified") && !verdicts.is_empty() {
        "verified"
    } else {
        "other"
    };
    Said {
        verdict: verdict.to_string(),
        lines,
        pairs,
    }
}

/// `(verdict, lines)` of a `KEY verdict LINE... (comment)` line.
fn expectation(text: &str, key: &str) -> Option<(String, BTreeSet<u64>)> {
    let line = text.lines().find_map(|l| l.trim().strip_prefix(key))?;
    let spec = line.split('(').next().unwrap_or("");
    let mut words = spec.split_whitespace();
    let verdict = words.next()?.to_string();
    Some((verdict, words.filter_map(|w| w.parse().ok()).collect()))
}

fn files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/atomics")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    files.sort();
    files
}

fn name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn atomics_kernels_get_their_expected_verdicts_from_both_oracles() {
    let files = files();
    assert!(files.len() >= 18, "tests/atomics has {} files", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let name = name(path);
        let text = std::fs::read_to_string(path).expect("read");
        let Some((verdict, lines)) = expectation(&text, "//expect:") else {
            failures.push(format!("{name}: no `//expect:` line"));
            continue;
        };
        let stat = check(path, "static");
        if stat.verdict != verdict || stat.lines != lines {
            failures.push(format!(
                "{name}: expected {verdict} {lines:?}, the verifier says {} {:?}",
                stat.verdict, stat.lines
            ));
        }
        if text.lines().any(|l| l.trim() == "//expect-unfixable") && stat.pairs.iter().any(|p| p.2) {
            failures.push(format!("{name}: a race is reported fixable: {:?}", stat.pairs));
        }
        let dy = check(path, "dynamic");
        let dy_verdict = expectation(&text, "//dynamic:").map_or(verdict.clone(), |e| e.0);
        if dy.verdict != dy_verdict {
            failures.push(format!(
                "{name}: the interpreter says {} {:?}, expected {dy_verdict}",
                dy.verdict, dy.lines
            ));
        }
        for &(a, b, fixable) in &dy.pairs {
            if !stat
                .pairs
                .iter()
                .any(|&(x, y, f)| x == a && y == b && (fixable || !f))
            {
                failures.push(format!(
                    "{name}: the interpreter's race ({a}, {b}, fixable {fixable}) is not reported: {:?}",
                    stat.pairs
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_work_queue_of_seed_000_fig_3_verifies_with_its_slots_private() {
    let s = check(&dir().join("queue_fig3.cu"), "static");
    assert_eq!(s.verdict, "verified", "{s:?}");
    // The same queue without the counter (a plain increment) races on the slots.
    let text = std::fs::read_to_string(dir().join("queue_fig3.cu")).expect("read");
    let racy = text.replace("atomicAdd(&c, 1)", "c++");
    let tmp = std::env::temp_dir().join(format!("autosync_atomics_{}.cu", std::process::id()));
    std::fs::write(&tmp, racy).expect("write");
    let s = check(&tmp, "static");
    let _ = std::fs::remove_file(&tmp);
    assert_eq!(s.verdict, "race", "{s:?}");
    assert!(s.lines.contains(&12), "{s:?}");
}
