//! Helpers shared by the modules of the `it` test binary: running the built `autosync`
//! binary, writing kernels into temporary folders, reading its output.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The repository root (the `autosync` package's folder).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The built `autosync` binary.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_autosync")
}

/// `autosync ARGS` run in `dir`. `NO_COLOR` is removed from its environment: colors
/// are the `--color` flag's alone (`auto` never colors a pipe anyway).
pub fn autosync_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .expect("run autosync")
}

/// `autosync ARGS` run in the repository root (where `cargo test` runs the tests).
pub fn autosync(args: &[&str]) -> Output {
    autosync_in(root(), args)
}

pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}

/// Writes `text` to `dir/name` (creating its folders); the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

/// A temporary folder holding `text` as `name`: (the folder, the file's path).
pub fn dir_with(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = write(dir.path(), name, text);
    (dir, p)
}

/// `autosync fix --format json --stdout ARGS NAME` on `text` saved as `name` in a
/// temporary folder: (exit code, the first kernel's report, the fixed text, or `text`
/// when nothing was written).
pub fn fix_in_temp(name: &str, text: &str, args: &[&str]) -> (Option<i32>, Value, String) {
    let (dir, _) = dir_with(name, text);
    let mut all = vec!["fix", "--format", "json", "--stdout"];
    all.extend_from_slice(args);
    all.push(name);
    let out = autosync_in(dir.path(), &all);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let file = &v["files"][0];
    let fixed = file["fixed_source"].as_str().unwrap_or(text).to_string();
    (out.status.code(), file["kernels"][0].clone(), fixed)
}

/// The exit code of `autosync check --oracle ORACLE NAME` on `text` saved as `name` in a
/// temporary folder.
pub fn check_in_temp(name: &str, text: &str, oracle: &str) -> Option<i32> {
    let (dir, _) = dir_with(name, text);
    autosync_in(dir.path(), &["check", "--oracle", oracle, name])
        .status
        .code()
}

/// Line `n` (1-based) of `text`, trimmed.
pub fn line(text: &str, n: usize) -> &str {
    text.lines().nth(n - 1).unwrap_or("").trim()
}

/// `insta::assert_snapshot!` with the snapshots where they were before the tests became
/// one binary: `tests/snapshots/` beside this binary's folder (insta's default would be
/// `tests/it/snapshots/`), named `it__MODULE__NAME.snap` after the module path.
macro_rules! assert_snapshot {
    ($($arg:tt)*) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.bind(|| insta::assert_snapshot!($($arg)*));
    }};
}
pub(crate) use assert_snapshot;
