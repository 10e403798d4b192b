//! The dynamic SDV interpreter on the AutoSync paper's examples and on each rule of the
//! semantics (docs/semantics.md). Kernels are written in `.kpl`; line 1 is the kernel
//! header.

use std::collections::BTreeMap;

use kpl::Arith;
use oracle::dynamic::{DynamicConfig, Interpreter};
use oracle::{CheckOptions, Oracle, OracleError, Race, Report, ThreadId};

fn kernel(src: &str) -> kpl::Kernel {
    kpl::parse(src).expect("test kernels parse").remove(0)
}

fn check_with(src: &str, opts: CheckOptions) -> Report {
    Interpreter::new(opts)
        .check(&kernel(src))
        .expect("check succeeds")
}

fn check(src: &str) -> Report {
    check_with(src, CheckOptions::default())
}

fn fixed(params: &[(&str, i64)]) -> CheckOptions {
    CheckOptions {
        launch: kpl::Launch {
            params: params
                .iter()
                .map(|(n, v)| (n.to_string(), *v))
                .collect::<BTreeMap<_, _>>(),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    }
}

/// A race as the tests compare it: array, lines of the two accesses, kind, intra,
/// inter depths, fixable.
type R = (String, u32, u32, String, bool, Vec<usize>, bool);

fn summary(r: &Race) -> R {
    (
        r.array.clone(),
        r.first.span.line,
        r.second.span.line,
        r.kind(),
        r.intra,
        r.inter.clone(),
        r.fixable,
    )
}

fn races(rep: &Report) -> Vec<R> {
    rep.races.iter().map(summary).collect()
}

fn race(array: &str, first: u32, second: u32, kind: &str, intra: bool, inter: &[usize], fixable: bool) -> R {
    (
        array.into(),
        first,
        second,
        kind.into(),
        intra,
        inter.to_vec(),
        fixable,
    )
}

fn divergence_lines(rep: &Report) -> Vec<u32> {
    rep.divergences.iter().map(|d| d.span.line).collect()
}

fn thread(tid: u32, bid: u32) -> ThreadId {
    ThreadId {
        tid: [tid, 0, 0],
        bid: [bid, 0, 0],
    }
}

// ---------------------------------------------------------------- the paper's figures

const FIG2: &str = "kernel fig2(shared A[]) {
    local x;
    x = A[tid + 1];
    A[tid] = x;
}";

#[test]
fn fig2_read_write_race_within_straight_line_code() {
    let rep = check(FIG2);
    assert_eq!(races(&rep), [race("A", 3, 4, "read-write", true, &[], true)]);
    assert!(rep.divergences.is_empty());
    let w = rep.races[0].witness.as_ref().expect("witness");
    // Thread 0 reads A[1], then thread 1 writes it, in the first launch tried.
    assert_eq!(w.threads, [thread(0, 0), thread(1, 0)]);
    assert_eq!(w.index, Some(1));
    assert_eq!(w.iterations, [vec![], vec![]]);
    assert_eq!((w.block_dim, w.grid_dim), ([2, 1, 1], [1, 1, 1]));
}

#[test]
fn fig2_with_a_barrier_is_clean() {
    let rep = check(
        "kernel fig2(shared A[]) {
    local x;
    x = A[tid + 1];
    barrier;
    A[tid] = x;
}",
    );
    assert!(rep.is_clean(), "{rep:?}");
    assert!(rep.notes.is_empty(), "{:?}", rep.notes);
}

#[test]
fn fig4_loop_race_is_intra_and_inter_iteration() {
    let rep = check(
        "kernel fig4(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        x = A[tid + 1];
        x = x + i;
        A[tid] = x;
    }
}",
    );
    assert_eq!(races(&rep), [race("A", 4, 6, "read-write", true, &[1], true)]);
}

#[test]
fn fig4_with_the_red_barrier_only_still_races_across_iterations() {
    let rep = check(
        "kernel fig4(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        x = A[tid + 1];
        x = x + i;
        barrier;
        A[tid] = x;
    }
}",
    );
    assert_eq!(races(&rep), [race("A", 4, 7, "read-write", false, &[1], true)]);
    let w = rep.races[0].witness.as_ref().expect("witness");
    // The read is in a later iteration than the write it races with.
    assert!(w.iterations[0][0] > w.iterations[1][0], "{w:?}");
}

#[test]
fn fig4_with_both_barriers_is_clean() {
    let rep = check(
        "kernel fig4(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        barrier;
        x = A[tid + 1];
        x = x + i;
        barrier;
        A[tid] = x;
    }
}",
    );
    assert!(rep.is_clean(), "{rep:?}");
}

#[test]
fn fig6_race_between_two_conditionals() {
    let rep = check(
        "kernel fig6(shared A[]) {
    local x = 0;
    if (tid % 2 == 0) {
        x = A[tid + 2];
    }
    if (tid % 6 == 0) {
        A[tid] = x;
    }
}",
    );
    assert_eq!(races(&rep), [race("A", 4, 7, "read-write", true, &[], true)]);
    // Thread 4 reads A[6], thread 6 writes it: only blocks of 8 threads show it.
    let w = rep.races[0].witness.as_ref().expect("witness");
    assert_eq!(w.threads, [thread(4, 0), thread(6, 0)]);
    assert_eq!(w.block_dim, [8, 1, 1]);
}

#[test]
fn fig6_barrier_inside_the_conditional_diverges() {
    let rep = check(
        "kernel fig6(shared A[]) {
    local x = 0;
    if (tid % 2 == 0) {
        x = A[tid + 2];
        barrier;
    }
    if (tid % 6 == 0) {
        A[tid] = x;
    }
}",
    );
    assert_eq!(divergence_lines(&rep), [5]);
    let w = rep.divergences[0].witness.as_ref().expect("witness");
    assert_eq!(
        w.threads,
        [thread(0, 0), thread(1, 0)],
        "one enabled, one disabled"
    );
    // A divergent barrier synchronizes nothing: the race stays.
    assert_eq!(races(&rep), [race("A", 4, 8, "read-write", true, &[], true)]);
}

#[test]
fn fig6_barrier_between_the_conditionals_is_clean() {
    let rep = check(
        "kernel fig6(shared A[]) {
    local x = 0;
    if (tid % 2 == 0) {
        x = A[tid + 2];
    }
    barrier;
    if (tid % 6 == 0) {
        A[tid] = x;
    }
}",
    );
    assert!(rep.is_clean(), "{rep:?}");
}

#[test]
fn fig7_two_races() {
    let rep = check(
        "kernel fig7(shared A[], shared B[]) {
    local x;
    local y;
    x = A[tid + 1];
    y = B[tid + 1];
    A[tid] = x + y;
    B[tid] = x - y;
}",
    );
    assert_eq!(
        races(&rep),
        [
            race("A", 4, 6, "read-write", true, &[], true),
            race("B", 5, 7, "read-write", true, &[], true),
        ]
    );
}

#[test]
fn nested_loops_race_across_inner_iterations_only() {
    let rep = check(
        "kernel nested(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        barrier;
        for (j = 0; j < n; j = j + 1) {
            x = A[tid + 1];
            A[tid] = x;
        }
    }
}",
    );
    assert_eq!(races(&rep), [race("A", 6, 7, "read-write", true, &[2], true)]);
    let w = rep.races[0].witness.as_ref().expect("witness");
    assert_eq!(w.iterations[0].len(), 2, "one counter per enclosing loop");
}

#[test]
fn nested_loops_without_barrier_race_at_both_depths() {
    let rep = check(
        "kernel nested(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        for (j = 0; j < n; j = j + 1) {
            x = A[tid + 1];
            A[tid] = x;
        }
    }
}",
    );
    assert_eq!(races(&rep), [race("A", 5, 6, "read-write", true, &[1, 2], true)]);
}

// ---------------------------------------------------------------- races

#[test]
fn self_race() {
    let rep = check(
        "kernel k(shared A[]) {
    A[0] = tid;
}",
    );
    assert_eq!(races(&rep), [race("A", 2, 2, "write-write", true, &[], true)]);
    assert!(rep.races[0].is_self_race());
    let w = rep.races[0].witness.as_ref().expect("witness");
    assert_ne!(w.threads[0], w.threads[1]);
}

#[test]
fn else_branch_races_with_then_branch() {
    let rep = check(
        "kernel k(shared A[]) {
    local x;
    if (tid == 0) {
        A[0] = 1;
    } else {
        x = A[0];
    }
}",
    );
    assert_eq!(races(&rep), [race("A", 4, 6, "write-read", true, &[], true)]);
}

#[test]
fn two_dimensional_blocks() {
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([2, 2, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    };
    let rep = check_with(
        "kernel k(shared A[]) {
    A[tid.x] = tid.y;
}",
        opts,
    );
    assert_eq!(races(&rep), [race("A", 2, 2, "write-write", true, &[], true)]);
    let w = rep.races[0].witness.as_ref().expect("witness");
    assert_eq!(w.threads[0].tid[0], w.threads[1].tid[0]);
    assert_ne!(w.threads[0].tid[1], w.threads[1].tid[1]);
}

#[test]
fn global_race_across_blocks_is_not_fixable() {
    let rep = check(
        "kernel k(global G[]) {
    G[tid] = bid;
}",
    );
    assert_eq!(races(&rep), [race("G", 2, 2, "write-write", true, &[], false)]);
    let w = rep.races[0].witness.as_ref().expect("witness");
    assert_eq!(w.threads[0].tid, w.threads[1].tid);
    assert_ne!(w.threads[0].bid, w.threads[1].bid);
}

#[test]
fn shared_memory_is_per_block() {
    let rep = check(
        "kernel k(shared S[]) {
    S[tid] = bid;
}",
    );
    assert!(rep.is_clean(), "{rep:?}");
}

#[test]
fn global_race_within_one_block_is_fixable_and_a_barrier_orders_it() {
    let one_block = CheckOptions {
        launch: kpl::Launch {
            grid: kpl::launch::dims(Some([1, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    };
    let src = "kernel k(global G[]) {
    local x;
    x = G[bid * bdim + tid + 1];
    G[bid * bdim + tid] = x;
}";
    assert_eq!(
        races(&check_with(src, one_block.clone())),
        [race("G", 3, 4, "read-write", true, &[], true)]
    );
    let fenced = "kernel k(global G[]) {
    local x;
    x = G[bid * bdim + tid + 1];
    barrier;
    G[bid * bdim + tid] = x;
}";
    assert!(check_with(fenced, one_block).is_clean());
    // With two blocks, the last thread of block 0 still reads what thread 0 of block 1
    // writes, and no barrier can order them.
    let rep = check_with(
        fenced,
        CheckOptions {
            launch: kpl::Launch {
                grid: kpl::launch::dims(Some([2, 1, 1])),
                ..kpl::Launch::default()
            },
            ..CheckOptions::default()
        },
    );
    assert_eq!(races(&rep), [race("G", 3, 5, "read-write", true, &[], false)]);
}

#[test]
fn atomics_do_not_race_with_atomics() {
    let rep = check(
        "kernel k(shared A[], global G[]) {
    local old;
    atomic_add(A[0], 1);
    old = atomic_add(G[0], tid);
}",
    );
    assert!(rep.is_clean(), "{rep:?}");
}

#[test]
fn atomics_race_with_plain_accesses() {
    let rep = check(
        "kernel k(shared A[]) {
    local x;
    atomic_add(A[0], 1);
    x = A[0];
    A[1] = tid;
    atomic_max(A[1], 3);
}",
    );
    assert_eq!(
        races(&rep),
        [
            race("A", 3, 4, "atomic-read", true, &[], true),
            race("A", 5, 5, "write-write", true, &[], true),
            race("A", 5, 6, "write-atomic", true, &[], true),
        ]
    );
}

#[test]
fn atomic_returns_the_old_value_in_thread_order() {
    // The counter hands out distinct slots, so every thread writes its own element.
    let rep = check(
        "kernel k(shared C[], shared B[]) {
    local slot;
    slot = atomic_add(C[bdim], 1);
    B[slot] = tid;
}",
    );
    assert!(rep.is_clean(), "{rep:?}");
}

// ---------------------------------------------------------------- divergence

#[test]
fn barrier_after_a_thread_dependent_return_diverges() {
    let rep = check(
        "kernel k(shared A[]) {
    if (tid == 0) {
        return;
    }
    barrier;
}",
    );
    assert_eq!(divergence_lines(&rep), [5]);
    let w = rep.divergences[0].witness.as_ref().expect("witness");
    assert_eq!(w.threads, [thread(1, 0), thread(0, 0)]);
}

#[test]
fn uniform_return_under_requires_does_not_diverge() {
    let guarded = "kernel k(shared A[], n) requires n >= bdim {
    if (tid > n) {
        return;
    }
    barrier;
}";
    assert!(check(guarded).is_clean());
    let unguarded = "kernel k(shared A[], n) {
    if (tid > n) {
        return;
    }
    barrier;
}";
    assert_eq!(divergence_lines(&check(unguarded)), [5]);
}

#[test]
fn barrier_after_loop_left_by_break_at_different_times_is_fine() {
    let rep = check(
        "kernel k(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        if (i == tid) {
            break;
        }
        A[tid] = i;
    }
    barrier;
    x = A[tid + 1];
}",
    );
    assert!(rep.is_clean(), "{rep:?}");
}

#[test]
fn barrier_in_a_loop_with_thread_dependent_trip_count_diverges() {
    let rep = check(
        "kernel k(shared A[]) {
    for (i = 0; i < tid; i = i + 1) {
        barrier;
    }
}",
    );
    assert_eq!(divergence_lines(&rep), [3]);
    let w = rep.divergences[0].witness.as_ref().expect("witness");
    assert_eq!(w.iterations, [vec![0], vec![0]]);
}

#[test]
fn barrier_after_continue_diverges_and_continued_threads_step() {
    let rep = check(
        "kernel k(shared A[], n) {
    for (i = 0; i < n; i = i + 1) {
        if (tid == 0) {
            continue;
        }
        barrier;
    }
}",
    );
    assert_eq!(divergence_lines(&rep), [6]);
    // The step runs for threads that continued: the loop ends, no bound is reached.
    let rep = check(
        "kernel k(shared A[]) {
    for (i = 0; i < 3; i = i + 1) {
        if (tid == 0) {
            continue;
        }
    }
    barrier;
    A[tid] = 1;
}",
    );
    assert!(rep.is_clean() && rep.notes.is_empty(), "{rep:?}");
}

#[test]
fn break_and_return_disable_accesses() {
    let rep = check(
        "kernel k(shared A[]) {
    for (i = 0; i < 2; i = i + 1) {
        if (tid != 0) {
            break;
        }
        A[0] = tid;
    }
    if (tid != 1) {
        return;
    }
    A[1] = tid;
}",
    );
    assert!(rep.is_clean(), "{rep:?}");
}

// ---------------------------------------------------------------- runs and parameters

#[test]
fn params_can_be_fixed() {
    let src = "kernel k(shared A[], n) {
    if (n == 3) {
        A[0] = tid;
    }
}";
    assert_eq!(races(&check(src)).len(), 1);
    assert!(check_with(src, fixed(&[("n", 2)])).is_clean());
    let rep = check_with(src, fixed(&[("n", 3)]));
    let w = rep.races[0].witness.as_ref().expect("witness");
    assert_eq!(w.params, [("n".to_string(), 3)]);
}

#[test]
fn no_feasible_run_is_an_error() {
    let k = kernel(
        "kernel k(shared A[], n) requires n > 100 {
    A[0] = tid;
}",
    );
    let err = Interpreter::new(CheckOptions::default()).check(&k);
    assert!(matches!(err, Err(OracleError::NoFeasibleRun(_))), "{err:?}");
    // Fixing the parameter makes it feasible.
    let rep = Interpreter::new(fixed(&[("n", 101)]))
        .check(&k)
        .expect("feasible");
    assert_eq!(rep.races.len(), 1);
}

#[test]
fn loop_bound_stops_the_run_with_a_note() {
    let config = DynamicConfig {
        loop_bound: 10,
        ..DynamicConfig::default()
    };
    let k = kernel(
        "kernel k(shared A[]) {
    local i = 0;
    while (i < 1) {
        A[0] = tid;
    }
}",
    );
    let rep = Interpreter::with_config(CheckOptions::default(), config)
        .check(&k)
        .expect("check");
    assert_eq!(rep.notes, ["loop at line 3: bound of 10 iterations reached"]);
    // The races found before the bound are still reported.
    assert_eq!(races(&rep), [race("A", 4, 4, "write-write", true, &[1], true)]);
}

#[test]
fn assume_makes_runs_infeasible() {
    let rep = check(
        "kernel k(shared A[]) {
    local x;
    havoc x;
    assume x == 0;
    if (x != 0) {
        A[0] = tid;
    }
}",
    );
    assert!(rep.is_clean(), "{rep:?}");
    // Races before a false assume stay reported.
    let rep = check(
        "kernel k(shared A[]) {
    A[0] = tid;
    assume tid == 100;
}",
    );
    assert_eq!(races(&rep), [race("A", 2, 2, "write-write", true, &[], true)]);
    assert_eq!(rep.notes.len(), 1, "{:?}", rep.notes);
}

#[test]
fn data_dependent_indices_collide_under_some_memory_seed() {
    // Only memory contents decide whether two threads write the same element.
    let rep = check(
        "kernel k(shared A[], shared B[]) {
    local j;
    j = B[tid];
    A[j] = tid;
}",
    );
    assert_eq!(races(&rep), [race("A", 4, 4, "write-write", true, &[], true)]);
}

#[test]
fn division_by_zero_is_arbitrary_and_overflow_abandons_the_run() {
    let rep = check_with(
        "kernel k(shared A[], n) {
    A[tid / n] = tid;
}",
        fixed(&[("n", 0)]),
    );
    // Seed 0 gives 0 for every thread: they all write A[0].
    assert_eq!(races(&rep), [race("A", 2, 2, "write-write", true, &[], true)]);
    let rep = check(
        "kernel k(shared A[]) {
    local x = 4294967295;
    x = x * x * x;
    A[0] = tid;
}",
    );
    assert!(rep.races.is_empty());
    assert_eq!(rep.notes.len(), 1);
    assert!(rep.notes[0].starts_with("line 3:"), "{:?}", rep.notes);
}

#[test]
fn wrap32_and_unbounded_arithmetic_differ() {
    let src = "kernel k(shared A[]) {
    local x;
    A[tid - 1] = tid;
    x = A[0 - 1];
}";
    let index = |arith| {
        let rep = check_with(
            src,
            CheckOptions {
                arith,
                ..CheckOptions::default()
            },
        );
        assert_eq!(races(&rep), [race("A", 3, 4, "write-read", true, &[], true)]);
        rep.races[0].witness.as_ref().expect("witness").index
    };
    assert_eq!(index(Arith::Unbounded), Some(-1));
    assert_eq!(index(Arith::Wrap32), Some(4294967295));
    // Only with 32-bit wrap-around does thread 0's `tid - 1` meet the literal.
    let src = "kernel k(shared A[]) {
    local x;
    A[tid - 1] = tid;
    x = A[4294967295];
}";
    assert!(check(src).is_clean());
    let rep = check_with(
        src,
        CheckOptions {
            arith: Arith::Wrap32,
            ..CheckOptions::default()
        },
    );
    assert_eq!(races(&rep), [race("A", 3, 4, "write-read", true, &[], true)]);
}

#[test]
fn unknown_names_are_unsupported() {
    let mut k = kernel(
        "kernel k(shared A[]) {
    A[0] = 1;
}",
    );
    if let kpl::StmtKind::Write { value, .. } = &mut k.body.stmts[0].kind {
        *value = kpl::Expr::var("ghost");
    }
    let err = Interpreter::new(CheckOptions::default()).check(&k);
    assert!(matches!(err, Err(OracleError::Unsupported { .. })), "{err:?}");
}

#[test]
fn large_spaces_are_sampled_with_a_note() {
    let config = DynamicConfig {
        max_runs: 50,
        ..DynamicConfig::default()
    };
    let k = kernel(
        "kernel k(shared A[], a, b, c) {
    if (a + b + c == 0) {
        A[0] = tid;
    }
}",
    );
    let rep = Interpreter::with_config(CheckOptions::default(), config)
        .check(&k)
        .expect("check");
    assert!(rep.notes.iter().any(|n| n.contains("sampled")), "{:?}", rep.notes);
    // The first sampled valuation of every launch is the all-minimum one.
    assert_eq!(rep.races.len(), 1);
}

#[test]
fn large_grids_run_their_first_blocks_and_the_last_one() {
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([2, 1, 1])),
            grid: kpl::launch::dims(Some([100, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    };
    let rep = check_with(
        "kernel k(global G[]) {
    if (bid == gdim - 1) {
        G[0] = tid;
    }
}",
        opts,
    );
    assert_eq!(races(&rep), [race("G", 3, 3, "write-write", true, &[], true)]);
    let w = rep.races[0].witness.as_ref().expect("witness");
    assert_eq!(w.threads[0].bid, [99, 0, 0]);
    assert_eq!(
        rep.notes,
        ["runs on 100 blocks executed only 8 of them (the first ones and the last)"]
    );
}

#[test]
fn name_is_dynamic() {
    assert_eq!(Interpreter::new(CheckOptions::default()).name(), "dynamic");
}
