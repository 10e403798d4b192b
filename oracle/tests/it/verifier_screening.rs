//! The screening queries (one grouped query per array before the per-pair ones) must
//! not change any verdict: the same races, with and without screening, on kernels large
//! enough to be screened.

use crate::common;

use crate::common::{RaceRow, kernel, permuted, races, row, strict};
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle};

/// Faial's "accesses" pattern with `n` read/write pairs, then `tail` (lines from `2n + 3` on).
fn accesses(space: &str, n: usize, tail: &str) -> String {
    let mut body = String::from("  local x;\n");
    for i in 1..=n {
        body.push_str(&format!("  x = A[tid + {} * bdim];\n", n + i));
        body.push_str(&format!("  A[tid + {i} * bdim] = x;\n"));
    }
    format!("kernel k({space} A[]) {{\n{body}{tail}}}\n")
}

fn both(src: &str, opts: CheckOptions) -> Vec<RaceRow> {
    let k = kernel(src);
    let run = |screening: bool| {
        let mut v = StaticVerifier::new(opts.clone());
        v.screening = screening;
        races(&v.check(&k).expect("the verifier answers"))
    };
    let (on, off) = (run(true), run(false));
    assert_eq!(on, off, "screening changed the verdict\n{src}");
    on
}

#[test]
fn race_free_accesses_stay_race_free() {
    assert_eq!(both(&accesses("shared", 12, ""), strict()), vec![]);
}

#[test]
fn one_racing_pair_among_many_is_still_found() {
    // Line 27: every thread writes A[0], which line 28 reads; the pattern never touches
    // A[0] (its offsets start at `bdim`).
    let src = accesses("shared", 12, "  A[0] = 1;\n  x = A[0];\n");
    assert_eq!(
        both(&src, strict()),
        vec![
            row("A", 27, 27, "write-write", true, &[], true),
            row("A", 27, 28, "write-read", true, &[], true),
        ]
    );
}

#[test]
fn cross_block_races_on_global_memory_are_screened_too() {
    // Every block writes the same elements: unfixable races between blocks.
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([32, 1, 1])),
            grid: kpl::launch::dims(Some([4, 1, 1])),
            ..(strict()).launch
        },
        ..strict()
    };
    let found = both(&accesses("global", 12, ""), opts.clone());
    assert!(!found.is_empty());
    assert!(
        found.iter().all(|r| !r.6),
        "cross-block races are not fixable: {found:?}"
    );
    // Indexing by the global thread id makes every block's range its own.
    let global = accesses("global", 12, "").replace("tid +", "bid * bdim * 100 + tid +");
    assert_eq!(both(&global, opts), vec![]);
}

/// What one verifier says of `kernels` checked in turn (as the synthesizer does), and
/// the arrays it screened.
fn in_turn(kernels: &[kpl::Kernel], screening: bool) -> (Vec<Vec<common::RaceRow>>, Vec<String>) {
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([32, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    };
    let mut v = StaticVerifier::new(opts);
    v.screening = screening;
    // The pairs left to the solver: with the block fixed, the unrolled test
    // (`verifier::unrolled`) would decide them by enumerating the threads.
    v.unrolled_test = false;
    // One thread: when the pairs of one array alternate between two lanes, each lane
    // weighs its own screen on its own pairs (`verifier::lanes`).
    v.lane_min_types = usize::MAX;
    let found = kernels
        .iter()
        .map(|k| races(&v.check(k).expect("the verifier answers")))
        .collect();
    (found, v.screened())
}

#[test]
fn an_array_whose_pairs_mostly_race_is_not_screened() {
    // The race-free shape is worth screening...
    let free = kernel(&permuted(30, false));
    assert_eq!(in_turn(&[free], true), (vec![vec![]], vec!["A".to_string()]));
    // ...its racy twin is not: its first pairs race, and a screen would give up after
    // naming a few. The decision stays for the next check of the same kernel with
    // barriers (after every statement, as the synthesizer inserts them), where a
    // grouped query is harder than the pair queries.
    let racy = kernel(&permuted(30, true));
    let tree = kpl::LabelTree::new(&racy);
    let (synced, _) = kpl::insert_barriers(&racy, &tree, &tree.candidates());
    let kernels = [racy, synced];
    let (found, screened) = in_turn(&kernels, true);
    assert_eq!(screened, Vec::<String>::new());
    assert_eq!(found, in_turn(&kernels, false).0);
    // Line 2i + 1 reads the element that line 2i + 2 writes in another thread.
    for i in 1..=30u32 {
        assert!(
            found[0]
                .iter()
                .any(|r| (r.1, r.2) == (2 * i + 1, 2 * i + 2) && r.3 == "read-write"),
            "pair {i}: {:?}",
            found[0]
        );
    }
    assert_eq!(found[1], vec![]);
}
