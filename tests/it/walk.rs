//! Issue #35, items 4–6: stdout stays machine-readable (`fix --format json --diff`,
//! `--format github`), directories are walked as ripgrep walks them (hidden, ignored and
//! excluded files skipped, symbolic link loops skipped, an empty folder is no error), and
//! input hygiene (binary files, CUDA's launch limits, the `// --blockDim=` header).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{autosync_in, code, root, stderr, stdout, write};

/// Race-free for any launch.
const CLEAN: &str = "kernel ok(shared A[]) {\n    A[tid] = 1;\n}\n";
/// Races for any launch of two threads or more.
fn racy() -> String {
    std::fs::read_to_string(root().join("examples/fig2.kpl")).unwrap()
}
/// Race-free with at most 4 threads per block (each writes its own element), racy with
/// more (threads `t` and `t + 4` write different values to one element).
const FOUR: &str = "kernel four(shared A[]) {\n    A[tid % 4] = tid;\n}\n";

fn check(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["check", "--color", "never"];
    all.extend_from_slice(args);
    autosync_in(dir, &all)
}

/// The summary line of a text report.
fn summary(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or("").to_string()
}

fn git_init(dir: &Path) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["init", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

// ---------------------------------------------------------------- walking

#[test]
fn hidden_folders_are_skipped_unless_hidden() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.kpl", CLEAN);
    write(dir.path(), ".cache/b.kpl", &racy());
    let out = check(dir.path(), &["."]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(summary(&out), "checked 1 file, 1 kernel: 1 verified");
    let out = check(dir.path(), &["--hidden", "."]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        summary(&out),
        "checked 2 files, 2 kernels: 1 verified, 1 with races"
    );
}

#[test]
fn gitignored_build_folders_are_skipped_unless_no_ignore() {
    let dir = tempfile::tempdir().unwrap();
    git_init(dir.path());
    write(dir.path(), ".gitignore", "build/\n");
    write(dir.path(), "src/a.kpl", CLEAN);
    write(dir.path(), "build/gen.kpl", &racy());
    let out = check(dir.path(), &["."]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(summary(&out), "checked 1 file, 1 kernel: 1 verified");
    let out = check(dir.path(), &["--no-ignore", "."]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        summary(&out),
        "checked 2 files, 2 kernels: 1 verified, 1 with races"
    );
}

#[test]
fn dot_ignore_files_are_read_outside_git_too() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".ignore", "vendor\n");
    write(dir.path(), "a.kpl", CLEAN);
    write(dir.path(), "vendor/v.kpl", &racy());
    let out = check(dir.path(), &["."]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(summary(&out), "checked 1 file, 1 kernel: 1 verified");
}

#[test]
fn exclude_skips_matching_files_and_folders() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.kpl", CLEAN);
    write(dir.path(), "third_party/t.kpl", &racy());
    write(dir.path(), "gen.kpl", &racy());
    let out = check(
        dir.path(),
        &["--exclude", "third_party", "--exclude", "gen.*", "."],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(summary(&out), "checked 1 file, 1 kernel: 1 verified");
    let out = check(dir.path(), &["--exclude", "third_party", "."]);
    assert_eq!(
        summary(&out),
        "checked 2 files, 2 kernels: 1 verified, 1 with races"
    );
    let out = check(dir.path(), &["--exclude", "a[", "."]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("error: invalid value 'a[' for '--exclude <GLOB>': `a[` is not a glob"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn files_named_on_the_command_line_are_always_checked() {
    let dir = tempfile::tempdir().unwrap();
    git_init(dir.path());
    write(dir.path(), ".gitignore", "build/\n");
    write(dir.path(), "build/gen.kpl", &racy());
    write(dir.path(), ".hidden.kpl", &racy());
    let out = check(
        dir.path(),
        &["--exclude", "gen.kpl", "build/gen.kpl", ".hidden.kpl"],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(
        summary(&out),
        "checked 2 files, 2 kernels: 0 verified, 2 with races"
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_loop_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.kpl", CLEAN);
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("sub/loop")).unwrap();
    let out = check(dir.path(), &["."]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "autosync: warning: sub/loop: skipped: a symbolic link loop (it leads back to .)\n"
    );
    assert_eq!(summary(&out), "checked 1 file, 1 kernel: 1 verified");
}

#[test]
fn an_empty_folder_has_no_cuda_files_and_is_no_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let out = check(dir.path(), &["empty"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "autosync: empty: no CUDA files found (.cu, .cuh, .kpl; hidden and ignored files are \
         skipped: --hidden, --no-ignore)\n"
    );
    assert_eq!(stdout(&out), "checked 0 files, 0 kernels: 0 verified\n");
}

// ---------------------------------------------------------------- input hygiene

#[test]
fn a_binary_file_is_not_a_text_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bin.cu"),
        b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe",
    )
    .unwrap();
    let message = "autosync: error: bin.cu: not a text file (it has a NUL byte in its first 8 KB)\n";
    let out = check(dir.path(), &["bin.cu"]);
    assert_eq!(code(&out), 2);
    assert_eq!(stderr(&out), message);
    // Found in a walk, it is an error too: a verifier's exit 0 says every file found was
    // checked (unlike a search, where skipping a binary file loses only matches).
    write(dir.path(), "a.kpl", CLEAN);
    let out = check(dir.path(), &["."]);
    assert_eq!(code(&out), 2);
    assert_eq!(stderr(&out), message);
    assert_eq!(
        summary(&out),
        "checked 2 files, 1 kernel: 1 verified; 1 file with errors"
    );
}

#[test]
fn block_and_grid_sizes_beyond_cuda_limits_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.kpl", CLEAN);
    let cases = [
        (
            "--block-dim",
            "2000",
            "`2000` is not a block size: 2000 threads in x, but CUDA allows at most 1024 in x",
        ),
        (
            "--block-dim",
            "1,1,65",
            "`1,1,65` is not a block size: 65 threads in z, but CUDA allows at most 64 in z",
        ),
        (
            "--block-dim",
            "64,32",
            "`64,32` is not a block size: 2048 threads, but CUDA allows at most 1024 threads per block",
        ),
        (
            "--grid-dim",
            "1,65536",
            "`1,65536` is not a grid size: 65536 blocks in y, but CUDA allows at most 65535 in y",
        ),
    ];
    for (flag, value, why) in cases {
        let out = check(dir.path(), &[flag, value, "a.kpl"]);
        assert_eq!(code(&out), 2, "{flag} {value}");
        assert_eq!(
            stderr(&out).lines().next(),
            Some(format!("error: invalid value '{value}' for '{flag} <X[,Y[,Z]]>': {why}").as_str())
        );
    }
    let out = check(
        dir.path(),
        &["--block-dim", "32,32", "--grid-dim", "2147483647", "a.kpl"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn a_header_beyond_cuda_limits_is_an_error_of_its_file() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "big.kpl",
        &format!("// a kernel\n//--blockDim=2000\n{CLEAN}"),
    );
    write(dir.path(), "ok.kpl", CLEAN);
    let out = check(dir.path(), &["big.kpl", "ok.kpl"]);
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "autosync: error: big.kpl:2:1: `2000` is not a block size: 2000 threads in x, but CUDA \
         allows at most 1024 in x\n"
    );
    assert_eq!(
        summary(&out),
        "checked 2 files, 1 kernel: 1 verified; 1 file with errors"
    );
}

#[test]
fn a_header_with_a_space_after_the_slashes_is_read() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "spaced.kpl",
        &format!("// --blockDim=4 --gridDim=1\n{FOUR}"),
    );
    write(
        dir.path(),
        "plain.kpl",
        &format!("//--blockDim=4 --gridDim=1\n{FOUR}"),
    );
    write(dir.path(), "none.kpl", FOUR);
    write(
        dir.path(),
        "prose.kpl",
        &format!("// -- a note, not a header --\n{FOUR}"),
    );
    for (file, expected) in [
        ("spaced.kpl", 0),
        ("plain.kpl", 0),
        ("none.kpl", 1),
        ("prose.kpl", 1),
    ] {
        let out = check(dir.path(), &[file]);
        assert_eq!(code(&out), expected, "{file}: {}", stdout(&out));
    }
}

// ---------------------------------------------------------------- machine-readable stdout

#[test]
fn fix_json_diff_is_one_document_with_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "k.kpl", &racy());
    write(dir.path(), "ok.kpl", CLEAN);
    let out = autosync_in(
        dir.path(),
        &["fix", "--format", "json", "--diff", "k.kpl", "ok.kpl"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
    let diff = doc["files"][0]["diff"].as_str().unwrap();
    assert!(diff.starts_with("--- a/k.kpl\n+++ b/k.kpl\n"), "{diff}");
    assert!(diff.contains("\n+    barrier;\n"), "{diff}");
    assert_eq!(doc["files"][1]["diff"], "");
    // --diff writes nothing.
    assert_eq!(std::fs::read_to_string(dir.path().join("k.kpl")).unwrap(), racy());
    // So does --check --format json, with the same document.
    let out = autosync_in(dir.path(), &["fix", "--check", "--format", "json", "k.kpl"]);
    assert_eq!(code(&out), 1);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["diff"].as_str(), Some(diff));
}

#[test]
fn fix_github_refuses_diff_and_stdout() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "k.kpl", &racy());
    for (flag, what) in [("--diff", "diff"), ("--stdout", "fixed file")] {
        let out = autosync_in(dir.path(), &["fix", "--format", "github", flag, "k.kpl"]);
        assert_eq!(code(&out), 2, "{flag}");
        assert_eq!(stdout(&out), "");
        assert_eq!(
            stderr(&out).lines().next(),
            Some(
                format!(
                    "error: the argument '{flag}' cannot be used with '--format github' (stdout \
                     holds one JSON array of review comments; use --format json {flag} for one \
                     JSON document with the {what})"
                )
                .as_str()
            )
        );
    }
}

#[test]
fn github_paths_are_relative_to_the_git_work_tree() {
    let dir = tempfile::tempdir().unwrap();
    git_init(dir.path());
    write(dir.path(), "src/kernels/k.kpl", &racy());
    let sub = dir.path().join("src");
    let out = autosync_in(&sub, &["fix", "--format", "github", "kernels/k.kpl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let comments: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(comments.len(), 1);
    assert_eq!(comments[0]["path"], "src/kernels/k.kpl");
    // Outside any work tree, relative to the current folder.
    let plain = tempfile::tempdir().unwrap();
    write(plain.path(), "sub/k.kpl", &racy());
    let out = autosync_in(plain.path(), &["fix", "--format", "github", "sub/k.kpl"]);
    let comments: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(comments[0]["path"], "sub/k.kpl");
}
