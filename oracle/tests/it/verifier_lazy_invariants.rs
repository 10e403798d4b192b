//! Loop invariants are proved lazily (`StaticVerifier::lazy_invariants`, the default): a
//! check first runs without them, and only when it meets a possible defect are they
//! proved and the check run again. These tests pin that this changes no answer: the
//! same races, divergences and notes as proving them first, on kernels that need a
//! generated invariant, on their racy twins, and across the repeated checks of one
//! verifier that the synthesizer makes.

use crate::common::*;
use oracle::verifier::{Limits, StaticVerifier};
use oracle::{Oracle, Report};

/// `x` grows by 1 or 2 depending on the thread: no closed form. The read at
/// `tid + bdim + x` stays above every write at `tid` only because `x ≥ 0`, which the
/// verifier must generate and prove.
const CLIMB: &str = "kernel climb(shared A[], n) {
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
}
";

/// What a report says: races, divergent barriers, notes.
type Answer = (Vec<RaceRow>, Vec<u32>, Vec<String>);

fn answer(r: &Report) -> Answer {
    (races(r), divergences(r), r.notes.clone())
}

fn verifier(lazy: bool) -> StaticVerifier {
    let mut v = StaticVerifier::new(strict());
    v.lazy_invariants = lazy;
    v
}

/// The answer with lazy proofs, asserted equal to the one with eager proofs.
fn lazy_and_eager(src: &str) -> Answer {
    let k = kernel(src);
    let lazy = answer(&verifier(true).check(&k).expect("the verifier answers"));
    let eager = answer(&verifier(false).check(&k).expect("the verifier answers"));
    assert_eq!(lazy, eager, "lazy invariants changed the answer\n{src}");
    lazy
}

#[test]
fn a_kernel_that_needs_a_generated_invariant_still_verifies() {
    assert_eq!(lazy_and_eager(CLIMB), (vec![], vec![], vec![]));
    // It does need one: with no units for invariant proofs, the read may go below.
    let mut none = verifier(true);
    none.limits = Limits {
        invariants: 0,
        ..Limits::DEFAULT
    };
    let r = none.check(&kernel(CLIMB)).expect("the verifier answers");
    assert_eq!(races(&r), [row("A", 13, 14, "write-read", true, &[], true)]);
}

#[test]
fn the_racy_twin_is_still_caught() {
    // A step of -1: `x` goes negative and the read lands on another thread's write.
    let racy = CLIMB.replace("x = x + 2;", "x = x - 1;");
    assert_eq!(
        lazy_and_eager(&racy).0,
        [row("A", 13, 14, "write-read", true, &[], true)]
    );
}

#[test]
fn a_divergent_barrier_after_such_a_loop_is_still_reported() {
    // The invariant says nothing about the guard, which depends on the thread.
    let div = CLIMB.replace(
        "    A[tid] = 1;\n",
        "    if (tid < x) {\n        barrier;\n    }\n    A[tid] = 1;\n",
    );
    let (_, divs, _) = lazy_and_eager(&div);
    assert_eq!(divs, [14]);
}

#[test]
fn repeated_checks_of_one_verifier_answer_as_fresh_ones() {
    // The synthesizer's pattern: the same kernel without, then with, a barrier between
    // the write and the read (`x ≥ 0`, so the read is of another thread's cell), then
    // without again. The verifier keeps its per-kernel answers across these checks.
    let synced = CLIMB.replace("    A[tid] = 1;\n", "    A[tid] = 1;\n    barrier;\n");
    let unsynced = CLIMB.replace("tid + bdim + x", "tid + 1 + x");
    let synced = synced.replace("tid + bdim + x", "tid + 1 + x");
    let mut one = verifier(true);
    for src in [&unsynced, &synced, &unsynced, &synced] {
        let k = kernel(src);
        let again = answer(&one.check(&k).expect("the verifier answers"));
        let fresh = answer(&verifier(false).check(&k).expect("the verifier answers"));
        assert_eq!(again, fresh, "{src}");
    }
    assert_eq!(
        races(&check(&unsynced)),
        [row("A", 13, 14, "write-read", true, &[], true)]
    );
    assert!(check(&synced).is_clean());
}

#[test]
fn loops_that_need_no_invariant_verify_in_both_modes() {
    // Faial's nested loops, synchronized and not: nothing carried matters.
    for barrier in ["", "barrier;"] {
        let mut body = String::new();
        for d in 0..12 {
            body.push_str(&format!(
                "for (i{d} = 0; i{d} < N; i{d} = i{d} + 1) {{ A[tid] = 1; {barrier}\n"
            ));
        }
        body.push_str(&"}".repeat(12));
        let src = format!("kernel nest(shared A[], N) {{\n{body}\n}}\n");
        assert_eq!(lazy_and_eager(&src), (vec![], vec![], vec![]));
    }
}

#[test]
fn an_annotated_invariant_is_always_reported_when_it_fails() {
    // A false `invariant` on a kernel that verifies without it: the note must come
    // whether or not the invariants are needed.
    let src = CLIMB.replace(
        "        if (tid < i) {",
        "        invariant x < 0;\n        if (tid < i) {",
    );
    let (rows, _, notes) = lazy_and_eager(&src);
    assert_eq!(rows, vec![]);
    assert_eq!(
        notes,
        ["line 6: invariant not proved (it does not hold before the first iteration), ignored"]
    );
}
