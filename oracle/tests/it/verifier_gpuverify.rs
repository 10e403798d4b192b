//! The static verifier on the GPUVerify tutorial's examples (seed 001): add_nbor and its
//! barrier fix, the two divergence kernels, the stride and slice loops (which GPUVerify
//! needs loop invariants for; the closed forms of the loop variables suffice here).

use crate::common::*;

const ADD_NBOR: &str = "kernel add_nbor(shared A[], offset) {
    local a;
    local b;
    a = A[tid];
    b = A[tid + offset];
    A[tid] = a + b;
}
";

#[test]
fn add_nbor_races() {
    let r = check(ADD_NBOR);
    assert_eq!(races(&r), [row("A", 5, 6, "read-write", true, &[], true)]);
    let w = r.races[0].witness.as_ref().expect("witness");
    let offset = w.params.iter().find(|(n, _)| n == "offset").map(|(_, v)| *v);
    assert_eq!(
        Some(w.threads[1].tid[0] as i64 - w.threads[0].tid[0] as i64),
        offset
    );
}

#[test]
fn add_nbor_with_offset_zero_is_clean() {
    let mut opts = strict();
    opts.launch.params.insert("offset".into(), 0);
    assert!(check_with(ADD_NBOR, opts).is_clean());
    let src = ADD_NBOR.replace(
        "kernel add_nbor(shared A[], offset) {",
        "kernel add_nbor(shared A[], offset) requires offset == 0 {",
    );
    assert!(check(&src).is_clean());
}

#[test]
fn add_nbor_fixed_with_a_barrier() {
    let fixed = "kernel add_nbor(shared A[], offset) {
    local tmp;
    local a;
    tmp = A[tid + offset];
    barrier;
    a = A[tid];
    A[tid] = a + tmp;
}
";
    assert!(check(fixed).is_clean());
}

#[test]
fn diverge1_both_barriers_diverge() {
    let src = "kernel diverge1() {
    if (tid == 0) {
        barrier;
    } else {
        barrier;
    }
}
";
    let r = check(src);
    assert_eq!(divergences(&r), [3, 5]);
    let w = r.divergences[0].witness.as_ref().expect("witness");
    assert_eq!(w.threads[0].tid[0], 0);
    assert_ne!(w.threads[1].tid[0], 0);
}

#[test]
fn diverge1_is_fine_with_one_thread_per_block() {
    let src = "kernel diverge1() {
    if (tid == 0) {
        barrier;
    } else {
        barrier;
    }
}
";
    assert!(check_with(src, launch(1, 4)).is_clean());
}

#[test]
fn diverge2_loops_with_thread_dependent_trip_counts() {
    let src = "kernel diverge2() {
    local x = 1;
    local y = 4;
    if (tid == 0) {
        x = 4;
        y = 1;
    }
    for (i = 0; i < x; i = i + 1) {
        for (j = 0; j < y; j = j + 1) {
            barrier;
        }
    }
}
";
    let r = check(src);
    assert_eq!(divergences(&r), [10]);
    let w = r.divergences[0].witness.as_ref().expect("witness");
    // Only thread 0 takes other trip counts, so a faithful witness names it; since the
    // merge of loop invariants and grid barriers the symbolic launch's model sometimes
    // names two other threads (issue #14 note: witness quality, not the verdict).
    assert_ne!(w.threads[0], w.threads[1], "{w:?}");
}

const STRIDE: &str = "kernel stride(shared A[], n) {
    for (i = tid; i < n; i = i + bdim) {
        A[i] = 0;
    }
}
";

#[test]
fn stride_loop_is_race_free() {
    let r = check(STRIDE);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    assert!(check_with(STRIDE, launch(256, 1)).is_clean());
}

#[test]
fn stride_with_a_smaller_step_races_across_iterations() {
    let src = STRIDE.replace("i = i + bdim", "i = i + bdim - 1");
    let r = check(&src);
    assert_eq!(races(&r), [row("A", 3, 3, "write-write", false, &[1], true)]);
}

const SLICE: &str = "kernel slice(shared A[], m) {
    for (i = 0; i < m; i = i + 1) {
        A[tid * m + i] = 0;
    }
}
";

#[test]
fn slice_loop_is_race_free() {
    let r = check(SLICE);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
}

/// With `m = 0` all threads write `A[0]` in the same iteration.
#[test]
fn slice_overlapping_by_one_races() {
    let src = SLICE.replace("i < m;", "i < m + 1;");
    let r = check(&src);
    assert_eq!(races(&r), [row("A", 3, 3, "write-write", true, &[1], true)]);
}
