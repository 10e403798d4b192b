//! The solver-free dependence test (`verifier::affine`) must not change any verdict:
//! the same races, with their lines, kinds and depths, with the test on and off, on
//! race-free kernels it proves and on racy twins whose indices look alike but meet;
//! and the interpreter's races are all reported.

use crate::common::{RaceRow, assert_static_covers, kernel, races, row, strict};
use oracle::dynamic::Interpreter;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle};

fn both(src: &str, opts: CheckOptions) -> Vec<RaceRow> {
    let k = kernel(src);
    let run = |on: bool| {
        let mut v = StaticVerifier::new(opts.clone());
        v.dependence_test = on;
        v.check(&k).expect("the verifier answers")
    };
    let (on, off) = (run(true), run(false));
    assert_eq!(
        races(&on),
        races(&off),
        "the dependence test changed the verdict\n{src}"
    );
    if opts.launch.block_dim().is_some() {
        let dy = Interpreter::new(opts).check(&k).expect("the interpreter runs");
        assert_static_covers(&on, &dy, src);
    }
    races(&on)
}

#[test]
fn stripes_of_a_symbolic_block_are_apart() {
    let src = "kernel k(shared A[]) {
  local x;
  x = A[tid + 3 * bdim];
  A[tid + bdim] = x;
  A[tid + 2 * bdim] = x;
}
";
    assert_eq!(both(src, strict()), vec![]);
}

#[test]
fn a_stripe_one_element_off_races() {
    // `tid + bdim + 1` of thread t is `tid + bdim` of thread t + 1.
    let src = "kernel k(shared A[]) {
  local x;
  x = A[tid + bdim + 1];
  A[tid + bdim] = x;
}
";
    assert_eq!(
        both(src, strict()),
        vec![row("A", 3, 4, "read-write", true, &[], true)]
    );
}

#[test]
fn rows_of_a_private_table_and_the_parity_of_an_offset() {
    let src = "kernel k(shared W[]) {
  local a;
  W[tid * 16 + 3] = 1;
  a = W[tid * 16 + 5];
  W[2 * tid] = a;
  a = W[2 * tid + 1];
}
";
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 1, 1])),
            grid: kpl::launch::dims(Some([1, 1, 1])),
            ..(strict()).launch
        },
        ..strict()
    };
    // Only line 3 (`16·t + 3`) and line 6 (`2·t' + 1`) meet: t' = 8t + 1, so t = 0 and
    // t' = 1 in a block of 8. Lines 3/4 differ by 2 in rows of 16, lines 3/5 and 5/6
    // by parity, 4/5 likewise.
    assert_eq!(
        both(src, opts),
        vec![row("W", 3, 6, "write-read", true, &[], true)]
    );
}

#[test]
fn tiles_of_a_fixed_launch_and_their_overlapping_twin() {
    // 8x8 threads, 4x4 blocks: element ((by·8 + ty)·8 + r)·32 + bx·8 + tx for r = 0, 1
    // is one thread's own; with rows of 8 instead of 32, blocks side by side meet.
    let body = |w: u32| {
        format!(
            "kernel k(global O[]) {{
  O[((bid.y * 8 + tid.y) * 2 + 0) * {w} + bid.x * 8 + tid.x] = 1;
  O[((bid.y * 8 + tid.y) * 2 + 1) * {w} + bid.x * 8 + tid.x] = 2;
}}
"
        )
    };
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 8, 1])),
            grid: kpl::launch::dims(Some([4, 4, 1])),
            ..(strict()).launch
        },
        ..strict()
    };
    assert_eq!(both(&body(32), opts.clone()), vec![]);
    let racy = both(&body(8), opts);
    assert!(!racy.is_empty(), "blocks side by side share elements");
}

/// Rows of 9 in shared memory, filled cooperatively: word `q·8 + tid` of the block goes
/// to row `(q·8 + tid) >> 2`, column `(q·8 + tid) & 3`, and each thread then works in
/// its own row from column `first` on. The shift and the mask are not affine; the test
/// takes them as values of their own ranges (`[0, 7]`, `[0, 3]`), which keeps every
/// load apart from columns 4 and up: race-free without a barrier after the load. From
/// column 3 on, a thread reads a word another thread loaded: the racy twin.
fn cooperative_rows(first: u32) -> String {
    let mut body = String::from("  local x;\n");
    for q in 0..4 {
        body.push_str(&format!(
            "  A[(({q} * 8 + tid) >> 2) * 9 + (({q} * 8 + tid) & 3)] = {q};\n"
        ));
    }
    for c in first..first + 3 {
        body.push_str(&format!("  x = A[tid * 9 + {c}];\n  A[tid * 9 + {c} + 1] = x;\n"));
    }
    format!("kernel k(shared A[]) {{\n{body}}}\n")
}

#[test]
fn opaque_shifts_and_masks_of_a_cooperative_load() {
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 1, 1])),
            grid: kpl::launch::dims(Some([2, 1, 1])),
            ..(strict()).launch
        },
        ..strict()
    };
    assert_eq!(both(&cooperative_rows(4), opts.clone()), vec![]);
    // Thread t reads column 3 of its row, which thread 4t + 3 - 8q loaded.
    let racy = both(&cooperative_rows(3), opts);
    assert!(
        racy.iter()
            .any(|r| r.1 <= 6 && r.2 == 7 && r.3 == "write-read" && r.4),
        "{racy:?}"
    );
}

/// An opaque value that two threads share (`tid % 4` of threads 4 apart) is not a
/// stripe of its own: the same index in two threads may meet (while two indices whose
/// ranges of values never overlap stay apart).
#[test]
fn an_opaque_index_is_never_taken_for_injective() {
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 1, 1])),
            ..(strict()).launch
        },
        ..strict()
    };
    let src = "kernel k(shared A[]) {
  A[(tid % 4) * 3 + 1] = tid;
}
";
    assert_eq!(
        both(src, opts.clone()),
        vec![row("A", 2, 2, "write-write", true, &[], true)]
    );
    // `tid - 4·(tid >> 2)`: the id's own coefficient alone would make it a stripe.
    let folded = "kernel k(shared A[]) {
  A[tid - 4 * (tid >> 2)] = tid;
}
";
    assert_eq!(
        both(folded, opts.clone()),
        vec![row("A", 2, 2, "write-write", true, &[], true)]
    );
    let apart = "kernel k(shared A[]) {
  local x;
  x = A[(tid % 4) * 3 + 1];
  A[(tid % 4) * 3 + 2] = x;
}
";
    assert_eq!(
        both(apart, opts),
        vec![row("A", 4, 4, "write-write", true, &[], true)]
    );
}
