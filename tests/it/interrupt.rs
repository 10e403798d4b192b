//! Issue #34, item 2, "interruption": SIGINT or SIGTERM stops `check` and `fix` within a
//! second with exit code 130, having printed what was finished; `fix` on a folder
//! leaves every file as it was or completely fixed, and writes none after the signal.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{bin, write};

/// Fixable, and slow to fix: the barrier between the read and the write is found at
/// once, but proving that the fixed kernel's writes never meet takes the solver seconds
/// (with 32-bit wrapping, `tid * p * q` is one-to-one only because `p` and `q` are odd).
fn slow(n: usize) -> String {
    format!(
        "kernel slow{n}(shared A[], shared B[], p, q) requires p % 2 == 1 && q % 2 == 1 {{\n\
         \x20   local x;\n\
         \x20   x = A[(tid + 1) * p * q];\n\
         \x20   A[tid * p * q] = x;\n\
         \x20   B[tid * q * p + {n}] = x;\n\
         }}\n"
    )
}

/// Fixed in a fraction of a second (the paper's Fig. 2 and Fig. 4).
const QUICK: [&str; 2] = [
    "kernel fig2(shared A[]) {\n    local x;\n    x = A[tid + 1];\n    x = x + 1;\n    A[tid] = x;\n}\n",
    "kernel fig4(shared A[], n) {\n    local x;\n    for (i = 0; i < n; i = i + 1) {\n        x = A[tid + 1];\n        \
     x = x + i;\n        A[tid] = x;\n    }\n}\n",
];

/// A folder of two quick files (`a0.kpl`, `a1.kpl`, checked first) and four slow ones:
/// (the folder, each file's name and text).
fn folder() -> (tempfile::TempDir, Vec<(String, String)>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut files: Vec<(String, String)> = QUICK
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("a{i}.kpl"), t.to_string()))
        .collect();
    files.extend((1..=4).map(|n| (format!("s{n}.kpl"), slow(n))));
    for (name, text) in &files {
        write(dir.path(), name, text);
    }
    (dir, files)
}

/// A run of `autosync ARGS` in `dir`, its output read as it comes.
struct Run {
    child: Child,
    out: std::thread::JoinHandle<String>,
    err: std::thread::JoinHandle<String>,
}

fn start(dir: &Path, args: &[&str]) -> Run {
    let mut child = Command::new(bin())
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run autosync");
    let read = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = read(Box::new(child.stdout.take().expect("stdout")));
    let err = read(Box::new(child.stderr.take().expect("stderr")));
    Run { child, out, err }
}

/// What a run did after a signal: its exit code, how long it took to exit after the
/// signal, stdout and stderr.
struct Stopped {
    code: Option<i32>,
    after: Duration,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Sends `signals` (`INT`, `TERM`) one after the other; waits for the exit (at most
    /// 30 s, then kills it).
    fn signal(mut self, signals: &[&str]) -> Stopped {
        let pid = self.child.id().to_string();
        let sent = Instant::now();
        for s in signals {
            let ok = Command::new("kill")
                .args([&format!("-{s}"), &pid])
                .status()
                .expect("run kill");
            assert!(ok.success(), "kill -{s} {pid}");
        }
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s;
            }
            if sent.elapsed() > Duration::from_secs(30) {
                let _ = self.child.kill();
                break self.child.wait().expect("wait");
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let after = sent.elapsed();
        Stopped {
            code: status.code(),
            after,
            stdout: self.out.join().expect("stdout"),
            stderr: self.err.join().expect("stderr"),
        }
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_none()
    }
}

/// Exit 130 within two seconds of the signal (the bound; the run stops within
/// a second).
fn assert_stopped(s: &Stopped) {
    assert_eq!(s.code, Some(130), "stdout:\n{}\nstderr:\n{}", s.stdout, s.stderr);
    assert!(
        s.after < Duration::from_secs(2),
        "exited {:?} after the signal; stderr:\n{}",
        s.after,
        s.stderr
    );
}

/// The text `fix --stdout` makes of `text` (saved as `name`), uninterrupted.
fn fixed(name: &str, text: &str) -> String {
    let (dir, _) = crate::common::dir_with(name, text);
    let o = crate::common::autosync_in(dir.path(), &["fix", "--wrap", "--stdout", name]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("utf-8")
}

/// Runs `fix --wrap .` on the folder, and sends `signals` once a quick file is written
/// and a second has passed; then every file is as it was or as `fix --stdout` makes it,
/// the quick ones fixed and some slow one untouched. The report lists the files fixed,
/// and no temporary file is left.
fn fix_interrupted_by(signals: &[&str]) -> Stopped {
    let (dir, files) = folder();
    let started = Instant::now();
    let mut run = start(dir.path(), &["fix", "--wrap", "."]);
    let quick_left = || {
        QUICK.iter().enumerate().any(|(i, t)| {
            std::fs::read_to_string(dir.path().join(format!("a{i}.kpl"))).is_ok_and(|now| now == *t)
        })
    };
    while started.elapsed() < Duration::from_secs(1)
        || quick_left() && started.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        run.running(),
        "the run ended before the signal: the kernels are not slow enough"
    );
    let stopped = run.signal(signals);
    assert_stopped(&stopped);

    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    expected.sort();
    assert_eq!(
        names, expected,
        "no file but the kernels (no temporary file left)"
    );
    let mut untouched = Vec::new();
    for (name, text) in &files {
        let now = std::fs::read_to_string(dir.path().join(name)).expect("read");
        if now == *text {
            untouched.push(name.clone());
            continue;
        }
        assert_eq!(
            now,
            fixed(name, text),
            "{name} is neither as it was nor completely fixed"
        );
        assert!(
            stopped.stdout.contains(&format!("{name}: written")),
            "a file written is reported: {}",
            stopped.stdout
        );
    }
    assert!(
        !untouched.iter().any(|n| n.starts_with('a')),
        "the quick files were fixed: {untouched:?}"
    );
    assert!(
        untouched.iter().any(|n| n.starts_with('s')),
        "some slow file was not fixed yet"
    );
    for name in &untouched {
        assert!(
            !stopped.stdout.contains(name.as_str()),
            "{name} is not reported: {}",
            stopped.stdout
        );
    }
    // The summary counts the files finished (a second signal exits before it).
    let finished = files.len() - untouched.len();
    assert!(
        signals.len() > 1 || stopped.stdout.contains(&format!("processed {finished} files")),
        "{}",
        stopped.stdout
    );
    stopped
}

#[test]
fn sigint_stops_fix_on_a_folder_leaving_each_file_as_it_was_or_fixed() {
    let s = fix_interrupted_by(&["INT"]);
    // The work came back by itself (the solver queries were interrupted), not through
    // the deadline's exit, which cannot count the files.
    assert!(
        s.stderr
            .contains("autosync: interrupted: 2 of 6 files finished; the 4 others left as they were"),
        "{}",
        s.stderr
    );
}

#[test]
fn sigterm_stops_fix_as_sigint_does() {
    let s = fix_interrupted_by(&["TERM"]);
    assert!(s.stderr.contains("autosync: interrupted:"), "{}", s.stderr);
}

#[test]
fn a_second_sigint_stops_at_once() {
    let s = fix_interrupted_by(&["INT", "INT"]);
    assert!(s.stderr.contains("autosync: interrupted"), "{}", s.stderr);
}

#[test]
fn sigint_stops_check_and_prints_the_files_finished() {
    let (dir, _) = folder();
    let started = Instant::now();
    let mut run = start(dir.path(), &["check", "--wrap", "."]);
    std::thread::sleep(Duration::from_secs(1).saturating_sub(started.elapsed()));
    assert!(
        run.running(),
        "the run ended before the signal: the kernels are not slow enough"
    );
    let s = run.signal(&["INT"]);
    assert_stopped(&s);
    // Each slow file takes seconds: not all were finished, and none is reported racy or
    // verified because its solver queries were interrupted.
    assert!(s.stderr.contains("autosync: interrupted:"), "{}", s.stderr);
    let finished = |name: &str| s.stdout.contains(&format!("{name}: kernel"));
    assert!(!(1..=4).all(|n| finished(&format!("s{n}.kpl"))), "{}", s.stdout);
    assert!(
        s.stdout.contains("checked "),
        "the summary of the files finished: {}",
        s.stdout
    );
}
