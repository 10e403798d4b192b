//! The dependence test on unrolled loops (`verifier::unrolled`,
//! `StaticVerifier::unrolled_test`). It only ever stands in for an unsatisfiable race
//! query within a block, so each test pins that the answers (races with lines, kinds,
//! types and fixability, divergences, notes) are the solver's, on race-free kernels
//! where the test decides and on racy twins whose same-iteration race it must leave to
//! the solver; and that the test did decide where it should.

use crate::common::*;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle, Report};

/// Answers of one check: races, divergences, notes.
type Answer = (Vec<RaceRow>, Vec<u32>, Vec<String>);

fn answer(r: &Report) -> Answer {
    (races(r), divergences(r), r.notes.clone())
}

fn options(block: u32) -> CheckOptions {
    CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([block, 1, 1])),
            grid: kpl::launch::dims(Some([2, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    }
}

/// The answers to `kernels` in turn (one verifier, as the synthesizer checks one
/// kernel again and again) with the unrolled test, asserted equal to the solver's
/// alone; with what the test ruled out in each check (`StaticVerifier::unrolled`).
fn both(opts: &CheckOptions, kernels: &[kpl::Kernel]) -> Vec<(Answer, (usize, usize))> {
    let run = |on: bool| {
        let mut v = StaticVerifier::new(opts.clone());
        v.unrolled_test = on;
        v.concrete_after = usize::MAX;
        kernels
            .iter()
            .map(|k| {
                let r = v.check(k).expect("the verifier answers");
                (answer(&r), v.unrolled())
            })
            .collect::<Vec<_>>()
    };
    let (with, without) = (run(true), run(false));
    for ((a, _), (b, off)) in with.iter().zip(&without) {
        assert_eq!(a, b, "the unrolled test changed an answer");
        assert_eq!(*off, (0, 0), "the test ran while switched off");
    }
    with
}

/// `race` is among the races of `answer`.
fn assert_reported(answer: &Answer, race: RaceRow) {
    assert!(answer.0.contains(&race), "{race:?} not in {answer:?}");
}

/// Odd-even merge sort (two comparators per stage: the first at the outer level, the
/// others in a halving loop guarded by `offset >= stride`), with its barriers.
const ODD_EVEN: &str = "kernel oem(shared K[]) {
    local a;
    local b;
    local off;
    local st;
    for (size = 2; size <= 2 * bdim; size = size << 1) {
        st = size >> 1;
        off = tid & (st - 1);
        a = K[2 * tid - (tid & (st - 1))];
        b = K[2 * tid - (tid & (st - 1)) + st];
        if (a > b) {
            K[2 * tid - (tid & (st - 1))] = b;
            K[2 * tid - (tid & (st - 1)) + st] = a;
        }
        barrier;
        for (s = size >> 2; s > 0; s = s >> 1) {
            if (off >= s) {
                a = K[2 * tid - (tid & (s - 1)) - s];
                b = K[2 * tid - (tid & (s - 1))];
                if (a > b) {
                    K[2 * tid - (tid & (s - 1)) - s] = b;
                    K[2 * tid - (tid & (s - 1))] = a;
                }
            }
            barrier;
        }
    }
}
";

#[test]
fn a_merge_network_stage_is_a_permutation_at_every_stride() {
    let found = both(&options(16), &[kernel(ODD_EVEN)]);
    assert_eq!(found[0].0, (vec![], vec![], vec![]));
    // Stripped of its barriers: every pair races across iterations, and the first
    // comparator with the inner ones within one iteration of the size loop, but no two
    // threads of one comparator meet (the pairs of each statement with itself and its
    // mate are apart).
    let bare = kernel(ODD_EVEN).without_movable_barriers();
    let found = both(&options(16), std::slice::from_ref(&bare));
    let (rows, _, _) = &found[0].0;
    assert!(!rows.is_empty());
    let (apart, _) = found[0].1;
    assert!(apart >= 8, "pairs apart: {apart}");
    for r in rows {
        // Lines 9-13 are the first comparator, 18-22 the inner one.
        let first = |l: u32| (9..=13).contains(&l);
        if first(r.1) == first(r.2) && r.1 != r.2 {
            assert!(!r.4, "same-iteration race within one comparator: {r:?}");
        }
    }
}

#[test]
fn a_merge_network_with_a_shifted_mate_races_within_a_stage() {
    // The inner comparator's first element one too far: two threads of one stage
    // meet (`2t − (t & (s−1)) − s + 1` of one is `2t' − (t' & (s−1))` of another).
    let racy = ODD_EVEN.replace("(s - 1)) - s]", "(s - 1)) - s + 1]");
    assert_ne!(racy, ODD_EVEN);
    let found = both(&options(16), &[kernel(&racy)]);
    let (rows, _, _) = &found[0].0;
    assert!(
        rows.iter().any(|r| r.1 >= 18 && r.2 >= 18 && r.4),
        "no same-iteration race in the inner comparator: {rows:?}"
    );
}

/// Bitonic sort with the XOR partner: only the thread with the smaller id of each
/// pair swaps, so no two threads of one stage touch one element.
const BITONIC_XOR: &str = "kernel bx(shared K[]) {
    local a;
    local b;
    local p;
    for (k = 2; k <= bdim; k = k * 2) {
        for (j = k / 2; j > 0; j = j >> 1) {
            p = tid ^ j;
            if (p > tid) {
                a = K[tid];
                b = K[p];
                if (a > b) {
                    K[tid] = b;
                    K[p] = a;
                }
            }
            barrier;
        }
    }
}
";

#[test]
fn xor_partners_where_the_smaller_id_swaps_never_meet() {
    let found = both(&options(32), &[kernel(BITONIC_XOR)]);
    assert_eq!(found[0].0, (vec![], vec![], vec![]));
    let bare = kernel(BITONIC_XOR).without_movable_barriers();
    let found = both(&options(32), std::slice::from_ref(&bare));
    let (rows, _, _) = &found[0].0;
    assert!(!rows.is_empty() && rows.iter().all(|r| !r.4), "{rows:?}");
    // The five pairs the index alone does not set apart (`K[tid]` with itself is).
    assert_eq!(found[0].1, (5, 0));
    // Both partners swapping: they meet within one stage.
    let racy = BITONIC_XOR.replace("if (p > tid) {", "if (p != tid) {");
    let found = both(&options(32), &[kernel(&racy)]);
    let (rows, _, _) = &found[0].0;
    assert!(rows.iter().any(|r| r.4), "no same-iteration race: {rows:?}");
}

/// A tree reduction: the predicate `tid < s` keeps the readers of `tid + s` apart from
/// the writers.
const REDUCE: &str = "kernel red(shared S[], global out[]) {
    local v;
    local w;
    S[tid] = tid;
    barrier;
    for (s = bdim / 2; s > 0; s = s >> 1) {
        if (tid < s) {
            v = S[tid + s];
            w = S[tid];
            S[tid] = w + v;
        }
        barrier;
    }
    if (tid == 0) {
        v = S[0];
        out[bid] = v;
    }
}
";

#[test]
fn a_reduction_stage_reads_what_no_thread_of_it_writes() {
    let found = both(&options(64), &[kernel(REDUCE)]);
    assert_eq!(found[0].0, (vec![], vec![], vec![]));
    let bare = kernel(REDUCE).without_movable_barriers();
    let found = both(&options(64), std::slice::from_ref(&bare));
    assert!(found[0].1.0 >= 2, "pairs apart: {:?}", found[0].1);
    // One reader too many: thread `s` writes `S[s]`, which thread 0 reads.
    let racy = REDUCE.replace("if (tid < s) {", "if (tid <= s) {");
    let found = both(&options(64), &[kernel(&racy)]);
    assert_reported(&found[0].0, row("S", 8, 10, "read-write", true, &[], true));
}

/// A write at the outer level and reads in an inner loop of the same iteration, with a
/// barrier only at the end of each inner iteration: at the inner loop's first
/// iteration each thread reads its own element, at the later ones another's, after a
/// barrier. No static barrier lies between the write and the reads, but at every
/// meeting the threads have passed different numbers of barriers.
const INNER_BARRIERS: &str = "kernel ib(shared A[], global out[]) {
    local x;
    for (k = 0; k < 4; k = k + 1) {
        barrier;
        A[tid] = k + x;
        for (j = 0; j < 3; j = j + 1) {
            x = A[(tid + j) % bdim];
            barrier;
        }
    }
    out[bid * bdim + tid] = x;
}
";

#[test]
fn barriers_passed_in_an_inner_loop_separate_the_meetings() {
    let found = both(&options(8), &[kernel(INNER_BARRIERS)]);
    assert_eq!(found[0].0, (vec![], vec![], vec![]));
    // The write with itself is apart by its index alone (`tid`, no test needed).
    assert_eq!(found[0].1, (0, 1), "the write and the read separated");
    // Reading the neighbour already in the first inner iteration: a race in the same
    // iteration of `k` that no barrier orders.
    let racy = INNER_BARRIERS.replace("(tid + j) % bdim", "(tid + j + 1) % bdim");
    let found = both(&options(8), &[kernel(&racy)]);
    assert_eq!(
        found[0].0.0,
        vec![row("A", 5, 7, "write-read", true, &[], true)],
        "{:?}",
        found[0].0
    );
    assert_eq!(found[0].1, (0, 0));
}

#[test]
fn the_synthesizers_checks_of_one_kernel_keep_the_solvers_answers() {
    // The kernel stripped, with a barrier after every candidate, and after every
    // other one, checked by one verifier in turn (its cache kept across the checks).
    for src in [ODD_EVEN, BITONIC_XOR, REDUCE, INNER_BARRIERS] {
        let bare = kernel(src).without_movable_barriers();
        let tree = kpl::LabelTree::new(&bare);
        let all = tree.candidates();
        let (every, _) = kpl::insert_barriers(&bare, &tree, &all);
        let odd: Vec<kpl::Label> = all.iter().copied().step_by(2).collect();
        let (half, _) = kpl::insert_barriers(&bare, &tree, &odd);
        let found = both(&options(16), &[bare, every, half]);
        assert!(
            found.iter().any(|(_, (apart, separated))| apart + separated > 0),
            "{src}"
        );
    }
}

#[test]
fn no_test_without_a_fixed_block() {
    let mut v = StaticVerifier::new(CheckOptions::default());
    v.check(&kernel(REDUCE)).expect("the verifier answers");
    assert_eq!(v.unrolled(), (0, 0));
}

#[test]
fn a_meeting_only_at_the_last_iteration_is_a_race() {
    // The halving loop's last stride (its guard is false next) lets every thread in.
    let racy = REDUCE.replace("if (tid < s) {", "if (tid < s || s == 1) {");
    let found = both(&options(64), &[kernel(&racy)]);
    assert_reported(&found[0].0, row("S", 8, 10, "read-write", true, &[], true));
    // The last of a constant number of iterations.
    let src = "kernel last(shared S[], global out[]) {
    local v;
    for (i = 0; i < 4; i = i + 1) {
        if (i == 3) {
            v = S[tid + 1];
        }
        S[tid] = v + i;
    }
    out[bid * bdim + tid] = v;
}
";
    let found = both(&options(16), &[kernel(src)]);
    assert_eq!(found[0].0.0, vec![row("S", 5, 7, "read-write", true, &[1], true)]);
    let apart = src.replace("if (i == 3) {", "if (i == 4) {");
    let found = both(&options(16), &[kernel(&apart)]);
    assert_eq!(found[0].0.0, vec![]);
    // The read never runs: all three race types of the pair are apart.
    assert_eq!(found[0].1, (3, 0));
}

#[test]
fn a_meeting_at_the_last_iteration_of_an_inner_loop_is_a_race() {
    // The inner loop's trip count depends on the outer iteration: its iterations come
    // from its guard, up to the first that is false.
    let src = "kernel tri(shared S[], global out[]) {
    local v;
    for (k = 1; k <= 8; k = k * 2) {
        for (s = k; s > 0; s = s >> 1) {
            if (tid < s || s == 1) {
                v = S[tid + s];
                S[tid] = v;
            }
            barrier;
        }
    }
    out[bid * bdim + tid] = v;
}
";
    let found = both(&options(16), &[kernel(src)]);
    assert_eq!(found[0].0.0, vec![row("S", 6, 7, "read-write", true, &[], true)]);
    let apart = src.replace("if (tid < s || s == 1) {", "if (tid < s) {");
    let found = both(&options(16), &[kernel(&apart)]);
    assert_eq!(found[0].0.0, vec![]);
    // `S[t + s]` with `t < s` is `S[t']` with `t' < s'` only for `s' > s`: never at
    // the same stride. Types across iterations the barrier always separates are not
    // enumerated.
    assert_eq!(found[0].1, (1, 0));
    // Stripped of its barrier, also not when the read's stride comes first in the
    // inner loop (larger); the types that meet race, in their direction: the write at
    // a larger stride (an earlier inner iteration) than the read.
    let bare = kernel(&apart).without_movable_barriers();
    let found = both(&options(16), std::slice::from_ref(&bare));
    assert_eq!(
        found[0].0.0,
        vec![row("S", 6, 7, "read-write", false, &[1, 2], true)]
    );
    assert_eq!(found[0].1, (2, 0));
}

#[test]
fn two_threads_of_one_access_on_an_element_a_third_reads() {
    // Threads 0 and 1 write `S[0]`; thread 0 reads it: thread 1's write races with
    // thread 0's read (and the writes with each other).
    let src = "kernel half(shared S[], global out[]) {
    local v;
    S[tid / 2] = tid;
    if (tid == 0) {
        v = S[tid];
    }
    out[bid * bdim + tid] = v;
}
";
    let found = both(&options(8), &[kernel(src)]);
    assert_eq!(
        found[0].0.0,
        vec![
            row("S", 3, 3, "write-write", true, &[], true),
            row("S", 3, 5, "write-read", true, &[], true),
        ]
    );
}

#[test]
fn every_dimension_of_the_launch_counts() {
    // The kernel names x only, the launch has two rows: threads of one column collide.
    let src = "kernel k(shared A[]) {
    A[tid] = 0;
}
";
    let two_rows = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([4, 2, 1])),
            grid: kpl::launch::dims(Some([1, 1, 1])),
            ..(strict()).launch
        },
        // Equal values stored are a race too.
        ..strict()
    };
    let found = both(&two_rows, &[kernel(src)]);
    assert_eq!(found[0].0.0, vec![row("A", 2, 2, "write-write", true, &[], true)]);
    // A tile written by rows and read by columns in one iteration: threads meet (a
    // race in the same iteration), and a diagonal-free twin reads its own element.
    let tile = "kernel t(shared T[], global out[]) {
    local v;
    for (i = 0; i < 2; i = i + 1) {
        T[tid.y * 8 + tid.x] = i;
        v = T[tid.x * 8 + tid.y];
        out[(bid * 64 + tid.y * 8 + tid.x) * 2 + i] = v;
    }
}
";
    let square = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 8, 1])),
            grid: kpl::launch::dims(Some([2, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    };
    let found = both(&square, &[kernel(tile)]);
    assert_reported(&found[0].0, row("T", 4, 5, "write-read", true, &[1], true));
    let own = tile.replace("T[tid.x * 8 + tid.y]", "T[tid.y * 8 + tid.x]");
    let found = both(&square, &[kernel(&own)]);
    assert!(found[0].0.0.iter().all(|r| !r.4), "{:?}", found[0].0);
}

/// A block-stride loop (`p = tid; p < 40; p += bdim`): with 16 threads, threads 0-7
/// run three iterations and the others two, so its writes end at element 39, which a
/// write after it (no barrier between) must not touch.
const STRIDED: &str = "kernel gs(shared S[], global inp[], global out[]) {
    local v;
    for (p = tid; p < 40; p = p + bdim) {
        v = inp[p];
        S[p] = v;
    }
    S[40 + tid] = v;
    barrier;
    v = S[55 - tid];
    out[bid * bdim + tid] = v;
}
";

#[test]
fn a_block_stride_loop_runs_each_threads_own_iterations() {
    let found = both(&options(16), &[kernel(STRIDED)]);
    assert_eq!(found[0].0, (vec![], vec![], vec![]));
    // Apart: the loop's writes with themselves (in one iteration and across two),
    // with the write after the loop, and with the read (`S[55 - tid]` is in 40..=55);
    // separated by the barrier: the write after the loop and the read.
    assert_eq!(found[0].1, (4, 1));
    // One element lower: thread 7's last iteration writes `S[39]`, as thread 0 after
    // the loop.
    let racy = STRIDED.replace("S[40 + tid]", "S[39 + tid]");
    let found = both(&options(16), &[kernel(&racy)]);
    assert_eq!(found[0].0.0, vec![row("S", 5, 7, "write-write", true, &[], true)]);
}

/// Kernels of a soundness review: barriers the count must not rely on.
#[test]
fn barriers_not_every_thread_runs_separate_nothing() {
    // A barrier in a loop inside a condition on a parameter: with `n ≤ 5` nothing
    // separates the write from the neighbour's read.
    let param = "kernel h1(shared A[], global out[], n) {
    local x;
    A[tid] = tid;
    if (n > 5) {
        for (j = 0; j < 1; j = j + 1) {
            barrier;
        }
    }
    x = A[tid + 1];
    out[tid] = x;
}
";
    let one_block = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([32, 1, 1])),
            grid: kpl::launch::dims(Some([1, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    };
    let found = both(&one_block, &[kernel(param)]);
    assert_eq!(found[0].0.0, vec![row("A", 3, 9, "write-read", true, &[], true)]);
    // The same inside a loop, on its iteration: no barrier at `i = 0`.
    let first = "kernel h1b(shared A[], global out[]) {
    local x;
    for (i = 0; i < 4; i = i + 1) {
        A[tid] = i;
        if (i > 0) {
            for (j = 0; j < 1; j = j + 1) {
                barrier;
            }
        }
        x = A[tid + 1];
        barrier;
    }
    out[tid] = x;
}
";
    let found = both(&one_block, &[kernel(first)]);
    assert_reported(&found[0].0, row("A", 4, 10, "write-read", true, &[], true));
    // From `i = 1` on every thread passes the inner barrier: separated there, and the
    // twin whose write starts at `i = 1` is race-free.
    let later = first.replace("A[tid] = i;", "if (i > 0) {\n            A[tid] = i;\n        }");
    let found = both(&one_block, &[kernel(&later)]);
    assert_eq!(found[0].0, (vec![], vec![], vec![]));
    // A divergent barrier (half the block) synchronizes nothing: at `i = 0` only it
    // lies between threads 15 and 16.
    let divergent = "kernel h2c(shared A[], global out[]) {
    local x;
    for (i = 0; i < 2; i = i + 1) {
        A[tid] = i;
        for (j = 0; j < i; j = j + 1) {
            barrier;
        }
        if (tid < 16) {
            for (m = 0; m < 1; m = m + 1) {
                barrier;
            }
        }
        x = A[tid + 1];
        barrier;
    }
    out[tid] = x;
}
";
    let found = both(&one_block, &[kernel(divergent)]);
    assert_reported(&found[0].0, row("A", 4, 13, "write-read", true, &[], true));
    assert_eq!(found[0].0.1, vec![10]);
}

#[test]
fn a_shift_by_an_unknown_amount_is_not_shared() {
    // `1 << n` for `n` past the width is arbitrary, and may differ between threads in
    // the queries: the test leaves the pair to the solver.
    let src = "kernel sh(shared A[], n) {
    A[2 * tid + (1 << n)] = tid;
}
";
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([32, 1, 1])),
            grid: kpl::launch::dims(Some([1, 1, 1])),
            ..(strict()).launch
        },
        ..strict()
    };
    let found = both(&opts, &[kernel(src)]);
    assert_eq!(found[0].1, (0, 0));
}
