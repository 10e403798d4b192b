//! The semantic corners of the static verifier: global memory across blocks, atomics,
//! the two arithmetics, launch dimensions, preconditions, and many of the deviations and
//! shortcuts of `oracle/src/verifier/deviations.rs` (tests named `deviation_*`, each
//! listed in its table `DEVIATIONS`; `deviations.rs` here checks the table).

use crate::common::*;
use kpl::Arith;
use oracle::CheckOptions;

#[test]
fn global_writes_of_the_same_thread_index_race_across_blocks_unfixably() {
    let src = "kernel g(global A[]) {
    A[tid] = 0;
}
";
    let r = check(src);
    assert_eq!(races(&r), [row("A", 2, 2, "write-write", true, &[], false)]);
    let w = r.races[0].witness.as_ref().expect("witness");
    assert_ne!(w.threads[0].bid, w.threads[1].bid);
    assert_eq!(w.threads[0].tid, w.threads[1].tid);
    // One block: nothing to race with.
    assert!(check_with(src, launch(64, 1)).is_clean());
    // The same kernel on shared memory is fine.
    assert!(check(&src.replace("global", "shared")).is_clean());
}

#[test]
fn global_index_by_block_and_thread_is_race_free() {
    let src = "kernel g(global A[]) {
    A[bid * bdim + tid] = 0;
}
";
    assert!(check(src).is_clean());
    assert!(check_with(src, launch(128, 16)).is_clean());
}

#[test]
fn cross_block_race_makes_the_pair_unfixable_even_if_a_barrier_fixes_the_block() {
    let src = "kernel shift(global A[]) {
    local x;
    x = A[bid * bdim + tid + 1];
    barrier;
    A[bid * bdim + tid] = x;
}
";
    let r = check(src);
    assert_eq!(races(&r), [row("A", 3, 5, "read-write", true, &[], false)]);
    let w = r.races[0].witness.as_ref().expect("witness");
    assert_ne!(w.threads[0].bid, w.threads[1].bid);
    // With one block the barrier orders everything.
    assert!(check_with(src, launch(64, 1)).is_clean());
    // Without the barrier and with one block the race is fixable.
    let racy = src.replace("    barrier;\n", "");
    assert_eq!(
        races(&check_with(&racy, launch(64, 1))),
        [row("A", 3, 4, "read-write", true, &[], true)]
    );
}

#[test]
fn atomics_do_not_race_with_atomics() {
    let src = "kernel count(shared C[], global D[]) {
    atomic_add(C[0], 1);
    atomic_add(D[tid % 4], tid);
}
";
    assert!(check(src).is_clean());
}

#[test]
fn atomics_race_with_plain_accesses() {
    let src = "kernel count(shared C[]) {
    local x;
    atomic_add(C[0], 1);
    x = C[0];
}
";
    assert_eq!(
        races(&check(src)),
        [row("C", 3, 4, "atomic-read", true, &[], true)]
    );
    let fixed = src.replace("    x = C[0];\n", "    barrier;\n    x = C[0];\n");
    assert!(check(&fixed).is_clean());
    let global = src.replace("shared C[]", "global C[]");
    assert_eq!(
        races(&check(&global)),
        [row("C", 3, 4, "atomic-read", true, &[], false)]
    );
}

#[test]
fn repetition_free_counters_hand_out_distinct_values() {
    // atomic_add of a positive amount on an array only atomic_adds modify hands out
    // distinct values (docs/semantics.md, Warps and atomics), so the slots are private.
    let src = "kernel alloc(shared C[], shared A[]) {
    local x;
    x = atomic_add(C[0], 1);
    A[x] = tid;
}
";
    assert!(check(src).is_clean());
    let global = "kernel alloc(global C[], global A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        x = atomic_add(C[0], 1 + i);
        A[x] = tid;
    }
}
";
    assert!(check(global).is_clean());
    // A zero increment repeats values.
    let zero = src.replace("atomic_add(C[0], 1)", "atomic_add(C[0], 0)");
    assert_eq!(
        races(&check(&zero)),
        [row("A", 4, 4, "write-write", true, &[], true)]
    );
    // So does a counter something else writes (here: reset by thread 0).
    let reset = src.replace(
        "    x = atomic_add",
        "    if (tid == 0) {\n        C[0] = 0;\n    }\n    x = atomic_add",
    );
    assert!(races(&check(&reset)).contains(&row("A", 7, 7, "write-write", true, &[], true)));
}

#[test]
fn deviation_other_atomic_results_are_arbitrary() {
    // atomic_inc, atomic_exch and the others return arbitrary values, and in Wrap32 a
    // counter may wrap around: no distinctness is assumed.
    let src = "kernel alloc(shared C[], shared A[]) {
    local x;
    x = atomic_inc(C[0], 1000);
    A[x] = tid;
}
";
    assert_eq!(
        races(&check(src)),
        [row("A", 4, 4, "write-write", true, &[], true)]
    );
    let add = src.replace("atomic_inc(C[0], 1000)", "atomic_add(C[0], 1)");
    let wrap = CheckOptions {
        arith: Arith::Wrap32,
        ..strict()
    };
    assert_eq!(
        races(&check_with(&add, wrap)),
        [row("A", 4, 4, "write-write", true, &[], true)]
    );
}

const WRAP: &str = "kernel wrap(shared A[], n) requires n >= bdim {
    local x;
    A[tid] = 0;
    x = A[tid + n];
}
";

#[test]
fn unbounded_arithmetic_assumes_no_overflow() {
    assert!(check(WRAP).is_clean());
}

#[test]
fn wrap32_arithmetic_finds_the_wrap_around() {
    let opts = CheckOptions {
        arith: Arith::Wrap32,
        ..strict()
    };
    let r = check_with(WRAP, opts);
    assert_eq!(races(&r), [row("A", 3, 4, "write-read", true, &[], true)]);
    let w = r.races[0].witness.as_ref().expect("witness");
    let n = w
        .params
        .iter()
        .find(|(p, _)| p == "n")
        .map(|(_, v)| *v)
        .unwrap_or(0);
    assert_eq!(
        (w.threads[1].tid[0] as i64 + n) % (1 << 32),
        w.threads[0].tid[0] as i64
    );
}

#[test]
fn wrap32_multiplication_and_division_are_unsigned_32_bit() {
    let src = "kernel mul(shared A[]) {
    A[tid * 2147483648] = 0;
}
";
    assert!(check(src).is_clean());
    let opts = CheckOptions {
        arith: Arith::Wrap32,
        ..strict()
    };
    assert_eq!(
        races(&check_with(src, opts.clone())),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
    // In Wrap32 `0 - 1` is 4294967295, so `(tid - 1) / 2` is huge for thread 0 and
    // does not collide with thread 1's 0; unbounded, both are 0 (C truncation).
    let div = "kernel div(shared A[]) requires bdim == 2 {
    A[(tid - 1) / 2] = 0;
}
";
    assert_eq!(
        races(&check(div)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
    assert!(check_with(div, opts).is_clean());
}

#[test]
fn c_division_and_remainder_truncate() {
    // -1 / 2 == 0 and -1 % 2 == -1 in C: thread 0 writes A[0] and A[-1], thread 1
    // writes A[0] and A[0]: the first statement races, the second does not.
    let src = "kernel trunc(shared A[], shared B[]) requires bdim == 2 {
    A[(tid - 1) / 2] = 0;
    B[(tid - 1) % 2 + tid] = 0;
}
";
    let r = check(src);
    assert_eq!(races(&r), [row("A", 2, 2, "write-write", true, &[], true)]);
}

#[test]
fn bitwise_masks_and_shifts_are_exact() {
    let src = "kernel bits(shared A[]) requires bdim == 64 {
    A[(tid >> 5) * 32 + (tid & 31)] = 0;
}
";
    assert!(check(src).is_clean());
    let lossy = src.replace("(tid & 31)", "(tid & 15)");
    assert_eq!(
        races(&check(&lossy)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
    let xor = "kernel xor(shared A[]) {
    A[tid ^ 1] = 0;
}
";
    assert!(check(xor).is_clean());
}

#[test]
fn deviation_symbolic_launches_are_one_dimensional_unless_the_kernel_names_y_or_z() {
    let src = "kernel k(shared A[]) {
    A[tid] = 0;
}
";
    assert!(check(src).is_clean());
    // Naming tid.y makes the y size symbolic too: threads differing only in y collide.
    let two_d = "kernel k(shared A[]) {
    local y = tid.y;
    A[tid.x] = y;
}
";
    let r = check(two_d);
    assert_eq!(races(&r), [row("A", 3, 3, "write-write", true, &[], true)]);
    let w = r.races[0].witness.as_ref().expect("witness");
    assert_ne!(w.threads[0].tid[1], w.threads[1].tid[1]);
    // An explicit 2D launch is honoured even when the kernel only names x.
    let opts = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([4, 2, 1])),
            grid: kpl::launch::dims(Some([1, 1, 1])),
            ..(strict()).launch
        },
        ..strict()
    };
    assert_eq!(
        races(&check_with(src, opts)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
}

#[test]
fn requires_and_assume_constrain_parameters() {
    let src = "kernel k(shared A[], n) {
    local x;
    assume n > 0;
    x = A[tid + n];
    A[tid] = x;
}
";
    assert_eq!(
        races(&check(src)),
        [row("A", 4, 5, "read-write", true, &[], true)]
    );
    let zero = src.replace("assume n > 0;", "assume n == 0;");
    assert!(check(&zero).is_clean());
}

#[test]
fn deviation_later_assumes_do_not_remove_earlier_races() {
    // The interpreter drops a run when an enabled thread fails an assume; the verifier
    // only uses the assumes before an access, so it still reports this race.
    let src = "kernel k(shared A[]) {
    local x;
    x = A[tid + 1];
    A[tid] = x;
    assume tid == 0;
}
";
    assert_eq!(
        races(&check(src)),
        [row("A", 3, 4, "read-write", true, &[], true)]
    );
}

#[test]
fn deviation_undefined_operations_give_arbitrary_values() {
    let src = "kernel k(shared A[], n) {
    A[tid / n] = 0;
}
";
    // n == 0 makes the index arbitrary (and n >= 2 makes threads share elements).
    assert_eq!(
        races(&check(src)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
    let mut opts = strict();
    opts.launch.params.insert("n".into(), 1);
    assert!(check_with(src, opts.clone()).is_clean());
    opts.launch.params.insert("n".into(), 0);
    assert_eq!(
        races(&check_with(src, opts)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
    let shift = "kernel k(shared A[]) {
    A[tid << 70] = 0;
}
";
    assert_eq!(
        races(&check(shift)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
}

/// A symbolic launch is assumed narrower than 2^31 threads per dimension (the default,
/// unbounded arithmetic), so the global index `bid * bdim + tid` of an `int` never wraps; a concrete launch wider than that is
/// taken as it is, and its wrapped indices collide.
#[test]
fn deviation_grid_width_below_2_31() {
    let src = "kernel k(global A[]) {
    local i = i32(bid * bdim + tid);
    A[i] = tid;
}
";
    assert!(check(src).is_clean());
    let wide = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([1024, 1, 1])),
            grid: kpl::launch::dims(Some([1 << 23, 1, 1])),
            ..strict().launch
        },
        ..strict()
    };
    assert_eq!(
        races(&check_with(src, wide)),
        [row("A", 3, 3, "write-write", true, &[], false)]
    );
}

/// `@f(..)` is one function for the launch: equal arguments give equal values (a benign
/// pair), and nothing else is known (neither `@f(x) = x` nor that distinct arguments give
/// distinct values).
#[test]
fn deviation_uninterpreted_functions_know_only_congruence() {
    let tolerant = CheckOptions::default();
    let benign = "kernel k(shared A[], global B[], n) {
    A[tid / 32] = @f(bid, n);
    local x;
    x = B[bid];
    A[64 + tid / 32] = @g(@f(x, 1));
}
";
    let r = check_with(benign, tolerant.clone());
    assert!(r.is_clean(), "{r:?}");
    assert_eq!(r.benign.len(), 2, "{r:?}");
    // A thread-dependent argument: the writers of one element may store different values.
    let racy = benign.replace("@f(bid, n)", "@f(tid, n)");
    assert_eq!(
        races(&check_with(&racy, tolerant.clone())),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
    // Two functions are not assumed to agree on equal arguments, nor a function to be
    // the identity.
    let two = "kernel k(shared A[], n) {
    if (tid % 2 == 0) {
        A[0] = @f(n);
    } else {
        A[0] = @h(n);
    }
    A[1 + tid / 64] = n;
    A[1 + tid / 64] = @f(n);
}
";
    assert_eq!(
        races(&check_with(two, tolerant.clone())),
        [
            row("A", 3, 5, "write-write", true, &[], true),
            row("A", 7, 8, "write-write", true, &[], true)
        ]
    );
    // Distinct arguments may give equal values: `@f(tid)` as an index may collide.
    let index = "kernel k(shared A[]) {
    A[@f(tid)] = tid;
}
";
    assert_eq!(
        races(&check_with(index, tolerant)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
}

#[test]
fn deviation_non_terminating_loops_are_handled_soundly() {
    let src = "kernel spin(shared A[]) {
    local x;
    while (1) {
        x = A[tid + 1];
        A[tid] = x;
    }
}
";
    assert_eq!(
        races(&check(src)),
        [row("A", 4, 5, "read-write", true, &[1], true)]
    );
}

#[test]
fn deviation_barriers_are_credited_only_at_chosen_instances() {
    // The inner loop executes the barrier at j == 3, between the read and the write,
    // but the verifier only tries the first iteration of the inner loop: the
    // same-iteration race is a false alarm (the cross-iteration one is real: nothing
    // separates the write of iteration i from the read of iteration i + 1). Moving the
    // barrier out of the conditional removes the false alarm.
    let src = "kernel k(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        x = A[tid + 1];
        for (j = 0; j < 4; j = j + 1) {
            if (j == 3) {
                barrier;
            }
        }
        A[tid] = x;
    }
}
";
    let r = check(src);
    assert!(r.divergences.is_empty());
    assert_eq!(races(&r), [row("A", 4, 10, "read-write", true, &[1], true)]);
    let plain = src.replace(
        "            if (j == 3) {\n                barrier;\n            }\n",
        "            barrier;\n",
    );
    assert_eq!(
        races(&check(&plain)),
        [row("A", 4, 8, "read-write", false, &[1], true)]
    );
}

#[test]
fn deviation_loop_carried_values_without_closed_form_are_arbitrary() {
    // j is a multiple of bdim, so threads never share an element, but it grows only
    // in every other iteration, so it has no closed form: a false alarm across
    // iterations. (A step under a loop-invariant condition, `if (n > 5)`, is fine.)
    let src = "kernel k(shared A[], n) {
    local j = 0;
    for (i = 0; i < n; i = i + 1) {
        A[j + tid] = 0;
        if (i % 2 == 0) {
            j = j + bdim;
        }
    }
}
";
    assert_eq!(
        races(&check(src)),
        [row("A", 4, 4, "write-write", false, &[1], true)]
    );
    let closed = src.replace(
        "        if (i % 2 == 0) {\n            j = j + bdim;\n        }\n",
        "        j = j + bdim;\n",
    );
    assert!(check(&closed).is_clean());
    let invariant = src.replace("i % 2 == 0", "n > 5");
    assert!(check(&invariant).is_clean());
}

#[test]
fn deviation_divergent_barriers_synchronize_nothing() {
    let src = "kernel k(shared A[]) {
    local x;
    x = A[tid + 1];
    if (tid < 16) {
        barrier;
    }
    A[tid] = x;
}
";
    let r = check(src);
    assert_eq!(divergences(&r), [5]);
    assert_eq!(races(&r), [row("A", 3, 7, "read-write", true, &[], true)]);
    // With 16 threads the barrier is reached by all of them and orders the accesses.
    assert!(check_with(src, launch(16, 1)).is_clean());
}

#[test]
fn scalar_parameters_can_be_fixed_by_the_options() {
    let src = "kernel k(shared A[], off) {
    local x;
    x = A[tid + off];
    A[tid] = x;
}
";
    let mut opts = strict();
    opts.launch.params.insert("off".into(), 0);
    assert!(check_with(src, opts).is_clean());
    let r = check(src);
    let w = r.races[0].witness.as_ref().expect("witness");
    assert!(w.params.iter().any(|(p, v)| p == "off" && *v != 0));
}

#[test]
fn reports_are_stable_across_calls_and_barrier_insertions() {
    use oracle::Oracle;
    use oracle::verifier::StaticVerifier;
    let src = "kernel f(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        x = A[tid + 1];
        A[tid] = x;
    }
}
";
    let k = kernel(src);
    let mut v = StaticVerifier::new(strict());
    let first = v.check(&k).expect("answer");
    assert_eq!(v.check(&k).expect("answer"), first);
    let tree = kpl::LabelTree::new(&k);
    let read = k
        .stmts()
        .into_iter()
        .find(|s| matches!(s.kind, kpl::StmtKind::Read { .. }))
        .map(|s| s.id);
    let label = tree.label_of(read.expect("read")).expect("label");
    let (with_barrier, _) = kpl::insert_barriers(&k, &tree, &[label]);
    let second = v.check(&with_barrier).expect("answer");
    assert_eq!(races(&second), [row("A", 4, 5, "read-write", false, &[1], true)]);
}

#[test]
fn deviation_values_after_a_loop_are_not_tied_to_its_exit() {
    // After the loop `i` is n, so thread 0 writes A[n] and thread 1 reads A[n + 1]. The
    // verifier gives `i` its closed form at an unconstrained trip count (nothing assumes
    // the loop exits, which keeps non-terminating loops sound); what it knows after the
    // loop is the invariant `i <= n` it proved (`n` is unsigned, so it holds initially),
    // which is enough here.
    let src = "kernel k(shared A[], n) {
    local i = 0;
    local x;
    while (i < n) {
        i = i + 1;
    }
    if (tid == 0) {
        A[i] = 1;
    }
    if (tid == 1) {
        x = A[n + 1];
    }
}
";
    assert!(check(src).is_clean());
    // Without the invariant (the read one past `i`'s bound moved below it) the race is
    // found: thread 0 writes A[i] for some i <= n, thread 1 reads A[n - 1].
    let below = src.replace("A[n + 1]", "A[n - 1]");
    assert_eq!(
        races(&check(&below)),
        [row("A", 8, 11, "write-read", true, &[], true)]
    );
    // A guard that is constant at every iteration gives the exact trip count.
    let constant = src
        .replace("while (i < n)", "while (i < 3)")
        .replace("A[n + 1]", "A[4]");
    assert!(check(&constant).is_clean());
    // Left with `break` before any assignment, the value is the one of the iteration the
    // thread left in (3): exact, so the read of A[4] does not race and one of A[3] does.
    let brk = constant.replace(
        "while (i < 3) {\n",
        "while (i < 10) {\n        if (i == 3) {\n            break;\n        }\n",
    );
    assert!(check(&brk).is_clean());
    assert_eq!(
        races(&check(&brk.replace("A[4]", "A[3]"))),
        [row("A", 11, 14, "write-read", true, &[], true)]
    );
}

#[test]
fn deviation_bitwise_operations_of_two_variables_are_bounded_unknowns() {
    // `tid ^ n` is a permutation of the threads for any n, but with two variable
    // operands the verifier only knows bounds of the result: a false alarm. With a
    // constant operand it is exact.
    let src = "kernel k(shared A[], n) {
    A[tid ^ n] = 0;
}
";
    assert_eq!(
        races(&check(src)),
        [row("A", 2, 2, "write-write", true, &[], true)]
    );
    let mut opts = strict();
    opts.launch.params.insert("n".into(), 5);
    assert!(check_with(src, opts).is_clean());
}

#[test]
fn parameters_are_32_bit_unsigned() {
    let src = "kernel k(shared A[], n) {
    if (n > 4294967295) {
        A[0] = tid;
    }
    if (n < 0) {
        A[1] = tid;
    }
}
";
    assert!(check(src).is_clean());
}

#[test]
fn preconditions_pin_launch_sizes_and_parameters() {
    // `requires bdim == 64 && n == 2` is as good as the options saying so.
    let src = "kernel k(shared A[], n) requires bdim == 64 && n == 2 {
    A[(tid & 31) * n + tid / 32] = 0;
}
";
    let r = check(src);
    assert!(r.is_clean(), "{:?}", races(&r));
    let racy = src.replace("n == 2", "n == 1");
    let r = check(&racy);
    assert_eq!(races(&r), [row("A", 2, 2, "write-write", true, &[], true)]);
    let w = r.races[0].witness.as_ref().expect("witness");
    assert_eq!(w.block_dim, [64, 1, 1]);
    assert_eq!(w.params, [("n".to_string(), 1)]);
}

#[test]
fn deviation_solver_timeouts_count_as_races() {
    // Whatever the solver manages within a tiny timeout, nothing is reported clean
    // that is not: the race stays, and a race without witness comes with a note.
    use oracle::Oracle;
    use oracle::verifier::StaticVerifier;
    let src = "kernel k(shared A[], n, m) {
    local x;
    x = A[tid * n + m];
    A[tid * n] = x;
}
";
    let mut v = StaticVerifier::new(strict());
    v.limits = oracle::verifier::Limits {
        first: 1,
        query: 1,
        check: 1_000,

        ..oracle::verifier::Limits::DEFAULT
    };
    let r = v.check(&kernel(src)).expect("answer");
    assert!(races(&r).iter().any(|x| (x.1, x.2) == (3, 4)), "{:?}", races(&r));
    for race in &r.races {
        if race.witness.is_none() {
            assert!(!r.notes.is_empty());
        }
    }
}

#[test]
fn deviation_a_spent_solver_budget_counts_as_races() {
    use oracle::Oracle;
    use oracle::verifier::StaticVerifier;
    // A non-affine index: the solver-free dependence test cannot decide it.
    let src = "kernel k(shared A[]) {
    A[tid * tid] = 0;
}
";
    let mut v = StaticVerifier::new(strict());
    v.limits.check = 0;
    let r = v.check(&kernel(src)).expect("answer");
    assert_eq!(races(&r), [row("A", 2, 2, "write-write", true, &[], true)]);
    assert!(r.races[0].witness.is_none());
    assert!(r.notes.iter().any(|n| n.contains("budget")), "{:?}", r.notes);
}

#[test]
fn deviation_a_grid_index_is_assumed_below_2_31() {
    // `int i = blockIdx.x * blockDim.x + threadIdx.x`: with up to 2^31 - 1 blocks of
    // 1024 threads the index could wrap to a negative int and collide; launches are
    // assumed to have at most 2^31 threads along a dimension, so it does not.
    let src = "kernel g(global A[]) {
    local i = i32(bid * bdim + tid);
    A[i] = 1;
}
";
    assert!(check(src).is_clean());
    // A concrete launch beyond 2^31 threads drops the assumption: the conversion wraps.
    let huge = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([1024, 1, 1])),
            grid: kpl::launch::dims(Some([4_194_305, 1, 1])),
            ..(strict()).launch
        },
        ..strict()
    };
    assert_eq!(races(&check_with(src, huge)).len(), 1);
}

#[test]
fn deviation_a_warp_index_in_the_grid_is_assumed_below_2_31() {
    // A warp's index in the grid, `blockIdx.x * (blockDim.x / 32) + tid / 32`, and the
    // number of warps, `gridDim.x * (blockDim.x / 32)`, as `int`s: a block's warps are
    // at most its threads, so by the same assumption neither wraps.
    let src = "kernel g(global A[]) {
    local w = i32(bid * (bdim / 32) + tid / 32);
    local n = i32(gdim * (bdim / 32));
    if (tid % 32 == 0 && tid < bdim / 32 * 32) {
        A[w] = bid + n;
    }
}
";
    assert!(check(src).is_clean());
    // A multiple of the block size instead: no such bound, and the index wraps onto
    // another warp's (within the grid-width assumption).
    let racy = src.replace("bid * (bdim / 32)", "bid * (bdim * 32)");
    assert!(!check(&racy).is_clean());
}

#[test]
fn deviation_a_loop_counter_stays_in_its_type() {
    // `i += bdim` on an `int i` is `i = (int)((unsigned)i + bdim)`; the conversions are
    // taken as the identity for the closed form (the counter does not overflow), so the
    // strided loop verifies as it does without them.
    let src = "kernel g(shared A[], i32 n) {
    for (i = i32(tid); i < n; i = i32(u32(i) + bdim)) {
        A[i] = 1;
    }
}
";
    assert!(check(src).is_clean());
    let racy = src.replace("A[i] = 1", "A[i + 1] = 1;\n        A[i] = 2");
    assert!(!check(&racy).is_clean());
}

#[test]
fn deviation_values_all_threads_read_alike() {
    // One read instance with a block-uniform index: one value for the block.
    let src = "kernel k(shared S[], shared A[]) {
    local x;
    x = S[0];
    A[x + tid] = 1;
}
";
    assert!(check(src).is_clean());
    // The same element read by different statements on different paths, with no write
    // between them: one value.
    let split = "kernel k(shared S[], shared A[]) {
    local x;
    if (tid == 0) {
        x = S[0];
    } else {
        x = S[0];
    }
    A[x + tid] = 1;
}
";
    assert!(check(split).is_clean());
    // A write to the array in between, even to other elements: two unknowns (a false
    // alarm the abstraction keeps).
    let written = "kernel k(shared S[], shared A[]) {
    local x;
    x = S[0];
    S[tid + 1] = 1;
    local y;
    y = S[0];
    A[x + tid] = 1;
    A[y + bdim + tid] = 2;
}
";
    assert_eq!(
        races(&check(written)),
        [row("A", 7, 8, "write-write", true, &[], true)]
    );
    assert!(check(&written.replace("    S[tid + 1] = 1;\n", "")).is_clean());
    // A value is not followed through memory: what thread 0 wrote is not what the
    // others read (only that they agree), so it may collide with their ids (line 8
    // against 9 is the false alarm; all threads writing `A[x]` is a real race).
    let flow = "kernel k(shared S[], shared A[]) {
    if (tid == 0) {
        S[0] = bdim;
    }
    barrier;
    local x;
    x = S[0];
    A[tid] = 1;
    A[x] = 2;
}
";
    assert_eq!(
        races(&check(flow)),
        [
            row("A", 8, 9, "write-write", true, &[], true),
            row("A", 9, 9, "write-write", true, &[], true),
        ]
    );
}
