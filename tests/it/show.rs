//! `--show kpl|labels|queries`: a stage's output for the selected kernels, exit 0,
//! nothing verified or written.

use std::path::Path;

use crate::common::{autosync_in, dir_with};

const SRC: &str = "kernel s(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        if (tid > 0) {
            x = A[tid - 1];
            A[tid] = x;
        }
        barrier;
    }
}

kernel d(global B[]) {
    if (tid > 0) {
        barrier;
    }
    B[bid] = 1;
}
";

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = autosync_in(dir, args);
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn setup() -> tempfile::TempDir {
    dir_with("s.kpl", SRC).0
}

#[test]
fn show_kpl_prints_the_lowered_kernel() {
    let dir = setup();
    let (code, out) = run(dir.path(), &["check", "--show", "kpl", "--kernel", "s", "s.kpl"]);
    assert_eq!(code, 0);
    let want: String = SRC.lines().take(10).map(|l| format!("{l}\n")).collect();
    assert_eq!(out, want);
}

#[test]
fn show_labels_prints_the_label_tree() {
    let dir = setup();
    let (code, out) = run(dir.path(), &["check", "--show", "labels", "s.kpl"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "s.kpl: kernel `s`",
            "  mains start line 1 loops [] conds [] candidate",
            "  2 stmt line 2 loops [] conds [] candidate",
            "  3:9s start line 3 loops [3:9] conds [] candidate",
            "  4:7s start line 4 loops [3:9] conds [4:7] candidate",
            "  5 stmt line 5 loops [3:9] conds [4:7] candidate",
            "  6 stmt line 6 loops [3:9] conds [4:7] candidate",
            "  4:7 if line 4 loops [3:9] conds [] candidate",
            "  8 barrier line 8 loops [3:9] conds [] -",
            "  3:9 loop line 3 loops [] conds [] candidate",
            "  main main line 1 loops [] conds [] -",
            "s.kpl: kernel `d`",
            "  mains start line 12 loops [] conds [] candidate",
            "  13:15s start line 13 loops [] conds [13:15] candidate",
            "  14 barrier line 14 loops [] conds [13:15] -",
            "  13:15 if line 13 loops [] conds [] candidate",
            "  16 stmt line 16 loops [] conds [] candidate",
            "  main main line 12 loops [] conds [] -",
        ]
    );
}

#[test]
fn show_queries_lists_what_the_verifier_would_ask() {
    let dir = setup();
    let (code, out) = run(dir.path(), &["check", "--show", "queries", "s.kpl"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "s.kpl: kernel `s`",
            "  race on `A`: read 5:13 / write 6:13, same iteration, same block",
            "  race on `A`: read 5:13 / write 6:13, different iterations at loop depth 1 (earlier first), same block",
            "  race on `A`: read 5:13 / write 6:13, different iterations at loop depth 1 (later first), same block",
            "  race on `A`: write 6:13 / write 6:13, same iteration, same block",
            "  race on `A`: write 6:13 / write 6:13, different iterations at loop depth 1 (earlier first), same block",
            "s.kpl: kernel `d`",
            "  divergence: barrier at 14:9",
            "  race on `B`: write 16:5 / write 16:5, same iteration, same block",
            "  race on `B`: write 16:5 / write 16:5, same iteration, different blocks",
        ]
    );
}

#[test]
fn fix_show_does_not_write() {
    let dir = setup();
    let (code, out) = run(dir.path(), &["fix", "--show", "labels", "--kernel", "d", "s.kpl"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("s.kpl: kernel `d`"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.kpl")).expect("read"),
        SRC
    );
}
