//! The static verifier on the AutoSync paper's motivating examples (seed 004, Sec. II)
//! and on Faial's five correctness tests (seed 003, Sec. 7, Claim 1, Figs. 15-16), in
//! their racy and fixed versions. Lines are the lines of the inline sources (the kernel
//! header is line 1).

use crate::common::*;

// ---------------------------------------------------------------- AutoSync, Fig. 2

const FIG2: &str = "kernel fig2(shared A[]) {
    local x;
    x = A[tid + 1];
    x = x + 1;
    A[tid] = x;
}
";

const FIG2_FIXED: &str = "kernel fig2(shared A[]) {
    local x;
    x = A[tid + 1];
    x = x + 1;
    barrier;
    A[tid] = x;
}
";

#[test]
fn fig2_read_write_race_between_lines_1_and_3() {
    let r = check(FIG2);
    assert_eq!(races(&r), [row("A", 3, 5, "read-write", true, &[], true)]);
    assert!(r.divergences.is_empty());
    let w = r.races[0].witness.as_ref().expect("witness");
    // The writer's element is the reader's tid + 1.
    assert_eq!(w.index, Some(w.threads[0].tid[0] as i64 + 1));
    assert_eq!(w.threads[1].tid[0] as i64, w.threads[0].tid[0] as i64 + 1);
}

#[test]
fn fig2_fixed_is_clean() {
    assert!(check(FIG2_FIXED).is_clean());
}

// ---------------------------------------------------------------- AutoSync, Fig. 4

const FIG4: &str = "kernel fig4(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        x = A[tid + 1];
        x = x + i;
        A[tid] = x;
    }
}
";

#[test]
fn fig4_loop_race_is_intra_and_inter_iteration() {
    let r = check(FIG4);
    assert_eq!(races(&r), [row("A", 4, 6, "read-write", true, &[1], true)]);
}

#[test]
fn fig4_red_barrier_alone_leaves_the_inter_iteration_race() {
    let src = FIG4.replace("        x = x + i;\n", "        x = x + i;\n        barrier;\n");
    assert_eq!(
        races(&check(&src)),
        [row("A", 4, 7, "read-write", false, &[1], true)]
    );
}

#[test]
fn fig4_green_barrier_alone_leaves_the_intra_iteration_race() {
    let src = FIG4.replace("i = i + 1) {\n", "i = i + 1) {\n        barrier;\n");
    assert_eq!(
        races(&check(&src)),
        [row("A", 5, 7, "read-write", true, &[], true)]
    );
}

#[test]
fn fig4_fixed_with_both_barriers_is_clean() {
    let src = FIG4
        .replace("i = i + 1) {\n", "i = i + 1) {\n        barrier;\n")
        .replace("        x = x + i;\n", "        x = x + i;\n        barrier;\n");
    let r = check(&src);
    assert!(r.is_clean(), "{:?}", races(&r));
}

// ---------------------------------------------------------------- AutoSync, Fig. 6

const FIG6: &str = "kernel fig6(shared A[]) {
    local x = 0;
    if (tid % 2 == 0) {
        x = A[tid + 2];
    }
    if (tid % 6 == 0) {
        A[tid] = x;
    }
}
";

#[test]
fn fig6_race_between_two_basic_blocks() {
    let r = check(FIG6);
    assert_eq!(races(&r), [row("A", 4, 7, "read-write", true, &[], true)]);
    let w = r.races[0].witness.as_ref().expect("witness");
    assert_eq!(w.threads[0].tid[0] % 2, 0);
    assert_eq!(w.threads[1].tid[0] % 6, 0);
}

#[test]
fn fig6_barriers_inside_the_conditionals_diverge_and_do_not_fix() {
    let in_first = FIG6.replace(
        "        x = A[tid + 2];\n",
        "        x = A[tid + 2];\n        barrier;\n",
    );
    let r = check(&in_first);
    assert_eq!(divergences(&r), [5]);
    // A divergent barrier synchronizes nothing.
    assert_eq!(races(&r), [row("A", 4, 8, "read-write", true, &[], true)]);
    let w = r.divergences[0].witness.as_ref().expect("witness");
    assert_eq!(w.threads[0].tid[0] % 2, 0);
    assert_eq!(w.threads[1].tid[0] % 2, 1);

    let in_second = FIG6.replace(
        "    if (tid % 6 == 0) {\n",
        "    if (tid % 6 == 0) {\n        barrier;\n",
    );
    let r = check(&in_second);
    assert_eq!(divergences(&r), [7]);
}

#[test]
fn fig6_fixed_between_the_conditionals_is_clean() {
    let src = FIG6.replace("    }\n    if (tid % 6", "    }\n    barrier;\n    if (tid % 6");
    let r = check(&src);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), divergences(&r));
}

// ---------------------------------------------------------------- AutoSync, Fig. 7

const FIG7: &str = "kernel fig7(shared A[], shared B[]) {
    local x;
    local y;
    x = A[tid + 1];
    y = B[tid + 1];
    A[tid] = x + y;
    B[tid] = x - y;
}
";

#[test]
fn fig7_two_races_one_barrier() {
    assert_eq!(
        races(&check(FIG7)),
        [
            row("A", 4, 6, "read-write", true, &[], true),
            row("B", 5, 7, "read-write", true, &[], true)
        ]
    );
    let fixed = FIG7.replace("    A[tid] = x + y;\n", "    barrier;\n    A[tid] = x + y;\n");
    assert!(check(&fixed).is_clean());
}

// ---------------------------------------------------------------- Faial, Claim 1

/// Test 1 (Listing 2.1, right): the writes of iteration r + 1 race with the reads of
/// iteration r. The DRF version adds a barrier after the second inner loop.
const FAIAL1: &str = "kernel transpose(shared tile[], N, M) {
    local x;
    for (r = 0; r < N; r = r + 1) {
        for (i = 0; i < M; i = i + 1) {
            tile[tid] = 0;
        }
        barrier;
        for (j = 0; j < M; j = j + 1) {
            x = tile[tid + j];
        }
    }
}
";

#[test]
fn faial_test1_transpose_inter_iteration_race() {
    let r = check(FAIAL1);
    assert_eq!(races(&r), [row("tile", 5, 9, "write-read", false, &[1], true)]);
    let w = r.races[0].witness.as_ref().expect("witness");
    // The write happens in a later iteration of r than the read.
    assert!(w.iterations[0][0] > w.iterations[1][0], "{w:?}");
}

#[test]
fn faial_test1_drf() {
    let src = FAIAL1.replace(
        "            x = tile[tid + j];\n        }\n",
        "            x = tile[tid + j];\n        }\n        barrier;\n",
    );
    assert!(check(&src).is_clean());
}

/// Test 2 (first-iter): the write before the loop races with the loop's write in its
/// first iteration; the DRF version guards that write with `x > 0`.
const FAIAL2: &str = "kernel first_iter(shared A[], N) {
    A[tid + 1] = 0;
    for (x = 0; x < N; x = x + 1) {
        A[tid] = 0;
        barrier;
    }
}
";

#[test]
fn faial_test2_first_iter() {
    assert_eq!(
        races(&check(FAIAL2)),
        [row("A", 2, 4, "write-write", true, &[], true)]
    );
    let drf = FAIAL2.replace(
        "        A[tid] = 0;\n",
        "        if (x > 0) {\n            A[tid] = 0;\n        }\n",
    );
    let r = check(&drf);
    assert!(r.is_clean(), "{:?}", races(&r));
}

/// Test 3 (last-iter): the loop's last `A[tid + 1]` races with the write after the
/// loop; the DRF version synchronizes after the loop.
const FAIAL3: &str = "kernel last_iter(shared A[], N) {
    for (x = 0; x < N; x = x + 1) {
        barrier;
        if (tid < bdim - 1) {
            A[tid + 1] = 0;
        }
        A[tid + bdim] = 0;
    }
    A[tid] = 0;
}
";

#[test]
fn faial_test3_last_iter() {
    assert_eq!(
        races(&check(FAIAL3)),
        [row("A", 5, 9, "write-write", true, &[], true)]
    );
    let drf = FAIAL3.replace(
        "    }\n    A[tid] = 0;\n",
        "    }\n    barrier;\n    A[tid] = 0;\n",
    );
    assert!(check(&drf).is_clean());
}

/// Test 4 (last-iter-first-iter): the last iteration of the `y` loop races with the
/// first iteration of the `z` loop in the same iteration of `x`. In the DRF version the
/// `y` loop synchronizes after its write instead of before.
const FAIAL4: &str = "kernel last_first(shared A[], N) {
    for (x = 1; x < N + 1; x = x + 1) {
        for (y = 1; y < x + 1; y = y + 1) {
            barrier;
            A[tid + x + y] = 0;
        }
        for (z = N * 2; z < N * 3; z = z + 1) {
            A[tid + z + 1] = 0;
            barrier;
        }
    }
}
";

#[test]
fn faial_test4_last_iter_first_iter() {
    let r = check(FAIAL4);
    assert_eq!(races(&r), [row("A", 5, 8, "write-write", true, &[], true)]);
    let w = r.races[0].witness.as_ref().expect("witness");
    // The y loop is in its last iteration (y = x), the z loop in its first.
    assert_eq!(w.iterations[0][0], w.iterations[1][0]);
    assert_eq!(w.iterations[0][1], w.iterations[0][0]);
    assert_eq!(w.iterations[1][1], 0);
    let drf = FAIAL4.replace(
        "            barrier;\n            A[tid + x + y] = 0;\n",
        "            A[tid + x + y] = 0;\n            barrier;\n",
    );
    let r = check(&drf);
    assert!(r.is_clean(), "{:?}", races(&r));
}

/// Test 5 (read-index, Fig. 16). Memory contents are abstract (docs/semantics.md, Values
/// and arithmetic), so the value read into `x` is arbitrary: the racy version is reported
/// with all its races, and the DRF version — which is race-free only because `A[tid]` holds
/// `tid` — is reported racy too. Faial fails this test in the same way (0/1 on both);
/// GPUVerify passes it by tracking array contents. Outcome here: racy version correct, DRF
/// version a false alarm, by design.
const FAIAL5_RACY: &str = "kernel read_index(shared A[]) {
    local x;
    A[tid] = tid;
    x = A[tid];
    A[x + 1] = 0;
}
";

#[test]
fn faial_test5_read_index() {
    let expected = [
        row("A", 3, 5, "write-write", true, &[], true),
        row("A", 4, 5, "read-write", true, &[], true),
        row("A", 5, 5, "write-write", true, &[], true),
    ];
    assert_eq!(races(&check(FAIAL5_RACY)), expected);
    let drf = FAIAL5_RACY.replace("A[x + 1] = 0;", "A[x] = 0;");
    assert_eq!(races(&check(&drf)), expected);
}
