//! Preconditions over the inputs and over two threads (GPUVerify's `__requires` with
//! `__other_int`, `__implies`, `__uniform_int`, `__distinct_int`): KPL's `assume` with
//! `other(e)` holds for every ordered pair of distinct threads that reach it, and a read
//! of a global array the kernel never writes is one function of its index for the whole
//! launch (the deviations "Two-thread assumptions" and "Input arrays" in
//! `verifier/deviations.rs`). Every kernel has a twin whose precondition is too weak (or
//! missing), whose race must still be reported; static reports are asserted exactly and
//! must cover what the interpreter observes.

use crate::common::*;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle, OracleError, Report};

fn both_with(src: &str, opts: CheckOptions) -> Report {
    static_covering_dynamic(src, opts)
}

fn both(src: &str) -> Report {
    both_with(src, launch(4, 2))
}

/// Stream compaction: the input is an exclusive prefix sum of 0/1 flags, so a thread
/// with a smaller global index ends its slot before the other's begins.
const COMPACT: &str = "kernel compact(global pos[], global keep[], global out[]) {
    local g = bid * bdim + tid;
    local p;
    p = pos[g];
    local k;
    k = keep[g];
    assume !(g < other(g)) || p + k <= other(p);
    if (k == 1) {
        out[p] = g;
    }
}
";

#[test]
fn a_monotone_prefix_sum_keeps_compacted_writes_apart() {
    assert!(both(COMPACT).is_clean());
    assert!(check(COMPACT).is_clean());
}

#[test]
fn a_prefix_sum_that_may_stay_flat_lets_two_writes_meet() {
    // Only `p <= other(p)`: two kept elements may share a slot, in one block or two.
    let weak = COMPACT.replace("p + k <= other(p)", "p <= other(p)");
    let r = both(&weak);
    assert_eq!(races(&r), [row("out", 9, 9, "write-write", true, &[], false)]);
    // Without the precondition at all, likewise.
    let none = COMPACT.replace("    assume !(g < other(g)) || p + k <= other(p);\n", "");
    assert_eq!(
        races(&both(&none)),
        [row("out", 8, 8, "write-write", true, &[], false)]
    );
    // A decreasing prefix sum keeps them apart too; an assumption for one order only
    // (`g < other(g) && ...`) holds for no pair, since it must hold in both orders.
    let reversed = COMPACT.replace("!(g < other(g))", "!(g > other(g))");
    assert!(check(&reversed).is_clean());
    let one_sided = COMPACT.replace("!(g < other(g)) ||", "g < other(g) &&");
    assert!(matches!(
        StaticVerifier::new(strict()).check(&kernel(&one_sided)),
        Err(OracleError::NoFeasibleRun(_))
    ));
}

#[test]
fn two_thread_preconditions_that_never_hold_are_an_error() {
    // `p < other(p)` for every ordered pair: both `p0 < p1` and `p1 < p0`.
    let src = "kernel k(global P[], global A[]) {
    local p;
    p = P[tid];
    assume p < other(p);
    A[p] = 1;
}
";
    match StaticVerifier::new(strict()).check(&kernel(src)) {
        Err(OracleError::NoFeasibleRun(why)) => assert!(why.contains("can never hold"), "{why}"),
        other => panic!("expected an error, got {other:?}"),
    }
    // `distinct` is satisfiable: the same kernel with `!=` verifies.
    let ok = src.replace("p < other(p)", "p != other(p)");
    assert!(both(&ok).is_clean());
    // A single-thread contradiction among the reads is an error too.
    let single = src.replace("p < other(p)", "p > 3 && p < 2");
    assert!(matches!(
        StaticVerifier::new(strict()).check(&kernel(&single)),
        Err(OracleError::NoFeasibleRun(_))
    ));
}

/// A per-thread round count that the caller makes uniform.
const ROUNDS: &str = "kernel rounds(global R[], shared S[]) {
    local n;
    n = R[tid];
    assume n == other(n);
    if (n > 0) {
        S[tid] = 1;
        barrier;
        local x;
        x = S[(tid + 1) % bdim];
    }
}
";

#[test]
fn a_uniform_input_keeps_a_guarded_barrier_convergent() {
    let r = both(ROUNDS);
    assert!(r.is_clean(), "{r:?}");
    let free = ROUNDS.replace("    assume n == other(n);\n", "");
    let r = both(&free);
    assert_eq!(divergences(&r), [6]);
}

#[test]
fn deviation_reads_of_a_never_written_array_are_a_function_of_the_index() {
    // Two index terms for one element (value numbering would not equate them): the
    // values are equal, so the branch is dead; `O[a]` races between threads with equal
    // entries.
    let src = "kernel k(global I[], global O[]) {
    local a;
    a = I[tid];
    local b;
    b = I[tid * 2 / 2];
    O[a] = 1;
    if (a != b) {
        O[tid] = 2;
    }
}
";
    let lines =
        |r: &Report| -> Vec<(String, u32, u32)> { races(r).into_iter().map(|x| (x.0, x.1, x.2)).collect() };
    assert_eq!(lines(&both(src)), [("O".to_string(), 6, 6)]);
    // Distinct entries: no race at all.
    let distinct = src.replace("    local b;\n", "    assume a != other(a);\n    local b;\n");
    assert!(both(&distinct).is_clean());
    // Once the kernel writes `I`, or updates it atomically, two reads of one element may
    // differ: the branch is live and `O[tid]` races with `O[a]`.
    for update in ["    I[7] = 3;\n", "    atomic_add(I[7], 1);\n"] {
        let written = src.replace("    O[a] = 1;\n", &format!("{update}    O[a] = 1;\n"));
        let r = both(&written);
        assert!(
            lines(&r).contains(&("O".to_string(), 7, 9)),
            "{update}: {:?}",
            lines(&r)
        );
    }
}

#[test]
fn deviation_other_inside_a_loop_is_arbitrary() {
    // Inside a loop the two threads of a query may be at different iterations: the
    // assumption relates nothing, and the race stays.
    let src = "kernel k(global P[], global A[]) {
    for (i = 0; i < 2; i = i + 1) {
        local p;
        p = P[tid + i];
        assume p != other(p);
        A[p] = 1;
    }
}
";
    let r = both(src);
    assert!(races(&r).iter().any(|x| x.0 == "A"), "{r:?}");
}
