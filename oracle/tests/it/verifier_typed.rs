//! Typed reads (`x = u32(A[i]);`, docs/semantics.md "Memory contents are abstract"): the
//! value is the element converted to the type, so the verifier knows its range. Each
//! kernel that verifies thanks to it has a twin that must still race: untyped, through a
//! wider or signed type, or a punned read that must not be taken for another type's.

use crate::common::*;

/// The column `k % 4` of a key read as `u32` is in 0..4: each thread stays in its own
/// 4 cells. Untyped or as `i32`, the key may be negative and the column -1 is the last
/// cell of the thread before.
#[test]
fn an_unsigned_read_is_never_negative() {
    let src = "kernel k(shared S[], global K[]) {
    local k;
    k = u32(K[tid]);
    S[tid * 4 + k % 4] = 1;
}
";
    assert!(check(src).is_clean(), "{:?}", races(&check(src)));
    for racy in ["k = K[tid];", "k = i32(K[tid]);"] {
        let twin = src.replace("k = u32(K[tid]);", racy);
        assert_eq!(
            races(&check(&twin)),
            [row("S", 4, 4, "write-write", true, &[], true)],
            "{racy}"
        );
    }
}

/// An `i8` read is in -128..128, so `k + 128` is a column of 256; a `u16` read is not.
#[test]
fn a_narrow_signed_read_is_in_its_range() {
    let src = "kernel k(shared S[], global K[]) {
    local k;
    k = i8(K[tid]);
    S[tid * 256 + k + 128] = 1;
}
";
    assert!(check(src).is_clean(), "{:?}", races(&check(src)));
    let twin = src.replace("i8(K[tid])", "u16(K[tid])");
    assert_eq!(
        races(&check(&twin)),
        [row("S", 4, 4, "write-write", true, &[], true)]
    );
}

/// Two reads of one element through different types are different values (200 is -56
/// as an `i8`): the verifier must not take one for the other, so the `else` branch,
/// which races, is reachable. Read twice through the same type, the values are one.
#[test]
fn a_punned_read_is_not_the_other_types_value() {
    let src = "kernel k(shared S[], global G[]) {
    local a;
    local b;
    a = u8(S[0]);
    b = i8(S[0]);
    if (a == b) {
        G[bid * bdim + tid] = 1;
    } else {
        G[0] = tid;
    }
}
";
    assert_eq!(
        races(&check(src)),
        [
            row("G", 7, 9, "write-write", true, &[], false),
            row("G", 9, 9, "write-write", true, &[], false)
        ]
    );
    let same = src.replace("b = i8(S[0]);", "b = u8(S[0]);");
    assert!(check(&same).is_clean(), "{:?}", races(&check(&same)));
}

/// The old value of an atomic on an unsigned counter is never negative: `slot < 64`
/// keeps the slot in its bin's row. Untyped, a negative slot of one bin is a slot of
/// the bin before.
#[test]
fn an_atomic_old_value_has_the_element_type() {
    let src = "kernel k(shared F[], global R[], global K[]) {
    local key;
    local bin;
    local slot;
    key = u32(K[tid]);
    bin = key % 16;
    slot = u32(atomic_add(F[bin], 1));
    if (slot < 64) {
        R[bin * 64 + slot] = key;
    }
}
";
    let opts = launch(256, 1);
    assert!(check_with(src, opts.clone()).is_clean());
    let twin = src.replace("u32(atomic_add(F[bin], 1))", "atomic_add(F[bin], 1)");
    assert_eq!(
        races(&check_with(&twin, opts)),
        [row("R", 9, 9, "write-write", true, &[], true)]
    );
}
