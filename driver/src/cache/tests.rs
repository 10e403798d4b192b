//! The cache in front of an oracle whose answers depend on what it was asked before
//! about the same kernel (as the static verifier's may): answered from the cache, every
//! sequence of checks gets exactly the answers a run without the cache gets.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;
use std::rc::Rc;

use super::*;

/// Answers with how many checks of the kernel (up to barriers) it has seen in a row,
/// and logs the kernels it was asked about.
struct Counting {
    last: Option<Kernel>,
    count: usize,
    log: Rc<RefCell<Vec<String>>>,
}

impl Oracle for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }

    fn check(&mut self, k: &Kernel) -> Result<Report, OracleError> {
        let base = k.without_any_barriers();
        if self.last.as_ref() != Some(&base) {
            self.last = Some(base);
            self.count = 0;
        }
        self.count += 1;
        self.log
            .borrow_mut()
            .push(format!("{}/{}", k.name, k.barrier_count()));
        Ok(Report {
            notes: vec![format!(
                "{} with {} barriers: check {} of it",
                k.name,
                k.barrier_count(),
                self.count
            )],
            ..Report::default()
        })
    }
}

const A: &str = "kernel a(shared A[]) {\n    local x;\n    x = A[tid + 1];\n    A[tid] = x;\n}\n";
const B: &str = "kernel b(shared B[]) {\n    B[tid] = 1;\n}\n";

/// `a` with barriers after its first `n` statements (as a synthesis places them), or `b`.
fn kernel(name: &str, n: usize) -> Kernel {
    let k = kpl::parse(if name == "a" { A } else { B })
        .expect("parses")
        .remove(0);
    let tree = LabelTree::new(&k);
    let after: Vec<Label> = tree.candidates().into_iter().take(n).collect();
    kpl::insert_barriers(&k, &tree, &after).0
}

/// The checks of a synthesis of `a` interleaved with `b`: `a` comes back after `b`.
fn sequence() -> Vec<Kernel> {
    vec![
        kernel("a", 0),
        kernel("a", 1),
        kernel("b", 0),
        kernel("a", 0),
        kernel("a", 2),
    ]
}

/// The answers (notes) of `checks` by one oracle, through the cache in `dir` when
/// given; with the kernels the oracle behind was asked about, and the cache's counts.
fn run(dir: Option<&Path>, config: &str, checks: &[Kernel]) -> (Vec<String>, Vec<String>, Counts) {
    let log = Rc::new(RefCell::new(Vec::new()));
    let make = {
        let log = Rc::clone(&log);
        move || -> Box<dyn Oracle> {
            Box::new(Counting {
                last: None,
                count: 0,
                log: Rc::clone(&log),
            })
        }
    };
    let cache = dir.map(|d| Arc::new(ResultCache::for_build(d, "test build").expect("cache")));
    let mut oracle: Box<dyn Oracle> = match &cache {
        Some(c) => Box::new(CachedOracle::new(Arc::clone(c), &config, Box::new(make))),
        None => make(),
    };
    let answers = checks
        .iter()
        .map(|k| oracle.check(k).expect("answers").notes.concat())
        .collect();
    let counts = cache.map(|c| c.counts()).unwrap_or_default();
    let asked = log.borrow().clone();
    (answers, asked, counts)
}

/// The entries of a cache folder (paths relative to it).
fn entries(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for sub in std::fs::read_dir(dir).expect("cache folder").flatten() {
        for e in std::fs::read_dir(sub.path()).expect("entry folder").flatten() {
            out.insert(e.path().strip_prefix(dir).expect("inside").to_path_buf());
        }
    }
    out
}

fn counts(hits: usize, misses: usize) -> Counts {
    Counts {
        hits,
        misses,
        ..Counts::default()
    }
}

#[test]
fn a_warm_run_asks_nothing_and_answers_as_a_run_without_the_cache() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (plain, _, _) = run(None, "c", &sequence());
    assert_eq!(plain[1], "a with 1 barriers: check 2 of it");
    assert_eq!(
        plain[3], "a with 0 barriers: check 1 of it",
        "after b, a starts afresh"
    );
    let (cold, asked, n) = run(Some(dir.path()), "c", &sequence());
    // The first check of `a` after `b` is the same entry as the first before it: a
    // hit, which the oracle behind is asked again before the next miss.
    assert_eq!((cold, n), (plain.clone(), counts(1, 4)));
    assert_eq!(asked, ["a/0", "a/1", "b/0", "a/0", "a/2"]);
    assert_eq!(entries(dir.path()).len(), 4);
    let (warm, asked, n) = run(Some(dir.path()), "c", &sequence());
    assert_eq!((warm, n), (plain, counts(5, 0)));
    assert!(asked.is_empty(), "{asked:?}");
}

#[test]
fn a_miss_after_hits_is_answered_as_without_the_cache() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (plain, _, _) = run(None, "c", &sequence());
    run(Some(dir.path()), "c", &sequence());
    // The entry of the second check (`a` with one barrier, after `a` alone).
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    run(Some(one.path()), "c", &sequence()[..1]);
    run(Some(two.path()), "c", &sequence()[..2]);
    let second: Vec<PathBuf> = entries(two.path())
        .difference(&entries(one.path()))
        .cloned()
        .collect();
    assert_eq!(second.len(), 1);
    std::fs::remove_file(dir.path().join(&second[0])).unwrap();
    let (warm, asked, n) = run(Some(dir.path()), "c", &sequence());
    assert_eq!((warm, n), (plain, counts(4, 1)));
    // The oracle behind is asked the hit before the miss first.
    assert_eq!(asked, ["a/0", "a/1"]);
    // A kernel the oracle behind saw before another one is asked afresh: `a` after
    // `b`, when only its second check is missing.
    let checks = [kernel("a", 0), kernel("b", 0), kernel("a", 0), kernel("a", 2)];
    let (plain, _, _) = run(None, "c", &checks);
    let dir = tempfile::tempdir().unwrap();
    run(Some(dir.path()), "c", &checks[..3]);
    let (answers, asked, n) = run(Some(dir.path()), "c", &checks);
    assert_eq!((answers, n), (plain, counts(3, 1)));
    assert_eq!(asked, ["a/0", "a/2"]);
}

#[test]
fn configurations_and_builds_are_apart_and_bad_entries_are_misses() {
    let dir = tempfile::tempdir().expect("temp dir");
    let checks = [kernel("a", 0), kernel("b", 0)];
    run(Some(dir.path()), "c", &checks);
    assert_eq!(run(Some(dir.path()), "other", &checks).2, counts(0, 2));
    assert_eq!(run(Some(dir.path()), "c", &checks).2, counts(2, 0));
    let other_build = ResultCache::for_build(dir.path(), "another build").unwrap();
    let mut o = CachedOracle::new(
        Arc::new(other_build),
        &"c",
        Box::new(|| -> Box<dyn Oracle> {
            Box::new(Counting {
                last: None,
                count: 0,
                log: Rc::default(),
            })
        }),
    );
    let _ = o.check(&checks[0]);
    assert_eq!(o.cache.counts(), counts(0, 1));
    // Garbage, an entry of another key, an empty file: misses, written again.
    let all: Vec<PathBuf> = entries(dir.path()).into_iter().collect();
    let bytes: Vec<Vec<u8>> = all
        .iter()
        .map(|p| std::fs::read(dir.path().join(p)).unwrap())
        .collect();
    for (i, p) in all.iter().enumerate() {
        let bad = match i % 3 {
            0 => b"{not json".to_vec(),
            1 => bytes[(i + 1) % bytes.len()].clone(),
            _ => Vec::new(),
        };
        std::fs::write(dir.path().join(p), bad).unwrap();
    }
    let (plain, _, _) = run(None, "c", &checks);
    let (answers, _, n) = run(Some(dir.path()), "c", &checks);
    assert_eq!((answers, n), (plain.clone(), counts(0, 2)));
    assert_eq!(run(Some(dir.path()), "c", &checks), (plain, vec![], counts(2, 0)));
}

#[test]
fn an_entry_that_cannot_be_written_is_counted_and_the_answer_still_given() {
    let dir = tempfile::tempdir().expect("temp dir");
    let checks = [kernel("a", 0)];
    run(Some(dir.path()), "c", &checks);
    // Its folder is a file now.
    let entry = entries(dir.path()).into_iter().next().unwrap();
    let folder = dir.path().join(entry.parent().unwrap());
    std::fs::remove_dir_all(&folder).unwrap();
    std::fs::write(&folder, "").unwrap();
    let (plain, _, _) = run(None, "c", &checks);
    let (answers, _, n) = run(Some(dir.path()), "c", &checks);
    assert_eq!(answers, plain);
    assert_eq!((n.hits, n.misses, n.unstored), (0, 1, 1));
    assert!(n.store_error.is_some_and(|e| e.contains("cannot create")));
}

#[test]
fn the_build_is_the_running_executable() {
    let id = build_id().expect("readable");
    let (version, hash) = id.split_once(' ').expect("version and hash");
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    assert_eq!(hash.len(), 64);
    assert_eq!(build_id(), Ok(id.clone()), "read once");
}
