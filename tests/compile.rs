//! What `autosync fix` writes must compile (issue #16, "Never write code that does not
//! compile"). For every `.cu` file of `tests/corpus/` and `benches/realistic/`:
//!
//! 1. the file as written is checked with `g++ -fsyntax-only -x c++` through the CUDA
//!    shim `tests/cuda_shim.h` (`-include`, with the empty headers of
//!    `tests/cuda_shim/` for `#include <cuda_runtime.h>` and friends, and the header's
//!    `-D` options): this validates the shim;
//! 2. `autosync fix --strip --stdout` is run and what it prints is checked the same way;
//! 3. for files whose `//expect:` is `race`, so is `autosync fix --stdout`;
//! 4. for the cooperative kernels of `tests/corpus/grid/`, so are
//!    `autosync fix --cooperative --strip --stdout` and (racy files) `fix --cooperative`.
//!
//! Kernel launches `k<<<g, b>>>(...)` are the one thing a header cannot declare: the
//! test removes the `<<<...>>>` before compiling. A file `fix` does not print (no
//! barrier placement fixes it, or a kernel is unsupported) has nothing to check. The
//! test prints how many outputs it compiled, and skips (saying so) when no C++ compiler
//! is installed (`CXX`, else `g++`, else `clang++`).
//!
//! A module of the `corpus` binary (`tests/corpus.rs`): one trial per file,
//! `[compile] tests/corpus/DIR/NAME.cu` or `[compile] benches/realistic/NAME.cu`
//! (ignored, saying why, without a C++ compiler); the counts are printed after all
//! trials.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

use libtest_mimic::{Failed, Trial};

/// Files that cannot be made to compile through a reasonable shim, with the reason.
/// (None today: every corpus and bench file compiles as written.)
const NOT_COMPILABLE: &[(&str, &str)] = &[];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The C++ compiler to use, if one runs.
fn compiler() -> Option<String> {
    let candidates: Vec<String> = std::env::var("CXX")
        .ok()
        .into_iter()
        .chain(["g++".to_string(), "clang++".to_string()])
        .collect();
    candidates.into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

fn files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![
        root().join("tests").join("corpus"),
        root().join("benches").join("realistic"),
    ];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "cu") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The value of a `//KEY` header line.
fn header(text: &str, key: &str) -> Option<String> {
    let rest = text.lines().find_map(|l| l.trim().strip_prefix(key))?;
    Some(rest.split_whitespace().next().unwrap_or("").to_string())
}

/// `-DNAME[=VALUE]` options of the file's GPUVerify header (its first lines).
fn defines(text: &str) -> Vec<String> {
    text.lines()
        .take(5)
        .filter(|l| l.starts_with("//"))
        .flat_map(|l| l.split_whitespace())
        .filter(|w| w.starts_with("-D") && w.len() > 2)
        .map(str::to_string)
        .collect()
}

/// The text with kernel launch configurations `<<<...>>>` removed.
fn without_launches(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("<<<") {
        out.push_str(&rest[..i]);
        match rest[i..].find(">>>") {
            Some(j) => rest = &rest[i + j + 3..],
            None => {
                rest = &rest[i..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Compiles `text` (a version of `file`) through the shim; the compiler's errors if it
/// does not compile.
fn compile(cxx: &str, file: &Path, text: &str) -> Result<(), String> {
    let shim = root().join("tests").join("cuda_shim.h");
    let includes = root().join("tests").join("cuda_shim");
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut child = Command::new(cxx)
        .args(["-fsyntax-only", "-x", "c++", "-std=c++17", "-w"])
        .args(defines(text))
        .arg("-include")
        .arg(&shim)
        .arg("-I")
        .arg(&includes)
        .arg("-I")
        .arg(dir)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {cxx}: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(without_launches(text).as_bytes())
            .map_err(|e| format!("writing to {cxx}: {e}"))?;
    }
    let out = child.wait_with_output().map_err(|e| format!("{cxx}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let errors: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.contains("error"))
            .take(3)
            .map(str::to_string)
            .collect();
        Err(errors.join("\n"))
    }
}

/// What `autosync fix ARGS --stdout FILE` prints (`None`: nothing, the file would not
/// be written).
fn fixed(file: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_autosync"))
        .arg("fix")
        .args(args)
        .arg("--stdout")
        .arg(file)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (!text.trim().is_empty()).then_some(text)
}

#[derive(Default)]
struct Tally {
    originals: usize,
    outputs: usize,
    not_written: usize,
    failures: Vec<String>,
}

fn check_file(cxx: &str, file: &Path, tally: &Mutex<Tally>) {
    let name = file.strip_prefix(root()).unwrap_or(file).display().to_string();
    let Ok(text) = std::fs::read(file).map(|b| String::from_utf8_lossy(&b).into_owned()) else {
        return;
    };
    let known = NOT_COMPILABLE.iter().any(|(f, _)| name.ends_with(f));
    let original = compile(cxx, file, &text);
    let mut runs: Vec<(&str, Vec<&str>)> = vec![("fix --strip", vec!["--strip"])];
    if header(&text, "//expect:").as_deref() == Some("race") {
        runs.push(("fix", vec![]));
    }
    // Cooperative kernels (`tests/corpus/grid/`): the grid barriers `fix --cooperative`
    // writes, and the header it adds, compile too.
    if name.contains("grid/") {
        runs.push(("fix --cooperative --strip", vec!["--cooperative", "--strip"]));
        if header(&text, "//expect:").as_deref() == Some("race") {
            runs.push(("fix --cooperative", vec!["--cooperative"]));
        }
    }
    let mut results = Vec::new();
    for (what, args) in runs {
        results.push((what, fixed(file, &args).map(|out| compile(cxx, file, &out))));
    }
    let mut t = tally.lock().unwrap_or_else(|e| e.into_inner());
    match (original, known) {
        (Ok(()), true) => t
            .failures
            .push(format!("{name}: listed in NOT_COMPILABLE but compiles")),
        (Err(e), false) => t
            .failures
            .push(format!("{name} as written (the shim lacks something):\n{e}")),
        (Ok(()), false) => t.originals += 1,
        (Err(_), true) => return,
    }
    for (what, r) in results {
        match r {
            None => t.not_written += 1,
            Some(Ok(())) => t.outputs += 1,
            Some(Err(e)) => t.failures.push(format!("{name} after `{what}`:\n{e}")),
        }
    }
}

/// The compiler the trials use, found once.
fn cxx() -> Option<&'static str> {
    static CXX: OnceLock<Option<String>> = OnceLock::new();
    CXX.get_or_init(compiler).as_deref()
}

/// What the file trials compiled, added up for [`summary`].
static TALLY: Mutex<Option<Tally>> = Mutex::new(None);

/// Checks one file ([`check_file`]) and adds its counts to [`TALLY`].
fn compile_trial(cxx: &str, file: &Path) -> Result<(), Failed> {
    let tally = Mutex::new(Tally::default());
    check_file(cxx, file, &tally);
    let t = tally.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut all = TALLY.lock().unwrap_or_else(|e| e.into_inner());
    let all = all.get_or_insert_with(Tally::default);
    all.originals += t.originals;
    all.outputs += t.outputs;
    all.not_written += t.not_written;
    if t.failures.is_empty() {
        Ok(())
    } else {
        Err(t.failures.join("\n\n").into())
    }
}

fn the_files_are_found() {
    assert!(files().len() > 100, "the corpus was not found");
}

/// The trials of this module: one per file `fix`'s output of which must compile
/// (ignored without a C++ compiler), and the tests of the module itself.
pub fn trials() -> Vec<Trial> {
    let mut trials = vec![
        Trial::test("compile::the_files_are_found", || {
            the_files_are_found();
            Ok(())
        }),
        Trial::test("compile::launches_are_removed_before_compiling", || {
            launches_are_removed_before_compiling();
            Ok(())
        }),
    ];
    let root = root();
    for file in files() {
        let name = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
        let trial = Trial::test(name, move || match cxx() {
            Some(cxx) => compile_trial(cxx, &file),
            None => {
                println!("skipped: no C++ compiler found (set CXX, or install g++ or clang++)");
                Ok(())
            }
        })
        .with_kind("compile");
        trials.push(trial.with_ignored_flag(cxx().is_none()));
    }
    trials
}

/// Prints how many files and outputs the trials that ran compiled (nothing when none
/// ran), or why they were skipped.
pub fn summary() {
    let Some(cxx) = cxx() else {
        println!("compile: skipped: no C++ compiler found (set CXX, or install g++ or clang++)");
        return;
    };
    let Some(t) = TALLY.lock().unwrap_or_else(|e| e.into_inner()).take() else {
        return;
    };
    println!(
        "{cxx}: {} files compile as written; {} outputs of `fix` compile; {} runs printed nothing \
         (not fixable or unsupported)",
        t.originals, t.outputs, t.not_written
    );
}

fn launches_are_removed_before_compiling() {
    assert_eq!(
        without_launches("k<<<g, b>>>(x); m<<<dim3(1, 2), 64, 0, s>>>(y);"),
        "k(x); m(y);"
    );
    assert_eq!(without_launches("a << 2 >> 1"), "a << 2 >> 1");
}
