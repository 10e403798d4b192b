//! The kernel's own loop invariants (KPL `invariant e;`, GPUVerify's `__invariant(e)`
//! through the CUDA front end; the `.cu` forms are in `tests/corpus/annotations/`):
//! checked hints. A proved one is assumed at the loop head and after the loop; one that
//! is false before the first iteration, or that an iteration does not preserve (alone or
//! with the other candidates), is reported in a note and ignored, never trusted; one
//! that is not at the head of a loop body is reported and ignored. Each kernel that
//! verifies thanks to an invariant has a racy twin that is still caught.

use crate::common::*;

/// `x` goes up by 2 or by 4 depending on the thread and the iteration: no closed form,
/// and nothing the verifier generates says it stays even. The thread's read at
/// `2·tid + 1 + x % 2` misses every thread's write at `2·tid` only if `x` is even.
const PARITY: &str = "kernel parity(shared A[], n) {
    local x = 0;
    local i = 0;
    local v;
    while (i < n) {
        invariant x % 2 == 0;
        if (tid < i) {
            x = x + 2;
        } else {
            x = x + 4;
        }
        i = i + 1;
    }
    A[2 * tid] = 1;
    v = A[2 * tid + 1 + x % 2];
}
";

#[test]
fn a_proved_invariant_verifies_a_kernel_that_needs_it() {
    let r = check(PARITY);
    assert!(r.is_clean(), "{:?}", races(&r));
    assert_eq!(r.notes, Vec::<String>::new());
    // Without the invariant, `x` is arbitrary after the loop: a false alarm.
    let without = PARITY.replace("        invariant x % 2 == 0;\n", "");
    assert_eq!(
        races(&check(&without)),
        [row("A", 13, 14, "write-read", true, &[], true)]
    );
}

#[test]
fn the_racy_twin_of_a_proved_invariant_is_still_caught() {
    // The same invariant, proved, but the read now lands on the next thread's write when
    // `x` is even (which it always is).
    let racy = PARITY.replace("2 * tid + 1 + x % 2", "2 * tid + 2 - x % 2");
    let r = check(&racy);
    assert_eq!(races(&r), [row("A", 14, 15, "write-read", true, &[], true)]);
    assert_eq!(r.notes, Vec::<String>::new());
    // Inside the loop too: the invariant holds at every head, so a write at `x + tid`
    // races whatever its parity.
    let inside = PARITY.replace(
        "        i = i + 1;\n",
        "        i = i + 1;\n        A[x + 2 * tid] = 0;\n",
    );
    assert!(!check(&inside).is_clean());
}

#[test]
fn an_invariant_false_before_the_loop_is_reported_and_ignored() {
    // `x` starts odd and stays odd: the read hits the next thread's write. Trusting the
    // (false) invariant would hide that race.
    let odd = PARITY.replace("local x = 0;", "local x = 1;");
    let r = check(&odd);
    assert_eq!(races(&r), [row("A", 14, 15, "write-read", true, &[], true)]);
    assert_eq!(
        r.notes,
        ["line 6: invariant not proved (it does not hold before the first iteration), ignored"]
    );
}

#[test]
fn an_invariant_an_iteration_breaks_is_reported_and_ignored() {
    // A step of 3 makes `x` odd after some iterations: not inductive, and the race is real.
    let three = PARITY.replace("x = x + 4;", "x = x + 3;");
    let r = check(&three);
    assert_eq!(races(&r), [row("A", 14, 15, "write-read", true, &[], true)]);
    assert_eq!(
        r.notes,
        ["line 6: invariant not proved (an iteration does not preserve it), ignored"]
    );
}

/// `x` goes up by `d`, which goes up by 2 or 4: `x` stays even, but only because `d`
/// does. `x % 2 == 0` alone is true at every iteration and not inductive.
const TWO_STEP: &str = "kernel two_step(shared A[], n) {
    local x = 0;
    local d = 0;
    local i = 0;
    local v;
    while (i < n) {
        invariant x % 2 == 0;
        x = x + d;
        if (tid < i) {
            d = d + 2;
        } else {
            d = d + 4;
        }
        i = i + 1;
    }
    A[2 * tid] = 1;
    v = A[2 * tid + 1 + x % 2];
}
";

#[test]
fn a_true_invariant_that_is_not_inductive_is_reported_and_ignored() {
    let r = check(TWO_STEP);
    assert_eq!(races(&r), [row("A", 16, 17, "write-read", true, &[], true)]);
    assert_eq!(
        r.notes,
        ["line 7: invariant not proved (an iteration does not preserve it), ignored"]
    );
    // With the invariant that makes it inductive, both are proved together.
    let strong = TWO_STEP.replace(
        "        invariant x % 2 == 0;\n",
        "        invariant x % 2 == 0;\n        invariant d % 2 == 0;\n",
    );
    let r = check(&strong);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    assert_eq!(r.notes, Vec::<String>::new());
    // Its racy twin: `d` odd at first, so `x` becomes odd.
    let racy = strong.replace("local d = 0;", "local d = 1;");
    let r = check(&racy);
    assert_eq!(races(&r), [row("A", 17, 18, "write-read", true, &[], true)]);
    assert_eq!(
        r.notes,
        [
            "line 7: invariant not proved (an iteration does not preserve it), ignored",
            "line 8: invariant not proved (it does not hold before the first iteration), ignored"
        ]
    );
}

#[test]
fn an_invariant_before_a_loop_is_reported_and_ignored() {
    // GPUVerify takes loop invariants at the head of a loop only (its condition, or the
    // top of its body). One written just before the loop is not taken as the loop's:
    // reported, ignored, and the false alarm stays.
    let before = PARITY.replace("        invariant x % 2 == 0;\n", "").replace(
        "    while (i < n) {\n",
        "    invariant x % 2 == 0;\n    while (i < n) {\n",
    );
    let r = check(&before);
    assert_eq!(races(&r), [row("A", 14, 15, "write-read", true, &[], true)]);
    assert_eq!(
        r.notes,
        ["line 5: invariant not at the head of a loop body, ignored"]
    );
    // After another statement of the body it is not at the head either.
    let late = PARITY.replace("        invariant x % 2 == 0;\n", "").replace(
        "        i = i + 1;\n",
        "        i = i + 1;\n        invariant x % 2 == 0;\n",
    );
    let r = check(&late);
    assert_eq!(races(&r), [row("A", 14, 15, "write-read", true, &[], true)]);
    assert_eq!(
        r.notes,
        ["line 12: invariant not at the head of a loop body, ignored"]
    );
}
