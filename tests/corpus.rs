//! The corpus of `tests/corpus/<feature>/*.cu`: small kernels in the style of the GPUVerify
//! benchmark collection (CUDA SDK samples, C++ AMP ports, gpgpu-sim ISPASS 2009, GPUVerify
//! annotations, language features, atomics), checked end to end through the CLI like
//! rustc's UI tests. See `tests/README.md` for how to add a kernel.
//!
//! This binary has no libtest harness (`harness = false`): it lists its trials with
//! `libtest-mimic`, one per corpus file (`[corpus] sdk/matrixMul.cu`), so that
//! `cargo test --release --test corpus -- sdk/matrixMul` checks that kernel alone and a
//! failure names its file; module `compile` adds one trial per file that `fix`'s
//! output must compile (`[compile] tests/corpus/sdk/matrixMul.cu`).
//!
//! Each file says what is true of it under docs/semantics.md, on the lines themselves:
//!
//! ```text
//! //expect: verified | race | divergence     the verdict of the file (header)
//! //expect-tool: race | divergence (why)     where autosync disagrees: what it says, and why
//! //expect-unfixable                         every reported race is cross-block
//! //dynamic: verified (why)                  atomics/ only: the interpreter finds nothing
//!
//! x[i] = y;      //~ race(x)                 a real race on array `x` at this line
//! __syncthreads(); //~ divergence            a real divergent barrier
//! x[i] = y;      //~? race(x)                a race autosync reports that is not real
//! ```
//!
//! `autosync check --format json` must process every file (no exit 2, no `unsupported` or
//! `timeout` verdict) and report exactly the marked set of (kind, array, line): both lines
//! of every racing pair, the line of every divergent barrier; `//~` and `//~?` markers
//! together. The verdict of the file (divergence if some kernel diverges, else race if some
//! kernel races, else verified) must be what `//expect-tool:` (else `//expect:`) says; the
//! headers must agree with the markers (`//expect:` with the `//~` markers alone).
//!
//! Files under `atomics/` are also run by the interpreter (`--oracle dynamic`): it must say
//! what `//dynamic:` (else the static verdict) says, and every race it finds must be
//! reported by the verifier (static ⊇ dynamic).
//!
//! The text report (`autosync check --color never`, run in `tests/corpus/` on the relative
//! path, kernel times and witness values normalized: see `normalize`) must equal `<file>.cu.stdout` next to the file
//! (`<file>.cu.stderr` if the tool writes to stderr). `BLESS=1` rewrites them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;

mod compile;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("corpus")
}

/// One expected or reported finding: `race(array)` or `divergence` at a line.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Finding {
    line: u64,
    /// `race(ARRAY)` or `divergence`, as written in a marker.
    what: String,
}

/// The `//~` markers of a file: real findings, and false alarms (`//~?`).
#[derive(Debug, Default, PartialEq)]
struct Markers {
    real: BTreeSet<Finding>,
    false_alarms: BTreeSet<Finding>,
}

fn markers(text: &str) -> Result<Markers, String> {
    let mut m = Markers::default();
    for (i, l) in text.lines().enumerate() {
        let line = i as u64 + 1;
        for group in l.split("//~").skip(1) {
            let (set, items) = match group.strip_prefix('?') {
                Some(rest) => (&mut m.false_alarms, rest),
                None => (&mut m.real, group),
            };
            let mut any = false;
            for what in items.split([' ', ',']).filter(|w| !w.is_empty()) {
                let ok = what == "divergence"
                    || what
                        .strip_prefix("race(")
                        .and_then(|a| a.strip_suffix(')'))
                        .is_some_and(|a| !a.is_empty());
                if !ok {
                    return Err(format!(
                        "line {line}: `{what}` is not a marker (race(ARRAY) or divergence)"
                    ));
                }
                set.insert(Finding {
                    line,
                    what: what.to_string(),
                });
                any = true;
            }
            if !any {
                return Err(format!("line {line}: an empty `//~` marker"));
            }
        }
    }
    Ok(m)
}

/// The verdict a set of findings makes for a file.
fn verdict_of<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> &'static str {
    let mut v = "verified";
    for f in findings {
        if f.what == "divergence" {
            return "divergence";
        }
        v = "race";
    }
    v
}

/// The verdict of a `KEY verdict (comment)` header line.
fn header(text: &str, key: &str) -> Option<String> {
    let rest = text.lines().find_map(|l| l.trim().strip_prefix(key))?;
    Some(rest.split_whitespace().next().unwrap_or("").to_string())
}

/// What one oracle said about a file.
#[derive(Debug, Default)]
struct Said {
    code: Option<i32>,
    stderr: String,
    /// (kernel, verdict).
    verdicts: Vec<(String, String)>,
    findings: BTreeSet<Finding>,
    /// (first line, second line, fixable) of every race.
    pairs: BTreeSet<(u64, u64, bool)>,
}

impl Said {
    fn verdict(&self) -> &'static str {
        if self.verdicts.iter().any(|(_, v)| v == "divergence") {
            "divergence"
        } else if self.verdicts.iter().any(|(_, v)| v == "race") {
            "race"
        } else if !self.verdicts.is_empty() && self.verdicts.iter().all(|(_, v)| v == "verified") {
            "verified"
        } else {
            "other"
        }
    }
}

/// `autosync check ARGS FILE` in `tests/corpus/`, `file` relative to it.
fn run(file: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_autosync"))
        .current_dir(corpus())
        .arg("check")
        .args(args)
        .arg(file)
        .output()
        .expect("run autosync")
}

/// The line of the checked file a reported place is marked at: its own, or for a place
/// in an included header (the JSON's `file`) the line of the `#include` naming that
/// header, where the launch brings the header's code in.
fn marker_line(file: &Path, place: &Value) -> u64 {
    let line = place["line"].as_u64().unwrap_or(0);
    let Some(header) = place["file"].as_str() else {
        return line;
    };
    let name = header.rsplit('/').next().unwrap_or(header);
    let text = std::fs::read_to_string(corpus().join(file)).unwrap_or_default();
    text.lines()
        .position(|l| l.trim_start().starts_with("#include") && l.contains(name))
        .map_or(0, |i| i as u64 + 1)
}

fn check(file: &Path, oracle: &str) -> Said {
    let out = run(file, &["--format", "json", "--oracle", oracle]);
    let mut said = Said {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        ..Said::default()
    };
    let Ok(doc) = serde_json::from_slice::<Value>(&out.stdout) else {
        return said;
    };
    for k in doc["files"][0]["kernels"].as_array().into_iter().flatten() {
        said.verdicts.push((
            k["name"].as_str().unwrap_or("").to_string(),
            k["verdict"].as_str().unwrap_or("").to_string(),
        ));
        for r in k["races"].as_array().into_iter().flatten() {
            let what = format!("race({})", r["array"].as_str().unwrap_or(""));
            let a = marker_line(file, &r["first"]);
            let b = marker_line(file, &r["second"]);
            for line in [a, b] {
                said.findings.insert(Finding {
                    line,
                    what: what.clone(),
                });
            }
            said.pairs.insert((a, b, r["fixable"].as_bool().unwrap_or(true)));
        }
        for d in k["divergences"].as_array().into_iter().flatten() {
            said.findings.insert(Finding {
                line: marker_line(file, d),
                what: "divergence".into(),
            });
        }
    }
    said
}

/// The text report with what varies from run to run replaced: kernel times
/// (` [12.3 ms]` → ` [TIME]`) and the witness of each finding, which is whatever model the
/// solver finds first and differs between runs of the same build (threads → `T`, a thread's
/// block dropped, other blocks → `B`, loop iterations and parameter values → `_`, array cells `` `a[17]` `` → `` `a[_]` ``).
/// The finding itself (kind, array, spans, lines, notes) stays.
fn normalize(report: &str) -> String {
    report
        .lines()
        .map(|l| {
            let l = match l.rfind(" [") {
                Some(i) if l.ends_with(" ms]") && l[i + 2..l.len() - 4].parse::<f64>().is_ok() => {
                    format!("{} [TIME]", &l[..i])
                }
                _ => l.to_string(),
            };
            let mut l = replace_values(&l, "thread ", "T");
            l = replace_values(&l, "block ", "B");
            l = replace_values(&l, "iteration ", "_").replace("thread T of block B", "thread T");
            if l.contains("witness launch:") {
                l = replace_values(&l, " = ", "_");
            }
            format!("{}\n", replace_cells(&l))
        })
        .collect()
}

/// `prefix` followed by a number or a parenthesized tuple: the value replaced by `by`.
fn replace_values(line: &str, prefix: &str, by: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find(prefix) {
        out.push_str(&rest[..i + prefix.len()]);
        rest = &rest[i + prefix.len()..];
        let len = if rest.starts_with('(') {
            rest.find(')').map_or(0, |j| j + 1)
        } else {
            let digits = rest.trim_start_matches('-');
            let mut n = digits.len() - digits.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            // Iterations of nested loops, `3.7.1`: the inner numbers vary too.
            while n > 0
                && digits[n..].starts_with('.')
                && digits[n + 1..].starts_with(|c: char| c.is_ascii_digit())
            {
                let more = &digits[n + 1..];
                n += 1 + more.len() - more.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            }
            if n == 0 { 0 } else { rest.len() - digits.len() + n }
        };
        if len > 0 {
            out.push_str(by);
            rest = &rest[len..];
        }
    }
    out.push_str(rest);
    out
}

/// `` `name[index]` `` → `` `name[_]` ``.
fn replace_cells(line: &str) -> String {
    let parts: Vec<&str> = line.split('`').collect();
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('`');
        }
        let quoted = i % 2 == 1 && i + 1 < parts.len();
        match part.find('[') {
            Some(j)
                if quoted
                    && j > 0
                    && part.ends_with(']')
                    && part[..j]
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '.') =>
            {
                out.push_str(&part[..j]);
                out.push_str("[_]");
            }
            _ => out.push_str(part),
        }
    }
    out
}

/// Compares `actual` with the expected file `path` (absent = empty), or rewrites it
/// under `BLESS=1`.
fn compare_or_bless(path: &Path, actual: &str, failures: &mut Vec<String>) {
    let name = path.strip_prefix(corpus()).unwrap_or(path).display().to_string();
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if std::env::var_os("BLESS").is_some() {
        if actual.is_empty() {
            let _ = std::fs::remove_file(path);
        } else if actual != expected {
            std::fs::write(path, actual).expect("bless");
        }
        return;
    }
    if actual != expected {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
            .unified_diff()
            .header(&name, "actual")
            .to_string();
        failures.push(format!(
            "{name}: the report differs (run with BLESS=1 to accept):\n{diff}"
        ));
    }
}

/// Every `.cu` file under `dir`, relative to the corpus, sorted.
fn cu_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read tests/corpus").flatten() {
        let p = e.path();
        if p.is_dir() {
            cu_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "cu") {
            out.push(p.strip_prefix(corpus()).unwrap().to_path_buf());
        }
    }
}

fn files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    cu_files(&corpus(), &mut files);
    files.sort();
    files
}

/// Everything the corpus asserts about one file; the failures found.
fn check_file(file: &Path) -> Vec<String> {
    let name = file.display().to_string();
    let mut failures = Vec::new();
    let mut fail = |s: String| failures.push(format!("{name}: {s}"));
    let text = std::fs::read_to_string(corpus().join(file)).expect("read");
    let marks = match markers(&text) {
        Ok(m) => m,
        Err(e) => {
            fail(e);
            return failures;
        }
    };
    let Some(truth) = header(&text, "//expect:") else {
        fail("no `//expect:` line".into());
        return failures;
    };
    if verdict_of(&marks.real) != truth {
        fail(format!(
            "`//expect: {truth}` but the `//~` markers make it {}",
            verdict_of(&marks.real)
        ));
    }
    let all: BTreeSet<Finding> = marks.real.union(&marks.false_alarms).cloned().collect();
    let tool = match header(&text, "//expect-tool:") {
        Some(v) => {
            if verdict_of(&all) != v {
                fail(format!(
                    "`//expect-tool: {v}` but the markers make it {}",
                    verdict_of(&all)
                ));
            }
            v
        }
        None => {
            if !marks.false_alarms.is_empty() {
                fail("`//~?` markers without an `//expect-tool:` line saying why".into());
            }
            truth.clone()
        }
    };

    let stat = check(file, "static");
    if stat.code == Some(2) || stat.verdicts.is_empty() {
        fail(format!("exit {:?}: {}", stat.code, stat.stderr.trim()));
        return failures;
    }
    if let Some((k, v)) = stat
        .verdicts
        .iter()
        .find(|(_, v)| v == "unsupported" || v == "timeout")
    {
        fail(format!("kernel `{k}` is {v}"));
        return failures;
    }
    if stat.verdict() != tool {
        fail(format!("expected {tool}, autosync says {:?}", stat.verdicts));
    }
    let missing: Vec<_> = all.difference(&stat.findings).collect();
    let extra: Vec<_> = stat.findings.difference(&all).collect();
    if !missing.is_empty() || !extra.is_empty() {
        fail(format!(
            "marked but not reported: {missing:?}; reported but not marked: {extra:?}"
        ));
    }
    if text.lines().any(|l| l.trim() == "//expect-unfixable") && stat.pairs.iter().any(|p| p.2) {
        fail(format!("a race is reported fixable: {:?}", stat.pairs));
    }

    if file.starts_with("atomics") {
        let dy = check(file, "dynamic");
        let expected = header(&text, "//dynamic:").unwrap_or(tool);
        if dy.verdict() != expected {
            fail(format!(
                "the interpreter says {:?} {:?}, expected {expected}",
                dy.verdicts, dy.findings
            ));
        }
        for &(a, b, fixable) in &dy.pairs {
            if !stat
                .pairs
                .iter()
                .any(|&(x, y, f)| x == a && y == b && (fixable || !f))
            {
                fail(format!(
                    "the interpreter's race ({a}, {b}, fixable {fixable}) is not reported: {:?}",
                    stat.pairs
                ));
            }
        }
    }

    let out = run(file, &["--color", "never"]);
    let base = corpus().join(file).into_os_string();
    let with = |ext: &str| {
        let mut p = base.clone();
        p.push(ext);
        PathBuf::from(p)
    };
    compare_or_bless(
        &with(".stdout"),
        &normalize(&String::from_utf8_lossy(&out.stdout)),
        &mut failures,
    );
    compare_or_bless(
        &with(".stderr"),
        &String::from_utf8_lossy(&out.stderr),
        &mut failures,
    );
    failures
}

fn markers_and_headers_are_read() {
    let text = "//expect: race\n//expect-tool: divergence (false alarm: why)\n\
                a[i] = 1; //~ race(a)\n__syncthreads(); //~? divergence\n\
                b = a[0]; //~ race(a) race(b) //~? race(c)\n";
    let m = markers(text).unwrap();
    let f = |line, what: &str| Finding {
        line,
        what: what.into(),
    };
    assert_eq!(
        m.real,
        BTreeSet::from([f(3, "race(a)"), f(5, "race(a)"), f(5, "race(b)")])
    );
    assert_eq!(
        m.false_alarms,
        BTreeSet::from([f(4, "divergence"), f(5, "race(c)")])
    );
    assert_eq!(verdict_of(&m.real), "race");
    assert_eq!(verdict_of(&m.false_alarms), "divergence");
    assert_eq!(header(text, "//expect:").as_deref(), Some("race"));
    assert_eq!(header(text, "//expect-tool:").as_deref(), Some("divergence"));
    assert_eq!(header("//pass\n", "//expect:"), None);
    assert!(markers("x; //~ race\n").is_err());
    assert!(markers("x; //~\n").is_err());
    assert_eq!(
        normalize("a.cu: kernel `k`: verified [12.3 ms]\nchecked [x]\n"),
        "a.cu: kernel `k`: verified [TIME]\nchecked [x]\n"
    );
    assert_eq!(
        normalize(
            "= in kernel `k`: thread (0, 1, 0) of block 3 writes `u1[273]` (line 76, loop \
             iteration 98) while thread 31 reads `u1[273]`\n\
             = witness launch: 4x4x1 threads per block, 2 blocks, n = -3, w = 128\n"
        ),
        "= in kernel `k`: thread T writes `u1[_]` (line 76, loop iteration _) \
         while thread T reads `u1[_]`\n\
         = witness launch: 4x4x1 threads per block, 2 blocks, n = _, w = _\n"
    );
}

/// The corpus is all there, and every expected report belongs to a kernel of it.
fn the_corpus_is_complete_and_every_report_has_its_kernel() {
    let files = files();
    assert!(files.len() >= 100, "the corpus has {} files", files.len());
    assert!(
        files.iter().filter(|f| f.starts_with("atomics")).count() >= 18,
        "tests/corpus/atomics is too small"
    );
    let mut failures = Vec::new();
    let mut stray = Vec::new();
    collect_reports(&corpus(), &mut stray);
    for r in stray {
        let cu = r.with_extension("");
        if !cu.exists() {
            failures.push(format!("{}: no `.cu` file for this report", r.display()));
        }
    }
    failures.sort();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn collect_reports(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read tests/corpus").flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_reports(&p, out);
        } else if p.extension().is_some_and(|x| x == "stdout" || x == "stderr") {
            out.push(p);
        }
    }
}

fn the_work_queue_of_seed_000_fig_3_verifies_with_its_slots_private() {
    let fig3 = Path::new("atomics/queue_fig3.cu");
    let s = check(fig3, "static");
    assert_eq!(s.verdict(), "verified", "{s:?}");
    // The same queue without the counter (a plain increment) races on the slots: two
    // threads may take one slot, and store different values there (equal values, such
    // as the slot's own `compute(in, i)`, would be a benign pair).
    let text = std::fs::read_to_string(corpus().join(fig3)).expect("read");
    let racy = text
        .replace("atomicAdd(&c, 1)", "c++")
        .replace("compute(in, i);", "compute(in, i) + threadIdx.x;");
    let tmp = std::env::temp_dir().join(format!("autosync_atomics_{}.cu", std::process::id()));
    std::fs::write(&tmp, racy).expect("write");
    let s = check(&tmp, "static");
    let _ = std::fs::remove_file(&tmp);
    assert_eq!(s.verdict(), "race", "{s:?}");
    assert!(s.findings.iter().any(|f| f.line == 12), "{s:?}");
}

/// A trial that runs `f`, a test that panics on failure.
fn test(name: &str, f: fn()) -> Trial {
    Trial::test(name, move || {
        f();
        Ok(())
    })
}

/// The trials: the harness's own tests, one per corpus file (`[corpus] DIR/NAME.cu`),
/// and `compile`'s.
fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![
        test("markers_and_headers_are_read", markers_and_headers_are_read),
        test(
            "the_corpus_is_complete_and_every_report_has_its_kernel",
            the_corpus_is_complete_and_every_report_has_its_kernel,
        ),
        test(
            "the_work_queue_of_seed_000_fig_3_verifies_with_its_slots_private",
            the_work_queue_of_seed_000_fig_3_verifies_with_its_slots_private,
        ),
    ];
    for file in files() {
        let name = file.display().to_string();
        trials.push(
            Trial::test(name, move || {
                let failures = check_file(&file);
                if failures.is_empty() {
                    Ok(())
                } else {
                    Err(Failed::from(failures.join("\n")))
                }
            })
            .with_kind("corpus"),
        );
    }
    trials.extend(compile::trials());
    let conclusion = libtest_mimic::run(&args, trials);
    compile::summary();
    conclusion.exit();
}
