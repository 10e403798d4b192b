//! Atomics (seed 000, Sec. 4), checked with both oracles: atomic/atomic pairs never
//! race; an atomic and a plain access of the same element do; atomically updated memory
//! is read adversarially (any value); and repetition-free counters (`atomic_add` of
//! positive amounts on an array nothing else modifies, and no negative amount anywhere
//! on it) hand out disjoint ranges `[old, old + amount)`, so the work queue of seed 000,
//! Fig. 3 verifies. Each kernel's exact static report is asserted, and whatever the
//! interpreter observes must be among it (static ⊇ dynamic; on race-free kernels both
//! are clean).

use crate::common::*;
use kpl::Arith;
use oracle::dynamic::Interpreter;
use oracle::{CheckOptions, Oracle, OracleError, Report};

/// The interpreter's report, or `None` when it has no feasible run.
fn dynamic_with(src: &str, opts: CheckOptions) -> Option<Report> {
    match Interpreter::new(opts).check(&kernel(src)) {
        Ok(r) => Some(r),
        Err(OracleError::NoFeasibleRun(_)) => None,
        Err(e) => panic!("interpreter: {e}"),
    }
}

/// The static report, after checking that it covers every race and divergence the
/// interpreter observes (with the same kind, and unfixable when the interpreter saw a
/// cross-block race).
fn both_with(src: &str, opts: CheckOptions) -> Report {
    let stat = check_with(src, opts.clone());
    if let Some(dy) = dynamic_with(src, opts) {
        assert_static_covers(&stat, &dy, src);
        if stat.is_clean() {
            assert!(
                dy.is_clean(),
                "verified, but the interpreter finds {:?}\n{src}",
                races(&dy)
            );
        }
    }
    stat
}

fn both(src: &str) -> Report {
    both_with(src, CheckOptions::default())
}

/// Whether the interpreter finds no race.
fn dynamic_clean(src: &str) -> bool {
    dynamic_with(src, CheckOptions::default()).is_none_or(|r| r.is_clean())
}

// ---------------------------------------------------------------------------------
// The race definition with atomics (seed 000, Def. 2.2)

#[test]
fn atomic_atomic_pairs_never_race() {
    let src = "kernel count(shared C[], global G[], global H[]) {
    atomic_add(C[0], 1);
    atomic_add(G[0], tid);
    atomic_max(H[tid % 4], tid);
    atomic_exch(H[tid % 4], bid);
    atomic_sub(G[0], 1);
}
";
    assert!(both(src).is_clean());
    assert!(both_with(src, launch(64, 8)).is_clean());
}

const ATOMIC_THEN_READ: &str = "kernel h(shared H[], global B[]) {
    local b;
    local x;
    b = B[bid * bdim + tid];
    atomic_add(H[b], 1);
    x = H[b];
}
";

#[test]
fn atomic_then_plain_read_races_in_shared_memory_unless_a_barrier_separates_them() {
    assert_eq!(
        races(&both(ATOMIC_THEN_READ)),
        [row("H", 5, 6, "atomic-read", true, &[], true)]
    );
    let fixed = ATOMIC_THEN_READ.replace("    x = H[b];\n", "    barrier;\n    x = H[b];\n");
    assert!(both(&fixed).is_clean());
}

#[test]
fn atomic_then_plain_read_of_global_memory_races_across_blocks_even_with_a_barrier() {
    let global = ATOMIC_THEN_READ.replace("shared H[]", "global H[]");
    assert_eq!(
        races(&both(&global)),
        [row("H", 5, 6, "atomic-read", true, &[], false)]
    );
    let barrier = global.replace("    x = H[b];\n", "    barrier;\n    x = H[b];\n");
    assert_eq!(
        races(&both(&barrier)),
        [row("H", 5, 7, "atomic-read", true, &[], false)]
    );
    // With a single block the barrier is enough.
    assert!(both_with(&barrier, launch(64, 1)).is_clean());
}

#[test]
fn plain_write_then_atomic_races() {
    let src = "kernel w(shared H[]) {
    H[tid] = 0;
    atomic_add(H[(tid + 1) % bdim], 1);
}
";
    assert_eq!(
        races(&both(src)),
        [row("H", 2, 3, "write-atomic", true, &[], true)]
    );
    let fixed = src.replace("    atomic_add", "    barrier;\n    atomic_add");
    assert!(both(&fixed).is_clean());
}

// ---------------------------------------------------------------------------------
// Adversarial abstraction: atomically updated memory reads as any value

#[test]
fn shared_histogram_verifies() {
    // Per-block histogram in shared memory from arbitrary input data, then merged into
    // the global one with atomics.
    let src = "kernel histo(global data[], shared s_hist[], global g_hist[], n) {
    local v;
    local c;
    if (tid < 256) {
        s_hist[tid] = 0;
    }
    barrier;
    for (i = bid * bdim + tid; i < n; i = i + bdim * gdim) {
        v = data[i];
        atomic_add(s_hist[v & 255], 1);
    }
    barrier;
    if (tid < 256) {
        c = s_hist[tid];
        atomic_add(g_hist[tid], c);
    }
}
";
    assert!(both(src).is_clean());
    assert!(both_with(src, launch(256, 4)).is_clean());
    // Without the second barrier the copy reads a bin other threads are updating.
    let racy = src.replacen(
        "    barrier;\n    if (tid < 256) {\n        c",
        "    if (tid < 256) {\n        c",
        1,
    );
    assert_eq!(
        races(&both(&racy)),
        [row("s_hist", 10, 13, "atomic-read", true, &[], true)]
    );
}

#[test]
fn values_read_from_atomically_updated_memory_are_arbitrary() {
    // After the barrier every thread reads the count, and uses it as an index: the
    // read is any value, so two threads may write one element.
    let src = "kernel c(shared C[], shared A[]) {
    local x;
    atomic_add(C[0], 1);
    barrier;
    x = C[0];
    A[x] = tid;
}
";
    assert_eq!(
        races(&both(src)),
        [row("A", 6, 6, "write-write", true, &[], true)]
    );
}

// ---------------------------------------------------------------------------------
// Repetition-free counters (seed 000, Sec. 4.2)

const QUEUE: &str = "kernel queue(global count[], global out[]) {
    local i;
    i = atomic_add(count[0], 1);
    out[i] = tid;
}
";

#[test]
fn work_queue_slots_from_a_counter_are_private() {
    assert!(both(QUEUE).is_clean());
    assert!(both_with(QUEUE, launch(256, 64)).is_clean());
    let shared = QUEUE.replace("global count[], global out[]", "shared count[], shared out[]");
    assert!(both(&shared).is_clean());
}

#[test]
fn work_queue_loop_of_seed_000_fig_3_verifies() {
    let src = "kernel queue(global count[], global in[], global out[], n) {
    local i;
    local v;
    i = atomic_add(count[0], 1);
    while (i < n) {
        v = in[i];
        out[i] = v + 1;
        i = atomic_add(count[0], 1);
    }
}
";
    assert!(both(src).is_clean());
    assert!(both_with(src, launch(64, 4)).is_clean());
}

#[test]
fn counter_results_through_arithmetic_stay_distinct() {
    let src = "kernel queue(global count[], global out[], base) {
    local i;
    local j;
    local k;
    i = atomic_add(count[0], 1);
    out[i * 2 + 1] = tid;
    j = atomic_add(count[1], 1);
    out[2 * j] = tid;
    k = atomic_add(count[2], 1);
    out[base + 1000000 + k] = tid;
}
";
    // Different counters may hand out the same value: `out[base + 1000000 + k]` meets
    // the other two (both oracles agree only where their runs reach).
    assert_eq!(
        races(&both(src)),
        [
            row("out", 6, 10, "write-write", true, &[], false),
            row("out", 8, 10, "write-write", true, &[], false),
        ]
    );
    let apart = src
        .replace("out[base + 1000000 + k]", "out[4 * k + 3]")
        .replace("out[i * 2 + 1]", "out[4 * i + 1]");
    assert!(both(&apart).is_clean());
}

#[test]
fn positive_non_constant_amounts_claim_disjoint_ranges() {
    // Each thread claims `tid + 1` slots and fills them.
    let src = "kernel alloc(global count[], global out[]) {
    local base;
    base = atomic_add(count[0], tid + 1);
    for (k = 0; k <= tid; k = k + 1) {
        out[base + k] = tid;
    }
}
";
    assert!(both(src).is_clean());
    // One slot too many overlaps the next claim (at another iteration of the loop).
    let over = src.replace("k <= tid", "k <= tid + 1");
    assert_eq!(
        races(&both(&over)),
        [row("out", 5, 5, "write-write", false, &[1], false)]
    );
}

#[test]
fn counters_counting_down_hand_out_distinct_values() {
    let down = QUEUE.replace("atomic_add(count[0], 1)", "atomic_sub(count[0], 2)");
    assert!(both(&down).is_clean());
    // Claimed ranges `(old - amount, old]` are disjoint too.
    let range = "kernel alloc(global count[], global out[]) {
    local top;
    top = atomic_sub(count[0], 4);
    for (k = 0; k < 4; k = k + 1) {
        out[top - k] = tid;
    }
}
";
    assert!(both(range).is_clean());
    assert_eq!(
        races(&both(&range.replace("k < 4", "k < 5"))),
        [row("out", 5, 5, "write-write", false, &[1], false)]
    );
    // Up and down on one counter repeats values.
    // (Values that differ between blocks too: threads of two blocks may both take 0
    // and write there, which is benign for equal values.)
    let mixed = QUEUE
        .replace("    out[i]", "    atomic_sub(count[0], 1);\n    out[i]")
        .replace("= tid;", "= bid * bdim + tid;");
    assert_eq!(
        races(&both(&mixed)),
        [row("out", 5, 5, "write-write", true, &[], false)]
    );
    assert!(!dynamic_clean(&mixed));
}

#[test]
fn zero_amount_repeats_values() {
    let zero = QUEUE.replace("atomic_add(count[0], 1)", "atomic_add(count[0], 0)");
    assert_eq!(
        races(&both(&zero)),
        [row("out", 4, 4, "write-write", true, &[], false)]
    );
    assert!(!dynamic_clean(&zero));
}

#[test]
fn plain_counter_read_modify_write_races() {
    let src = "kernel queue(global count[], global out[]) {
    local i;
    i = count[0];
    count[0] = i + 1;
    out[i] = tid;
}
";
    assert_eq!(
        races(&both(src)),
        [
            row("count", 3, 4, "read-write", true, &[], false),
            row("count", 4, 4, "write-write", true, &[], false),
            row("out", 5, 5, "write-write", true, &[], false),
        ]
    );
    assert!(!dynamic_clean(src));
}

#[test]
fn a_negative_amount_anywhere_makes_the_counter_repeat() {
    // Thread 0 takes 0 and gives it back; thread 1 then takes 0 again.
    let src = "kernel neg(shared C[], shared A[]) {
    local x;
    if (tid == 0) {
        x = atomic_add(C[0], 1);
        A[x] = 1;
        atomic_add(C[0], 0 - 1);
    }
    if (tid == 1) {
        x = atomic_add(C[0], 1);
        A[x] = 2;
    }
}
";
    assert_eq!(
        races(&both(src)),
        [row("A", 5, 10, "write-write", true, &[], true)]
    );
    assert!(!dynamic_clean(src));
    // The same with `atomic_sub` of a positive amount.
    let sub = src.replace("atomic_add(C[0], 0 - 1)", "atomic_sub(C[0], 1)");
    assert_eq!(
        races(&both(&sub)),
        [row("A", 5, 10, "write-write", true, &[], true)]
    );
}

#[test]
fn counters_of_different_elements_hand_out_the_same_values() {
    let src = "kernel two(shared C[], shared A[]) {
    local x;
    x = atomic_add(C[tid % 2], 1);
    A[x] = tid;
}
";
    assert_eq!(
        races(&both(src)),
        [row("A", 4, 4, "write-write", true, &[], true)]
    );
    assert!(!dynamic_clean(src));
}

#[test]
fn a_counter_value_only_some_threads_take_is_not_distinct_from_other_values() {
    // Threads 0 and 1 use `tid % 2`; the others take a slot, which may be 0 or 1.
    let src = "kernel mix(shared C[], shared A[]) {
    local x;
    x = tid % 2;
    if (tid >= 2) {
        x = atomic_add(C[0], 1);
    }
    A[x] = tid;
}
";
    assert_eq!(
        races(&both(src)),
        [row("A", 7, 7, "write-write", true, &[], true)]
    );
    assert!(!dynamic_clean(src));
    // After a queue loop: a thread that never entered keeps `tid`, which another
    // thread's last slot may equal.
    let after = "kernel q(global C[], global out[], n) {
    local i;
    i = tid;
    while (i < n) {
        i = atomic_add(C[0], 1);
    }
    out[i] = tid;
}
";
    assert!(races(&both(after)).contains(&row("out", 7, 7, "write-write", true, &[], false)));
    assert!(!dynamic_clean(after));
}

#[test]
fn deviation_counters_assume_no_wraparound() {
    // Unbounded arithmetic: the counter never wraps (seed 000 makes the same
    // assumption). In 32-bit arithmetic the refinement is off.
    assert!(both(QUEUE).is_clean());
    let wrap = CheckOptions {
        arith: Arith::Wrap32,
        ..CheckOptions::default()
    };
    assert_eq!(
        races(&both_with(QUEUE, wrap)),
        [row("out", 4, 4, "write-write", true, &[], false)]
    );
}

#[test]
fn deviation_other_atomics_return_arbitrary_values() {
    // atomic_inc wraps at its bound (not repetition-free), so does atomic_dec;
    // atomic_exch, atomic_cas, atomic_max, ... return any value too.
    for op in [
        "atomic_inc(count[0], 1000)",
        "atomic_dec(count[0], 1000)",
        "atomic_exch(count[0], tid)",
        "atomic_cas(count[0], tid)",
        "atomic_max(count[0], tid)",
        "atomic_min(count[0], tid)",
        "atomic_or(count[0], tid)",
    ] {
        let src = QUEUE.replace("atomic_add(count[0], 1)", op);
        assert_eq!(
            races(&both(&src)),
            [row("out", 4, 4, "write-write", true, &[], false)],
            "{op}"
        );
    }
    // A counter that anything but atomic_add modifies is not repetition-free either.
    let mixed = QUEUE.replace("    out[i]", "    atomic_max(count[0], 5);\n    out[i]");
    assert_eq!(
        races(&both(&mixed)),
        [row("out", 5, 5, "write-write", true, &[], false)]
    );
}

#[test]
fn deviation_amounts_read_from_memory_may_be_negative() {
    // Values are untyped: `len[..] + 1` may be 0 or negative (an `int` read), so an
    // amount read from memory does not make a counter (a false alarm for unsigned data).
    let src = "kernel alloc(global count[], global len[], global out[]) {
    local n;
    local i;
    n = len[bid * bdim + tid];
    i = atomic_add(count[0], n + 1);
    out[i] = tid;
}
";
    assert_eq!(
        races(&both(src)),
        [row("out", 6, 6, "write-write", true, &[], false)]
    );
    assert!(dynamic_clean(src));
}
