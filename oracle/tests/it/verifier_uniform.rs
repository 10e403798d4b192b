//! Values all threads read alike (the deviation of that name in `verifier/deviations.rs`):
//! a read with a block-uniform index is one value per block at each instance, a
//! never-written global array with a grid-uniform index one value per grid, and a
//! thread reading an element again with no write to the array in between gets the same
//! value. Each kernel's static report is asserted exactly, and whatever the interpreter
//! observes must be among it (on race-free kernels both are clean).

use crate::common::*;
use oracle::{CheckOptions, Report};

fn both_with(src: &str, opts: CheckOptions) -> Report {
    static_covering_dynamic(src, opts)
}

fn both(src: &str) -> Report {
    both_with(src, CheckOptions::default())
}

/// Persistent blocks: thread 0 takes a tile from a counter and publishes it in shared
/// memory; everyone tests it after the barrier and leaves the loop together.
const PERSISTENT: &str = "kernel p(shared T[], shared S[], global C[], u32 n) {
    while (1) {
        if (tid == 0) {
            local t;
            t = atomic_add(C[0], 1);
            T[0] = t;
        }
        barrier;
        local b;
        b = T[0];
        if (b >= n) {
            break;
        }
        S[tid] = b;
        barrier;
        local y;
        y = S[(tid + 1) % bdim];
        barrier;
    }
}
";

#[test]
fn a_shared_tile_number_makes_the_exit_of_a_persistent_loop_uniform() {
    assert!(both(PERSISTENT).is_clean());
    assert!(both_with(PERSISTENT, launch(8, 2)).is_clean());
    // Warp lock step changes nothing: the reads of one instance are one step.
    let warps = CheckOptions {
        launch: kpl::Launch {
            warp_size: Some(4),
            ..(launch(8, 2)).launch
        },
        ..launch(8, 2)
    };
    assert!(both_with(PERSISTENT, warps).is_clean());
}

#[test]
fn a_tile_number_in_a_private_variable_diverges() {
    let src = PERSISTENT
        .replace("            local t;\n", "")
        .replace(
            "            t = atomic_add(C[0], 1);\n            T[0] = t;\n",
            "            b = atomic_add(C[0], 1);\n",
        )
        .replace("        local b;\n        b = T[0];\n", "")
        .replace("    while (1) {\n", "    local b;\n    while (1) {\n");
    let r = both(&src);
    assert_eq!(divergences(&r), [7, 12, 15]);
}

#[test]
fn a_tile_number_read_before_its_barrier_races() {
    let src = PERSISTENT.replacen("        barrier;\n        local b;", "        local b;", 1);
    let r = both(&src);
    assert_eq!(races(&r), [row("T", 6, 9, "write-read", true, &[], true)]);
    assert!(divergences(&r).is_empty());
}

#[test]
fn an_offset_read_twice_keeps_each_threads_writes_apart() {
    let src = "kernel k(shared O[], shared A[], u32 n) {
    if (tid == 0) {
        O[0] = n;
    }
    barrier;
    local b;
    b = O[0];
    A[b + tid] = 1;
    local c;
    c = O[0];
    A[c + bdim + tid] = 2;
}
";
    assert!(both(src).is_clean());
    // A write to the offset between the two reads (even one thread's, on a path): the
    // second read is a value of its own, and the writes may meet.
    let moved = src.replace(
        "    local c;\n",
        "    if (tid == 0) {\n        O[0] = n + 1;\n    }\n    local c;\n",
    );
    let r = both(&moved);
    assert_eq!(
        races(&r),
        [
            row("O", 7, 10, "read-write", true, &[], true),
            row("A", 8, 14, "write-write", true, &[], true),
            row("O", 10, 13, "write-read", true, &[], true),
        ]
    );
    // Thread-varying indices are not refined: `O[tid]` is each thread's own value.
    let own = src
        .replace("O[0]", "O[tid]")
        .replace("if (tid == 0)", "if (tid < bdim)");
    assert!(!races(&both(&own)).is_empty());
}

#[test]
fn a_phase_flag_rewritten_every_iteration() {
    // Thread 0 sets the phase at the top of each iteration; the phase decides who
    // writes where. The values of different iterations are different unknowns.
    let src = "kernel k(shared F[], shared A[]) {
    for (i = 0; i < 2; i = i + 1) {
        if (tid == 0) {
            F[0] = i;
        }
        barrier;
        local f;
        f = F[0];
        if (f == 0) {
            A[tid] = 1;
        } else {
            local x;
            x = A[bdim - 1 - tid];
        }
        barrier;
    }
}
";
    assert!(both(src).is_clean());
    // Without the barrier at the end, the next iteration's write of the phase races
    // with this iteration's read (the accesses of `A` stay ordered by the barrier at
    // the top).
    let r = both(&src.replacen("        barrier;\n    }\n}", "    }\n}", 1));
    assert_eq!(races(&r), [row("F", 4, 8, "write-read", false, &[1], true)]);
}

#[test]
fn atomic_results_stay_per_thread() {
    let src = "kernel k(global C[]) {
    local t;
    t = atomic_inc(C[0], 100);
    if (t > 3) {
        barrier;
    }
}
";
    assert_eq!(divergences(&both(src)), [5]);
    // A plain read of the same counter is one value for the block.
    let plain = src.replace("atomic_inc(C[0], 100)", "C[0]");
    assert!(both(&plain).is_clean());
}

#[test]
fn never_written_global_arrays_are_one_value_per_grid() {
    let src = "kernel k(global G[], global O[]) {
    local b;
    b = G[0];
    O[b + bid * bdim + tid] = tid;
}
";
    assert!(both(src).is_clean());
    // Once some thread writes `G`, other blocks may see another `G[0]`: the write
    // itself races across blocks with the reads, and the writes to `O` may meet.
    let written = src.replace(
        "    local b;\n",
        "    if (tid == 0) {\n        G[bid] = 0;\n    }\n    local b;\n",
    );
    let r = both(&written);
    assert_eq!(
        races(&r),
        [
            row("G", 3, 6, "write-read", true, &[], false),
            row("O", 7, 7, "write-write", true, &[], false),
        ]
    );
}

#[test]
fn a_shared_loop_bound_counts_the_same_chunks_in_every_thread() {
    let src = "kernel k(shared L[], shared S[], global In[]) {
    if (tid == 0) {
        local v;
        v = In[bid];
        L[0] = v;
    }
    barrier;
    local len;
    len = L[0];
    for (b = 0; b < len; b = b + bdim) {
        S[tid] = b;
        barrier;
        local y;
        y = S[(tid + 1) % bdim];
        barrier;
    }
}
";
    assert!(both(src).is_clean());
    // Per element instead of per chunk: the trip counts differ.
    let strided = src.replace("for (b = 0; b < len;", "for (b = tid; b < len;");
    assert_eq!(divergences(&both(&strided)), [12, 15]);
}
