//! The deviations and shortcuts of the static verifier (`oracle/src/verifier/deviations.rs`):
//! its table [`DEVIATIONS`] against its rules and the workspace's tests (every id has a
//! test that exists, every `deviation_*` test belongs to an id), and the tests written
//! for the rules that had none, named `deviation_<id>`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::*;
use oracle::dynamic::Interpreter;
use oracle::verifier::StaticVerifier;
use oracle::verifier::deviations::DEVIATIONS;
use oracle::{CheckOptions, Oracle, OracleError};

// ---------------------------------------------------------------- the table

/// The workspace root: the parent of this crate's directory.
fn workspace() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Every `.rs` file under `dir`, build outputs and hidden directories left out.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The test functions of the workspace (a `fn` whose attributes above it include
/// `#[test]`), each with the files that define one of that name.
fn workspace_tests() -> BTreeMap<String, Vec<PathBuf>> {
    let mut files = Vec::new();
    rust_files(&workspace(), &mut files);
    let mut tests: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("fn ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // The lines above the `fn`: attributes and doc comments, up to `#[test]`.
            let is_test = lines[..n]
                .iter()
                .rev()
                .map(|l| l.trim())
                .take_while(|l| l.starts_with("#[") || l.starts_with("///"))
                .any(|l| l == "#[test]");
            if is_test {
                tests.entry(name).or_default().push(file.clone());
            }
        }
    }
    tests
}

#[test]
fn every_deviation_has_tests_that_exist() {
    let tests = workspace_tests();
    let mut ids = BTreeSet::new();
    for d in DEVIATIONS {
        assert!(ids.insert(d.id), "`{}` is in the table twice", d.id);
        assert!(
            d.id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "`{}` is not kebab-case",
            d.id
        );
        assert!(!d.tests.is_empty(), "deviation `{}` has no test", d.id);
        for t in d.tests {
            assert!(
                tests.contains_key(*t),
                "deviation `{}` names the test `{t}`, which no file of the workspace defines",
                d.id
            );
        }
        // A test written for the rule alone is named after it.
        let own = format!("deviation_{}", d.id.replace('-', "_"));
        if tests.contains_key(&own) {
            assert!(
                d.tests.contains(&own.as_str()),
                "`{own}` is not listed under `{}`",
                d.id
            );
        }
    }
}

#[test]
fn every_deviation_test_belongs_to_a_deviation() {
    let listed: BTreeSet<&str> = DEVIATIONS.iter().flat_map(|d| d.tests.iter().copied()).collect();
    let orphans: Vec<String> = workspace_tests()
        .into_keys()
        .filter(|t| t.starts_with("deviation_") && !listed.contains(t.as_str()))
        .collect();
    assert!(
        orphans.is_empty(),
        "tests named deviation_* that no entry of DEVIATIONS lists: {orphans:?}"
    );
}

#[test]
fn the_table_follows_the_rules_in_the_docs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/verifier/deviations.rs");
    let text = std::fs::read_to_string(&path).expect("deviations.rs is readable");
    let headings: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("//! - **"))
        .filter_map(|l| l.split_once("**").map(|(h, _)| h))
        .collect();
    let table: Vec<&str> = DEVIATIONS.iter().map(|d| d.heading).collect();
    assert_eq!(
        headings, table,
        "the rules' headings in deviations.rs and the DEVIATIONS table disagree"
    );
}

// ---------------------------------------------------------------- the rules

/// `memory-is-abstract`: what a thread stored is not what it reads back after a barrier.
/// `x` is `tid` in every run (the interpreter finds no race), but the verifier takes
/// it as an arbitrary value, so `A[x]` may be one element for two threads.
#[test]
fn deviation_memory_is_abstract() {
    let src = "kernel k(shared S[], shared A[]) {
    local x;
    S[tid] = tid;
    barrier;
    x = S[tid];
    A[x] = 0;
}
";
    assert_eq!(
        races(&check(src)),
        [row("A", 6, 6, "write-write", true, &[], true)]
    );
    let dy = Interpreter::new(launch(8, 1))
        .check(&kernel(src))
        .expect("the interpreter runs");
    assert!(dy.is_clean(), "{:?}", races(&dy));
}

/// `parameters-and-launch-sizes`: a `u8` parameter is below 256, a `u16` one is not;
/// a block has at most 1024 threads, so `bid * 1024 + tid` never meets another block's,
/// while `bid * 1023 + tid` does.
#[test]
fn deviation_parameters_and_launch_sizes() {
    let src = "kernel k(shared A[], u8 n) {
    if (n > 255) {
        A[0] = tid;
    }
}
";
    assert!(check(src).is_clean(), "{:?}", races(&check(src)));
    assert_eq!(
        races(&check(&src.replace("u8 n", "u16 n"))),
        [row("A", 3, 3, "write-write", true, &[], true)]
    );
    let grid = "kernel k(global A[]) {
    A[bid * 1024 + tid] = 0;
}
";
    assert!(check(grid).is_clean(), "{:?}", races(&check(grid)));
    assert_eq!(
        races(&check(&grid.replace("1024", "1023"))),
        [row("A", 2, 2, "write-write", true, &[], false)]
    );
}

/// `infeasible-preconditions`: `requires` clauses no launch satisfies are an error, not
/// a vacuous "verified" of a kernel that races.
#[test]
fn deviation_infeasible_preconditions() {
    let src = "kernel k(shared A[], n) requires n > 3 && n < 2 {
    A[0] = tid;
}
";
    match StaticVerifier::new(strict()).check(&kernel(src)) {
        Err(OracleError::NoFeasibleRun(why)) => assert!(why.contains("can never hold"), "{why}"),
        other => panic!("expected NoFeasibleRun, got {other:?}"),
    }
    let feasible = src.replace("n > 3 && n < 2", "n > 3");
    assert_eq!(
        races(&check(&feasible)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
}

/// `typed-reads`: a value read through `u8` is in 0..256, so each thread keeps to its
/// own 256 cells; read untyped it is arbitrary and the cells of two threads meet.
#[test]
fn deviation_typed_reads() {
    let src = "kernel k(shared S[], global K[]) {
    local k;
    k = u8(K[tid]);
    S[tid * 256 + k] = 1;
}
";
    assert!(check(src).is_clean(), "{:?}", races(&check(src)));
    assert_eq!(
        races(&check(&src.replace("u8(K[tid])", "K[tid]"))),
        [row("S", 4, 4, "write-write", true, &[], true)]
    );
}

/// `benign-write-write-races`: by default two writes of one element race only when
/// they may store different values; `no_benign_tolerance` turns that off.
#[test]
fn deviation_benign_write_write_races() {
    let src = "kernel k(shared A[]) {
    A[0] = 1;
}
";
    let r = check_with(src, CheckOptions::default());
    assert!(r.is_clean(), "{:?}", races(&r));
    assert_eq!(r.benign.len(), 1);
    assert_eq!(
        races(&check(src)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
    let differ = src.replace("A[0] = 1;", "A[0] = tid;");
    assert_eq!(
        races(&check_with(&differ, CheckOptions::default())),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
}

/// `warps`: under `--warp-size 32`, a read and a later write of one warp's threads are
/// ordered by lock step; threads of two warps are not (thread 31 reads `s[32]`, which
/// thread 32 writes).
#[test]
fn deviation_warps() {
    let warps = |block: u32| {
        let mut opts = launch(block, 1);
        opts.launch.warp_size = Some(32);
        opts
    };
    let src = "kernel k(shared s[]) {
    local x;
    x = s[tid + 1];
    s[tid] = x;
}
";
    assert!(check_with(src, warps(32)).is_clean());
    assert_eq!(
        races(&check_with(src, warps(64))),
        [row("s", 3, 4, "read-write", true, &[], true)]
    );
    assert_eq!(
        races(&check_with(src, launch(32, 1))),
        [row("s", 3, 4, "read-write", true, &[], true)]
    );
}

/// `only-intra-group`: races between threads of different blocks are not checked.
#[test]
fn deviation_only_intra_group() {
    let src = "kernel k(global A[]) {
    A[tid] = 0;
}
";
    assert_eq!(
        races(&check(src)),
        [row("A", 2, 2, "write-write", true, &[], false)]
    );
    let opts = CheckOptions {
        only_intra_group: true,
        ..strict()
    };
    assert!(check_with(src, opts).is_clean());
}
