//! C integer types in both oracles: typed parameters range over their whole type (one
//! value per launch), conversions (`u32(e)`, `i8(e)`, ...) are exact, and `x / 0` has
//! one meaning — an unknown function of the dividend, the same in every thread. Each
//! race-free kernel has a racy twin; both oracles are asked, and they must agree.

use crate::common::*;
use oracle::dynamic::Interpreter;
use oracle::{CheckOptions, Oracle, Report};

fn dynamic(src: &str, opts: CheckOptions) -> Report {
    Interpreter::new(opts)
        .check(&kernel(src))
        .expect("the interpreter answers")
}

/// The race rows of both oracles (launch of 8 threads in 1 block for the interpreter;
/// the verifier's launch is symbolic unless `opts` fixes it).
fn both(src: &str) -> (Vec<RaceRow>, Vec<RaceRow>) {
    (races(&check(src)), races(&dynamic(src, launch(8, 1))))
}

#[test]
fn a_signed_parameter_can_be_negative() {
    let racy = "kernel k(global A[], i32 m) {
    if (m < 0) {
        A[1] = tid;
    }
}
";
    let (s, d) = both(racy);
    assert_eq!(s, [row("A", 3, 3, "write-write", true, &[], false)]);
    assert_eq!(d, [row("A", 3, 3, "write-write", true, &[], true)]);
    // Unsigned (and untyped) parameters are never negative.
    for clean in [racy.replace("i32 m", "u32 m"), racy.replace("i32 m", "m")] {
        assert!(check(&clean).is_clean(), "{clean}");
        assert!(dynamic(&clean, launch(8, 1)).is_clean(), "{clean}");
    }
}

#[test]
fn a_negative_precondition_is_satisfiable_for_signed_parameters() {
    let racy = "kernel k(global A[], i16 m) requires m < -1 {
    A[m + 2] = tid;
}
";
    let (s, d) = both(racy);
    assert_eq!(s, [row("A", 2, 2, "write-write", true, &[], false)]);
    assert_eq!(d, [row("A", 2, 2, "write-write", true, &[], true)]);
}

#[test]
fn a_parameter_stays_within_its_type() {
    // Thread t writes t * 256 + m and reads t * 256 + 128: another thread's write meets
    // the read only when m = 128 + 256 * k for some k >= 1, which an `i16` allows
    // (m = 384) and an `i8` does not.
    let racy = "kernel k(shared A[], i16 m) requires m >= 0 {
    local x;
    A[tid * 256 + m] = 1;
    x = A[tid * 256 + 128];
}
";
    let r = check(racy);
    assert_eq!(races(&r), [row("A", 3, 4, "write-read", true, &[], true)]);
    assert!(check(&racy.replace("i16 m", "i8 m")).is_clean());
    assert!(check(&racy.replace("i16 m", "u8 m")).is_clean());
}

#[test]
fn converting_a_negative_value_to_unsigned_wraps() {
    // d = tid - 2 is -2 and -1 for threads 0 and 1; as a u32 they exceed any block size.
    let racy = "kernel k(shared A[]) {
    local d = tid - 2;
    if (u32(d) < bdim) {
        A[tid] = 1;
    } else {
        A[bdim] = tid;
    }
}
";
    let (s, d) = both(racy);
    assert_eq!(s, [row("A", 6, 6, "write-write", true, &[], true)]);
    assert_eq!(d, s);
    // Without the conversion, every thread takes the first branch.
    let clean = racy.replace("u32(d)", "d");
    assert!(check(&clean).is_clean(), "{clean}");
    assert!(dynamic(&clean, launch(8, 1)).is_clean());
}

#[test]
fn narrowing_conversions_are_exact() {
    // u8(tid + 256 * k) is tid: threads 0..255 write distinct cells for any k.
    let clean = "kernel k(shared A[], m) requires bdim <= 256 {
    A[u8(tid + 256 * m)] = 1;
}
";
    assert!(check(clean).is_clean());
    // u8(tid * 128) is 0 or 128: threads 0 and 2 collide.
    let racy = "kernel k(shared A[]) {
    A[u8(tid * 128)] = 1;
}
";
    let (s, d) = both(racy);
    assert_eq!(s, [row("A", 2, 2, "write-write", true, &[], true)]);
    assert_eq!(d, s);
    // i8(tid + 128) is tid - 128 for tid < 128: still one cell per thread.
    let signed = "kernel k(shared A[]) requires bdim <= 128 {
    A[i8(tid + 128) + 128] = 1;
}
";
    assert!(check(signed).is_clean());
    assert!(dynamic(signed, launch(8, 1)).is_clean());
}

#[test]
fn a_conversion_of_a_value_in_range_is_the_identity() {
    // i32(tid) is tid (a block has at most 1024 threads): the barrier-free partition
    // verifies, and the racy neighbour read is still found.
    let clean = "kernel k(shared A[]) {
    A[i32(tid)] = 1;
}
";
    assert!(check(clean).is_clean());
    let racy = "kernel k(shared A[]) {
    local x;
    A[i32(tid)] = 1;
    x = A[u32(tid + 1)];
}
";
    assert_eq!(
        races(&check(racy)),
        [row("A", 3, 4, "write-read", true, &[], true)]
    );
}

#[test]
fn division_by_zero_is_one_function_of_the_dividend_in_both_oracles() {
    // m % 0 is unknown but the same in every thread: the barrier is not divergent, and
    // the write index is the same for all threads (a race only between blocks here).
    let src = "kernel k(global A[], m) {
    local z = 0;
    if (m % z == 1) {
        barrier;
    }
    A[m / z] = 1;
}
";
    let s = check(src);
    let d = dynamic(src, launch(8, 1));
    assert_eq!(divergences(&s), Vec::<u32>::new());
    assert_eq!(divergences(&d), Vec::<u32>::new());
    assert_eq!(races(&s), [row("A", 6, 6, "write-write", true, &[], false)]);
    assert_eq!(races(&d), [row("A", 6, 6, "write-write", true, &[], true)]);
    // A thread-dependent dividend makes the result thread-dependent: divergence.
    let divergent = src.replace("m % z", "tid % z");
    assert_eq!(divergences(&check(&divergent)), [4]);
}
