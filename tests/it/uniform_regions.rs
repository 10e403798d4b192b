//! Barriers inside block-uniform conditionals (issue #19, part 1) end to end on CUDA:
//! `fix --diff` writes the barrier inside `if (blockIdx.x == 0)` (adding braces to a
//! brace-less branch), the fixed text verifies, and a thread-dependent guard keeps the
//! barrier outside.

use std::path::{Path, PathBuf};

use crate::common::autosync;

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("uniform")
        .join(name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

#[test]
fn fix_diff_puts_the_barrier_inside_the_first_block_conditional() {
    let path = file("first_block.cu");
    let out = autosync(&["fix", "--diff", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let diff = text(&out.stdout);
    let hunks: Vec<&str> = diff.split("\n@@ ").skip(1).collect();
    assert_eq!(hunks.len(), 3, "{diff}");
    assert!(
        hunks[0].contains(
            "     if (blockIdx.x == 0) {
+        __syncthreads();
         y = 1;
     }"
        ),
        "{diff}"
    );
    assert!(
        hunks[1].contains(
            "-    if (blockIdx.x == 0)
+    if (blockIdx.x == 0) {
+        __syncthreads();
         y = 1;
+    }"
        ),
        "{diff}"
    );
    // The twin: between the conditionals, not inside `if (threadIdx.x < 32)`.
    assert!(
        hunks[2].contains(
            "     }
+    __syncthreads();
     if (threadIdx.x < 32) {"
        ),
        "{diff}"
    );
    let log = text(&out.stderr);
    assert!(
        log.contains("kernel `first_block`: inserted 1 barrier(s) at line(s) 12; 1 barrier(s), cost 0.5"),
        "{log}"
    );
    assert!(
        log.contains(
            "kernel `first_block_braceless`: inserted 1 barrier(s) at line(s) 29; 1 barrier(s), cost 0.5"
        ),
        "{log}"
    );
    assert!(
        log.contains("kernel `thread_guard`: inserted 1 barrier(s) at line(s) 45; 1 barrier(s), cost 1"),
        "{log}"
    );
}

#[test]
fn the_fixed_text_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let fixed = dir.path().join("first_block.cu");
    std::fs::copy(file("first_block.cu"), &fixed).unwrap();
    let out = autosync(&["fix", fixed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = autosync(&["check", fixed.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    // Without the barriers, the check finds the races.
    let out = autosync(&["check", file("first_block.cu").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}
