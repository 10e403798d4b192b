//! The test binaries of the workspace (issue #29): each package declares its test
//! binaries in its `Cargo.toml` (`autotests = false`: one `it` binary per package, plus
//! the corpus), so a `.rs` file under a `tests/` folder that no binary declares as a
//! module would never be compiled. This test names such files.

use std::path::{Path, PathBuf};

use crate::common::root;

/// The packages of the workspace, by folder.
const PACKAGES: &[&str] = &[".", "kpl", "cuda", "oracle", "synth", "driver", "benches"];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The `path = "tests/..."` of the `[[test]]` targets of a `Cargo.toml`.
fn test_roots(package: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(package.join("Cargo.toml")).expect("Cargo.toml");
    assert!(
        manifest.lines().any(|l| l.trim() == "autotests = false"),
        "{}: `autotests = false` is missing",
        package.display()
    );
    manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("path = \"tests/"))
        .filter_map(|l| l.strip_suffix('"'))
        .map(|p| package.join("tests").join(p))
        .collect()
}

/// Whether a file in `dir` (or `dir.rs`, whose submodules live in `dir`) declares
/// `mod name;`.
fn declared(dir: &Path, name: &str) -> bool {
    let mut candidates = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().extension().is_some_and(|x| x == "rs") {
            candidates.push(e.path());
        }
    }
    candidates.push(dir.with_extension("rs"));
    let decl = format!("mod {name};");
    candidates.iter().any(|c| {
        std::fs::read_to_string(c).is_ok_and(|t| {
            t.lines()
                .any(|l| l.trim() == decl || l.trim() == format!("pub {decl}"))
        })
    })
}

#[test]
fn every_test_file_is_a_test_binary_or_one_of_its_modules() {
    let mut stray = Vec::new();
    for package in PACKAGES {
        let package = root().join(package);
        let roots = test_roots(&package);
        assert!(!roots.is_empty(), "{}: no [[test]]", package.display());
        for r in &roots {
            assert!(r.is_file(), "{}: no such test binary", r.display());
        }
        let mut files = Vec::new();
        rs_files(&package.join("tests"), &mut files);
        for f in files {
            if roots.contains(&f) {
                continue;
            }
            let (dir, name) = if f.file_name().is_some_and(|n| n == "mod.rs") {
                let d = f.parent().unwrap();
                (d.parent().unwrap(), d.file_name().unwrap())
            } else {
                (f.parent().unwrap(), f.file_stem().unwrap())
            };
            if !declared(dir, &name.to_string_lossy()) {
                stray.push(f.strip_prefix(root()).unwrap_or(&f).display().to_string());
            }
        }
    }
    assert!(
        stray.is_empty(),
        "test files no test binary compiles (add `mod NAME;` to the package's tests/it/main.rs): {stray:?}"
    );
}
