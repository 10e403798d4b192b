//! Benign write-write races (GPUVerify's default, `CheckOptions::no_benign_tolerance`
//! off): two plain writes of one element race only when the values they store may
//! differ. Each kernel is checked with both oracles; the static report is asserted
//! exactly, and the interpreter must agree on which pairs race and which are benign.

use crate::common::*;
use oracle::dynamic::Interpreter;
use oracle::{CheckOptions, Oracle, Report};

fn strict() -> CheckOptions {
    CheckOptions {
        no_benign_tolerance: true,
        ..Default::default()
    }
}

/// (array, first line, second line) of the benign pairs.
fn benign(r: &Report) -> Vec<(String, u32, u32)> {
    r.benign
        .iter()
        .map(|p| (p.array.clone(), p.first.span.line, p.second.span.line))
        .collect()
}

/// The static report and the interpreter's, after checking that the verifier reports
/// every race the interpreter sees.
fn both_with(src: &str, opts: CheckOptions) -> (Report, Report) {
    let stat = check_with(src, opts.clone());
    let dy = Interpreter::new(opts)
        .check(&kernel(src))
        .expect("the interpreter runs");
    assert_static_covers(&stat, &dy, src);
    (stat, dy)
}

fn both(src: &str) -> (Report, Report) {
    both_with(src, CheckOptions::default())
}

fn b(array: &str, first: u32, second: u32) -> (String, u32, u32) {
    (array.to_string(), first, second)
}

const FLAG: &str = "kernel search(global D[], global F[]) {
    local x;
    x = D[bid * bdim + tid];
    if (x > 3) {
        F[0] = 1;
    }
}
";

#[test]
fn every_thread_raising_one_flag_is_benign() {
    let (stat, dy) = both(FLAG);
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert_eq!(benign(&stat), [b("F", 5, 5)]);
    assert!(dy.is_clean());
    assert_eq!(benign(&dy), [b("F", 5, 5)]);
}

#[test]
fn without_tolerance_equal_values_race() {
    let (stat, dy) = both_with(FLAG, strict());
    assert_eq!(races(&stat), [row("F", 5, 5, "write-write", true, &[], false)]);
    assert!(stat.benign.is_empty());
    assert_eq!(races(&dy).len(), 1);
    assert!(dy.benign.is_empty());
}

#[test]
fn values_that_differ_per_thread_race() {
    let (stat, _) = both(&FLAG.replace("F[0] = 1;", "F[0] = tid;"));
    assert_eq!(races(&stat), [row("F", 5, 5, "write-write", true, &[], false)]);
    assert!(stat.benign.is_empty());
    // A value read from memory is an unknown of its own in each thread.
    let (stat, _) = both(&FLAG.replace("F[0] = 1;", "F[0] = x;"));
    assert_eq!(races(&stat), [row("F", 5, 5, "write-write", true, &[], false)]);
}

#[test]
fn uniform_values_from_two_statements_are_benign() {
    let src = "kernel setup(global R[], n) {
    if (tid % 2 == 0) {
        R[0] = n * 2;
    } else {
        R[0] = n + n;
    }
    R[bid + 1] = bdim * bid;
}
";
    let (stat, dy) = both(src);
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert_eq!(
        benign(&stat),
        [b("R", 3, 3), b("R", 3, 5), b("R", 5, 5), b("R", 7, 7)]
    );
    assert!(dy.is_clean());
    // `n + 1` and `n * 2` agree only for n = 1.
    let (stat, _) = both(&src.replace("n + n", "n + 1"));
    assert_eq!(races(&stat), [row("R", 3, 5, "write-write", true, &[], false)]);
}

#[test]
fn a_read_of_the_element_still_races() {
    let src = "kernel vote(shared S[], global O[]) {
    local y;
    if (tid % 2 == 0) {
        S[0] = 1;
    }
    y = S[0];
    O[bid * bdim + tid] = y;
}
";
    let (stat, _) = both(src);
    assert_eq!(races(&stat), [row("S", 4, 6, "write-read", true, &[], true)]);
    assert_eq!(benign(&stat), [b("S", 4, 4)]);
}

#[test]
fn an_atomic_and_a_plain_write_of_equal_values_race() {
    let src = "kernel mark(shared F[]) {
    if (tid == 0) {
        atomic_exch(F[0], 1);
    } else {
        F[0] = 1;
    }
}
";
    let (stat, dy) = both(src);
    assert_eq!(races(&stat), [row("F", 3, 5, "atomic-write", true, &[], true)]);
    assert_eq!(races(&dy), races(&stat));
}

#[test]
fn a_loop_variable_is_equal_within_one_iteration_only() {
    let src = "kernel last(shared A[], n) {
    for (k = 0; k < n; k = k + 1) {
        A[0] = k;
    }
}
";
    let (stat, _) = both(src);
    assert_eq!(races(&stat), [row("A", 3, 3, "write-write", false, &[1], true)]);
    // With a barrier after each write, only the same iteration is left: benign.
    let (stat, dy) = both(&src.replace("A[0] = k;", "A[0] = k;\n        barrier;"));
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert_eq!(benign(&stat), [b("A", 3, 3)]);
    assert!(dy.is_clean());
}

#[test]
fn a_shared_counter_is_one_per_block() {
    // Each block counts in its own `C`: threads of two blocks take the same slot.
    let src = "kernel compact(shared C[], global O[]) {
    local s;
    s = atomic_add(C[0], 1);
    O[s] = bid * bdim + tid;
}
";
    let (stat, dy) = both(src);
    assert_eq!(races(&stat), [row("O", 4, 4, "write-write", true, &[], false)]);
    assert!(!dy.is_clean());
    // Per-block slots in shared memory are private.
    let (stat, dy) = both(&src.replace("global O[]", "shared O[]"));
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert!(dy.is_clean());
}

#[test]
fn counters_set_up_before_their_atomics_stay_counters() {
    let src = "kernel compact(shared C[], shared O[]) {
    local s;
    if (tid == 0) {
        C[0] = 0;
    }
    barrier;
    s = atomic_add(C[0], 1);
    O[s] = tid;
}
";
    let (stat, dy) = both(src);
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert!(dy.is_clean());
    // Without the barrier the set-up races with the atomics, and it may reset the
    // counter between two of them: the slots race too.
    let (stat, _) = both(&src.replace("    barrier;\n", ""));
    assert_eq!(
        races(&stat),
        [
            row("C", 4, 6, "write-atomic", true, &[], true),
            row("O", 7, 7, "write-write", true, &[], true)
        ]
    );
    // A global counter set up by one thread is not ordered with other blocks' atomics.
    let (stat, _) = both(
        &src.replace("shared C[]", "global C[]")
            .replace("tid == 0", "tid == 0 && bid == 0"),
    );
    assert!(
        races(&stat).contains(&row("O", 8, 8, "write-write", true, &[], true)),
        "{:?}",
        races(&stat)
    );
    // A reset after the atomics repeats slots.
    let reset = "kernel compact(shared C[], shared O[]) {
    local s;
    s = atomic_add(C[0], 1);
    barrier;
    if (tid == 0) {
        C[0] = 0;
    }
    barrier;
    s = atomic_add(C[0], 1);
    O[s] = tid;
}
";
    let (stat, _) = both(reset);
    assert_eq!(races(&stat), [row("O", 10, 10, "write-write", true, &[], true)]);
}

#[test]
fn atomic_inc_with_the_largest_bound_is_a_counter() {
    let src = "kernel tickets(global C[], global O[]) {
    local s;
    s = atomic_inc(C[0], 4294967295);
    O[s] = bid * bdim + tid;
}
";
    let (stat, dy) = both(src);
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert!(dy.is_clean());
    // A small bound wraps: slots repeat.
    let (stat, dy) = both(&src.replace("4294967295", "3"));
    assert_eq!(races(&stat), [row("O", 4, 4, "write-write", true, &[], false)]);
    assert!(!dy.is_clean());
    // Mixed with adds, the counter could be carried past the bound.
    let mixed = src.replace("    O[s]", "    atomic_add(C[0], 2);\n    O[s]");
    let (stat, _) = both(&mixed);
    assert_eq!(races(&stat), [row("O", 5, 5, "write-write", true, &[], false)]);
}

#[test]
fn unsigned_conversions_of_amounts_are_never_negative() {
    // `u8(x)` of an arbitrary read is a count in 0..=255 (an `unsigned char` element).
    let src = "kernel claim(global L[], global C[], global O[]) {
    local n;
    local p;
    n = L[bid * bdim + tid];
    n = u8(n);
    p = atomic_add(C[0], n);
    for (j = 0; j < n; j = j + 1) {
        O[p + j] = tid;
    }
}
";
    let (stat, dy) = both(src);
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert!(dy.is_clean());
    // An untyped read may be negative: slots are given back.
    let (stat, _) = both(&src.replace("    n = u8(n);\n", ""));
    assert_eq!(races(&stat), [row("O", 7, 7, "write-write", true, &[1], false)]);
}

/// The default options on a launch of `block` threads (warps of 32) and `grid` blocks.
fn tolerant(block: u32, grid: u32) -> CheckOptions {
    CheckOptions {
        no_benign_tolerance: false,
        ..launch(block, grid)
    }
}

const WARP_SLOT: &str = "kernel sums(shared S[], global O[]) {
    local x;
    warp_havoc x;
    S[tid / 32] = x;
    barrier;
    if (tid == 0) {
        x = S[1];
        O[bid] = x;
    }
}
";

#[test]
fn the_lanes_of_a_warp_store_its_one_collective_value_benignly() {
    let (stat, dy) = both_with(WARP_SLOT, tolerant(64, 2));
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert_eq!(benign(&stat), [b("S", 4, 4)]);
    assert!(dy.is_clean());
    // A value of each thread's own is no longer equal across the lanes.
    let (stat, _) = both_with(&WARP_SLOT.replace("warp_havoc x;", "havoc x;"), tolerant(64, 2));
    assert_eq!(races(&stat), [row("S", 4, 4, "write-write", true, &[], true)]);
}

#[test]
fn warps_and_blocks_have_collective_values_of_their_own() {
    // Two warps of one block store into one slot.
    let one_slot = WARP_SLOT.replace("S[tid / 32] = x;", "S[0] = x;");
    let (stat, _) = both_with(&one_slot, tolerant(64, 1));
    assert_eq!(races(&stat), [row("S", 4, 4, "write-write", true, &[], true)]);
    // Warp 0 of every block stores into one global element.
    let global = "kernel sums(global O[]) {
    local x;
    warp_havoc x;
    if (tid < 32) {
        O[0] = x;
    }
}
";
    let (stat, _) = both_with(global, tolerant(64, 2));
    assert_eq!(races(&stat), [row("O", 5, 5, "write-write", true, &[], false)]);
    // In one block, only warp 0 stores: its lanes agree.
    let (stat, dy) = both_with(global, tolerant(64, 1));
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert!(dy.is_clean());
}

#[test]
fn each_execution_of_a_collective_is_a_value_of_its_own() {
    // The lanes agree within one iteration; iteration 1's value differs from
    // iteration 0's, and the lanes of one warp are in the same iteration.
    let src = "kernel sums(shared S[], global O[]) {
    local x;
    for (k = 0; k < 2; k = k + 1) {
        warp_havoc x;
        S[tid / 32 + 2 * k] = x;
    }
    barrier;
    if (tid == 0) {
        x = S[3];
        O[bid] = x;
    }
}
";
    let (stat, dy) = both_with(src, tolerant(64, 2));
    assert!(stat.is_clean(), "{:?}", races(&stat));
    assert!(dy.is_clean());
    let (stat, _) = both_with(&src.replace("tid / 32 + 2 * k", "tid / 32"), tolerant(64, 2));
    assert_eq!(races(&stat), [row("S", 5, 5, "write-write", false, &[1], true)]);
}
