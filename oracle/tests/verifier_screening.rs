//! The screening queries (one grouped query per array before the per-pair ones) must
//! not change any verdict: the same races, with and without screening, on kernels large
//! enough to be screened.

mod common;

use common::{RaceRow, kernel, races, row, strict};
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
        block_dim: Some([32, 1, 1]),
        grid_dim: Some([4, 1, 1]),
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
