//! Race queries on two threads, one per group of arrays (`StaticVerifier::lane_min_types`,
//! `verifier::lanes`). These tests pin that the second lane changes no answer: the same
//! races (lines, types, fixability), divergences and notes as one thread, on kernels
//! whose second lane needs the loop invariants (proved after a first pass that met a
//! defect), across the repeated checks of one verifier that the synthesizer makes, and
//! the same witnesses from one run to the next.

use crate::common::*;
use oracle::verifier::StaticVerifier;
use oracle::{Oracle, Report};

/// `B` takes the most race types (four racing writes), so it is the first lane's and `A`
/// the second's. `A` is race-free only because `x ≥ 0`, a loop invariant the check proves
/// after its first pass met `B`'s races: the second lane must use it.
const CLIMB_AND_CLASH: &str = "kernel k(shared A[], shared B[], n) {
    local x = 0;
    local i = 0;
    local v;
    while (i < n) {
        if (tid < i) {
            x = x + 1;
        } else {
            x = x + 2;
        }
        i = i + 1;
    }
    A[tid] = 1;
    v = A[tid + bdim + x];
    B[0] = tid;
    B[1] = tid;
    v = B[1];
    B[2] = v;
}
";

/// Twins over two arrays: `shift` makes every read of `A` one element past the write of
/// its pair (another thread's), and `B`'s reads race when `racy_b`.
fn two_arrays(n: usize, shift: bool, racy_b: bool) -> String {
    let mut body = String::from("  local x;\n");
    for i in 1..=n {
        let a = if shift {
            format!("{i} * bdim + 1")
        } else {
            format!("{} * bdim", n + i)
        };
        let b = if racy_b {
            format!("{i} * bdim + 2")
        } else {
            format!("{} * bdim", n + i)
        };
        body.push_str(&format!("  x = A[(tid * 3) % bdim + {a}];\n"));
        body.push_str(&format!("  A[(tid * 3) % bdim + {i} * bdim] = x;\n"));
        body.push_str(&format!("  x = B[(tid * 5) % bdim + {b}];\n"));
        body.push_str(&format!("  B[(tid * 5) % bdim + {i} * bdim] = x;\n"));
    }
    format!("kernel k(shared A[], shared B[]) {{\n{body}}}\n")
}

type Answer = (Vec<RaceRow>, Vec<u32>, Vec<String>);

fn answer(r: &Report) -> Answer {
    (races(r), divergences(r), r.notes.clone())
}

fn verifier(lanes: bool) -> StaticVerifier {
    // 32 threads: `(tid * 3) % bdim` and `(tid * 5) % bdim` are permutations.
    let opts = oracle::CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([32, 1, 1])),
            ..(strict()).launch
        },
        ..strict()
    };
    let mut v = StaticVerifier::new(opts);
    v.lane_min_types = if lanes { 0 } else { usize::MAX };
    v
}

/// The answers of one verifier to `kernels` in turn, asserted equal with and without the
/// second lane.
fn both(kernels: &[kpl::Kernel]) -> Vec<Answer> {
    let run = |lanes: bool| {
        let mut v = verifier(lanes);
        kernels
            .iter()
            .map(|k| answer(&v.check(k).expect("the verifier answers")))
            .collect::<Vec<_>>()
    };
    let (two, one) = (run(true), run(false));
    assert_eq!(two, one, "the second lane changed an answer");
    two
}

#[test]
fn the_second_lane_uses_the_proved_loop_invariants() {
    let found = both(&[kernel(CLIMB_AND_CLASH)]);
    let clash = vec![
        row("B", 15, 15, "write-write", true, &[], true),
        row("B", 16, 16, "write-write", true, &[], true),
        row("B", 16, 17, "write-read", true, &[], true),
        row("B", 18, 18, "write-write", true, &[], true),
    ];
    assert_eq!(found[0], (clash, vec![], vec![]));
    // The racy twin (a step of -1 takes `x` below 0) is caught in the second lane.
    let racy = CLIMB_AND_CLASH.replace("x = x + 1;", "x = x - 1;");
    let found = both(&[kernel(&racy)]);
    assert!(
        found[0]
            .0
            .contains(&row("A", 13, 14, "write-read", true, &[], true)),
        "{:?}",
        found[0].0
    );
}

#[test]
fn repeated_checks_with_barriers_answer_as_one_thread() {
    // The synthesizer's pattern: the kernel without barriers, then with barriers after
    // every statement (the same statement ids), then after the reads only.
    for (shift, racy_b) in [(true, true), (true, false), (false, true), (false, false)] {
        let bare = kernel(&two_arrays(8, shift, racy_b));
        let tree = kpl::LabelTree::new(&bare);
        let all = tree.candidates();
        let (every, _) = kpl::insert_barriers(&bare, &tree, &all);
        let reads: Vec<kpl::Label> = all.iter().copied().step_by(2).collect();
        let (half, _) = kpl::insert_barriers(&bare, &tree, &reads);
        let found = both(&[bare, every, half]);
        assert_eq!(
            found[0].0.iter().any(|r| r.0 == "A"),
            shift,
            "{shift} {racy_b}: {:?}",
            found[0].0
        );
        assert_eq!(
            found[0].0.iter().any(|r| r.0 == "B"),
            racy_b,
            "{shift} {racy_b}: {:?}",
            found[0].0
        );
        assert_eq!(found[1], (vec![], vec![], vec![]));
    }
}

#[test]
fn witnesses_are_the_same_from_one_run_to_the_next() {
    let k = kernel(&two_arrays(8, true, true));
    let witnesses = || {
        let r = verifier(true).check(&k).expect("the verifier answers");
        r.races
            .iter()
            .map(|x| format!("{:?}", x.witness))
            .collect::<Vec<_>>()
    };
    let first = witnesses();
    assert!(!first.is_empty());
    for _ in 0..3 {
        assert_eq!(witnesses(), first);
    }
}

#[test]
fn the_pairs_of_one_array_alternate_between_the_lanes() {
    for shift in [true, false] {
        let bare = kernel(&permuted(12, shift));
        let tree = kpl::LabelTree::new(&bare);
        let reads: Vec<kpl::Label> = tree.candidates().into_iter().step_by(2).collect();
        let (synced, _) = kpl::insert_barriers(&bare, &tree, &reads);
        let found = both(&[bare, synced]);
        // Line 2i + 1 reads the element line 2i + 2 writes in another thread.
        let reads_ahead = (1..=12u32).all(|i| {
            found[0]
                .0
                .iter()
                .any(|r| (r.1, r.2) == (2 * i + 1, 2 * i + 2) && r.3 == "read-write")
        });
        assert_eq!(reads_ahead, shift, "{:?}", found[0].0);
        assert_eq!(found[1], (vec![], vec![], vec![]));
    }
}
