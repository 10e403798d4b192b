//! The command line on CUDA files: the paper's micro-benchmarks end to end (with the
//! dynamic oracle), rewriting (diffs that `git apply` and `patch` accept, braces added
//! where needed), and bad input (exit 2, the file untouched).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn micro(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("micro-benchmarks")
        .join(name)
}

fn autosync_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_autosync"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run autosync")
}

fn autosync(args: &[&str]) -> Output {
    autosync_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
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
