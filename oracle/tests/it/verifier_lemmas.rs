//! The arithmetic lemmas the encoder adds to help the solver (products with a common
//! factor, `encode.rs`'s `product_lemmas`) must be true of every integer, negative ones
//! included: a false lemma silently removes witnesses. Each kernel here has its witness
//! where a common factor is negative. The lemma for `f ≤ -1` once said `p2 + f ≥ p1`
//! instead of `p2 - f ≤ p1` (found by the property test): the first and the last
//! kernel were then reported race-free. Each has a clean twin.

use crate::common::*;
use oracle::CheckOptions;

/// Two threads store `(tid + 1)·m` for a negative `m`: different values, a race even
/// under the benign-write tolerance. The twin stores only for `m == 0`: equal values.
#[test]
fn products_with_a_negative_common_factor_still_differ() {
    let src = "kernel neg(shared A[], n) {
    local m = n;
    m = m - 8;
    if (m < 0) {
        A[0] = (tid + 1) * m;
    }
}
";
    let r = check_with(src, CheckOptions::default());
    assert_eq!(races(&r), [row("A", 5, 5, "write-write", true, &[], true)]);
    let twin = src.replace("m < 0", "m == 0");
    assert!(check_with(&twin, CheckOptions::default()).is_clean());
}

/// A read of `(tid + 2)·m` meets the write of `(tid + 1)·m` of thread `tid + 1`
/// whatever the nonzero `m`; the guard keeps only negative ones: a race. Its twin
/// moves the read by `2000·m`, out of reach of any thread's write (it would need
/// `t' = t + 2001`, beyond 1024 threads), and stays clean.
#[test]
fn indices_scaled_by_a_negative_common_factor_still_meet() {
    let src = "kernel neg(shared A[], n) {
    local m = n;
    local y = 0;
    m = m - 8;
    if (m < 0) {
        A[(tid + 1) * m + 100000] = 1;
        y = A[(tid + 2) * m + 100000];
    }
}
";
    let r = check(src);
    assert_eq!(races(&r), [row("A", 6, 7, "write-read", true, &[], true)]);
    let twin = src.replace("m < 0", "m > 0").replace(
        "y = A[(tid + 2) * m + 100000]",
        "y = A[(tid + 2) * m + 100000 + 2000 * m]",
    );
    assert!(check(&twin).is_clean(), "{:?}", races(&check(&twin)));
}

/// A loop whose trip count depends on the thread (`w` steps by `tid + 1` up to `tid`:
/// thread 0 never enters, thread 1 does once) holds a barrier: divergence. The proved
/// conditional closed form of `x` (`tid > 100000 → x == (tid + 1)·(k - 1)`) brings a
/// product whose factor `k - 1` is `-1` at the first iteration. Its twin has the
/// barrier after the loop.
#[test]
fn a_negative_iteration_factor_keeps_the_divergence() {
    let src = "kernel div(shared A[]) {
    local x = 0;
    local w = 0;
    if (0 < x) {
    }
    while (w < tid) {
        if (tid > 100000) {
            x = w;
        }
        barrier;
        w = w + (tid + 1);
    }
}
";
    assert_eq!(divergences(&check(src)), [10]);
    let twin = src
        .replace("        barrier;\n", "")
        .replace("    }\n}\n", "    }\n    barrier;\n}\n");
    assert!(check(&twin).is_clean());
}

/// The bit-level encodings of `id & mask` split an id into its bits; on a launch
/// dimension of size 1 the id has none, and their sum is empty (the verifier once
/// panicked there, found by the property test once it generated `bid`). A power-of-two
/// mask `~(j - 1)` of a doubling `j`: the race-free kernel and its racy twin, both
/// checked against the interpreter.
#[test]
fn bitwise_masks_of_a_block_id_on_a_one_block_launch() {
    let src = "kernel onebit(shared A[], n) {
    for (j = 1; j < n; j = j * 2) {
        A[tid + (bid & ~(j - 1))] = tid;
    }
}
";
    let r = static_covering_dynamic(src, launch(8, 1));
    assert_eq!(races(&r), vec![]);
    let racy = src.replace("tid + (bid & ~(j - 1))", "bid & ~(j - 1)");
    let r = static_covering_dynamic(&racy, launch(8, 1));
    assert_eq!(races(&r), [row("A", 3, 3, "write-write", true, &[1], true)]);
}
