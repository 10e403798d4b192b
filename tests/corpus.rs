//! The corpus of `tests/corpus/`: small kernels in the style of the GPUVerify benchmark
//! collection (CUDA SDK 2.0/5.0 samples, C++ AMP ports, gpgpu-sim ISPASS 2009), each with
//! its GPUVerify header (`//pass`, `//--blockDim=... --gridDim=...`) and the verdict that
//! is true of it under DESIGN §4:
//!
//! ```text
//! //expect: verified | race [LINE...] | divergence [LINE...]
//! //expect-tool: race [LINE...] (false alarm: why)     — where autosync disagrees
//! ```
//!
//! `autosync check` must process every file (no exit 2, no `unsupported` or `timeout`
//! verdict) and say what `//expect-tool:` (else `//expect:`) says: the verdict of the
//! file (divergence if some kernel diverges, else race if some kernel races), and every
//! listed line among the reported races' and divergences' lines.
//!
//! Files marked `//slow:` (more than 10 s to check in release) are only checked when
//! `AUTOSYNC_CORPUS_SLOW=1` is set, to keep the test suite quick.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("corpus")
}

/// A file's expectation: the verdict and lines that must be reported.
#[derive(Debug, PartialEq)]
struct Expect {
    verdict: String,
    lines: Vec<u64>,
}

fn expectation(text: &str, key: &str) -> Option<Expect> {
    let line = text.lines().find_map(|l| l.trim().strip_prefix(key))?;
    let spec = line.split('(').next().unwrap_or("");
    let mut words = spec.split_whitespace();
    let verdict = words.next()?.to_string();
    let lines = words.filter_map(|w| w.parse().ok()).collect();
    Some(Expect { verdict, lines })
}

/// What the tool said about one file.
struct Outcome {
    code: Option<i32>,
    stderr: String,
    verdicts: Vec<(String, String)>,
    lines: Vec<u64>,
}

fn check(path: &Path) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_autosync"))
        .current_dir(corpus())
        .args(["check", "--format", "json"])
        .arg(path)
        .output()
        .expect("run autosync");
    let mut verdicts = Vec::new();
    let mut lines = Vec::new();
    if let Ok(doc) = serde_json::from_slice::<Value>(&out.stdout) {
        for k in doc["files"][0]["kernels"].as_array().into_iter().flatten() {
            verdicts.push((
                k["name"].as_str().unwrap_or("").to_string(),
                k["verdict"].as_str().unwrap_or("").to_string(),
            ));
            for r in k["races"].as_array().into_iter().flatten() {
                lines.extend(r["first"]["line"].as_u64());
                lines.extend(r["second"]["line"].as_u64());
            }
            for d in k["divergences"].as_array().into_iter().flatten() {
                lines.extend(d["line"].as_u64());
            }
        }
    }
    Outcome {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        verdicts,
        lines,
    }
}

#[test]
fn expectations_are_read() {
    let text = "//pass\n//expect: race 12 15\n//expect-tool: race 3 (false alarm: no invariant)\n";
    assert_eq!(
        expectation(text, "//expect:"),
        Some(Expect {
            verdict: "race".into(),
            lines: vec![12, 15]
        })
    );
    assert_eq!(
        expectation(text, "//expect-tool:").map(|e| e.lines),
        Some(vec![3])
    );
    assert_eq!(expectation("//pass\n", "//expect:"), None);
}

#[test]
fn every_corpus_kernel_is_checked_with_its_expected_verdict() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("tests/corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    files.sort();
    assert!(files.len() >= 60, "the corpus has {} files", files.len());
    if std::env::var_os("AUTOSYNC_CORPUS_SLOW").is_none() {
        files.retain(|p| {
            !std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(|l| l.starts_with("//slow:")))
        });
    }

    let queue = Mutex::new(files.clone());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let Some(p) = queue.lock().unwrap().pop() else {
                        break;
                    };
                    let o = check(&p);
                    results.lock().unwrap().push((p, o));
                }
            });
        }
    });

    let mut failures = Vec::new();
    for (path, o) in results.into_inner().unwrap() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(expect) = expectation(&text, "//expect-tool:").or_else(|| expectation(&text, "//expect:"))
        else {
            failures.push(format!("{name}: no `//expect:` line"));
            continue;
        };
        if o.code == Some(2) || o.verdicts.is_empty() {
            failures.push(format!("{name}: exit {:?}: {}", o.code, o.stderr.trim()));
            continue;
        }
        if let Some((k, v)) = o
            .verdicts
            .iter()
            .find(|(_, v)| v == "unsupported" || v == "timeout")
        {
            failures.push(format!("{name}: kernel `{k}` is {v}"));
            continue;
        }
        let said = if o.verdicts.iter().any(|(_, v)| v == "divergence") {
            "divergence"
        } else if o.verdicts.iter().any(|(_, v)| v == "race") {
            "race"
        } else {
            "verified"
        };
        if said != expect.verdict {
            failures.push(format!(
                "{name}: expected {}, autosync says {:?}",
                expect.verdict, o.verdicts
            ));
        }
        let missing: Vec<u64> = expect
            .lines
            .iter()
            .copied()
            .filter(|l| !o.lines.contains(l))
            .collect();
        if !missing.is_empty() {
            failures.push(format!(
                "{name}: lines {missing:?} are not reported (reported: {:?})",
                o.lines
            ));
        }
    }
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} of {} files:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
