//! Loop-instance places and races across iterations in one direction (issue #19, part 1
//! follow-up; `synth::regions::instance_places`, `oracle::Race::forward_only`), with the
//! static verifier as oracle: exact placements and costs (the paper's model), the result
//! re-checked by a fresh verifier, the placement without them (`loop_instances` off) for
//! comparison, and the twins where the barrier must stay elsewhere or none helps.

use kpl::{LabelTree, parse};
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle};
use synth::{Outcome, PaperCost, SynthOptions, Synthesis};

fn check_opts() -> CheckOptions {
    CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 1, 1])),
            grid: kpl::launch::dims(Some([2, 1, 1])),
            ..kpl::Launch::default()
        },
        race_directions: true,
        ..CheckOptions::default()
    }
}

fn run_with(src: &str, loop_instances: bool) -> Synthesis {
    let k = parse(src).unwrap().remove(0);
    let cost = PaperCost::default();
    let mut opts = SynthOptions::new(&cost);
    opts.loop_instances = loop_instances;
    let s = synth::synthesize(&k, &mut StaticVerifier::new(check_opts()), &opts).unwrap();
    if s.outcome == Outcome::Fixed {
        let r = StaticVerifier::new(check_opts()).check(&s.kernel).unwrap();
        assert!(r.is_clean(), "{r:?}");
    }
    s
}

/// The labels of the placement, its cost; with loop-instance places and without.
fn placed(src: &str, loop_instances: bool) -> (Vec<String>, f64) {
    let s = run_with(src, loop_instances);
    let t = LabelTree::new(&parse(src).unwrap().remove(0));
    (s.inserted.iter().map(|l| t.name(*l)).collect(), s.cost)
}

fn names(ls: &[&str]) -> Vec<String> {
    ls.iter().map(|s| s.to_string()).collect()
}

/// The loop's first iteration stores the value line 3 stored (`x` is still 0), so the
/// race with line 3 only happens from the second iteration on, which the barrier the
/// loop needs anyway (after line 5: the read of line 6 in the next iteration) orders.
const EQUAL_FIRST: &str = "kernel k(shared A[]) {
    local x = 0;
    A[(tid + 1) % 8] = x;
    for (i = 0; i < 2; i = i + 1) {
        A[tid] = x;
        x = A[tid + i];
    }
}";

#[test]
fn a_barrier_in_the_loop_orders_the_later_iterations() {
    assert_eq!(placed(EQUAL_FIRST, true), (names(&["5"]), 100.0));
    assert_eq!(placed(EQUAL_FIRST, false), (names(&["4:7s", "5"]), 200.0));
}

/// Twin: line 3 stores 1, the first iteration 0: the race with the first iteration is
/// real, a barrier before the loop is needed.
fn different_first() -> String {
    EQUAL_FIRST.replace("8] = x;", "8] = 1;")
}

#[test]
fn a_race_in_the_first_iteration_needs_a_barrier_before_the_loop() {
    assert_eq!(placed(&different_first(), true), (names(&["3", "5"]), 101.0));
}

/// [`EQUAL_FIRST`] inside an outer loop: across iterations of the outer loop, line 5 of
/// the next one races with line 7 of the last inner iteration, which no barrier of the
/// inner loop orders.
const NESTED: &str = "kernel k(shared A[], n) {
    local x = 0;
    for (j = 0; j < n; j = j + 1) {
        x = 0;
        A[(tid + 1) % 8] = x;
        for (i = 0; i < 2; i = i + 1) {
            A[tid] = x;
            x = A[tid + i];
        }
    }
}";

#[test]
fn nested_in_an_outer_loop() {
    assert_eq!(placed(NESTED, true), (names(&["3:10s", "7"]), 10100.0));
    assert_eq!(placed(NESTED, false), (names(&["3:10s", "5", "7"]), 10200.0));
}

/// Twin: the loop's trip count depends on the thread, a barrier in it diverges, and the
/// loop's own race (line 5 of one iteration, line 6 of the next) has no place outside:
/// no barrier helps.
fn thread_bound() -> String {
    EQUAL_FIRST.replace("i < 2", "i < tid % 2 + 1")
}

#[test]
fn a_thread_dependent_loop_has_no_solution() {
    for loop_instances in [true, false] {
        let s = run_with(&thread_bound(), loop_instances);
        let Outcome::NoSolution(ns) = &s.outcome else {
            panic!("{:?}", s.outcome)
        };
        assert!(
            ns.reason.contains("barrier divergence at line 4"),
            "{}",
            ns.reason
        );
    }
}

/// Only the first iteration reads: the race across iterations has the read in the
/// earlier one (forward only), so the barrier right after the read, inside the uniform
/// `if (i < 1)`, orders both the race within the first iteration and the later writes.
const FIRST_ONLY_READ: &str = "kernel k(shared A[], n) {
    local x = 0;
    for (i = 0; i < n; i = i + 1) {
        if (i < 1) {
            x = A[tid + 2];
        }
        A[tid] = x;
    }
}";

#[test]
fn a_forward_race_across_iterations_is_ordered_between_the_accesses() {
    assert_eq!(placed(FIRST_ONLY_READ, true), (names(&["5"]), 50.0));
    assert_eq!(placed(FIRST_ONLY_READ, false), (names(&["4:6s", "5"]), 100.0));
}

/// The same with a `while` loop and `i == 0`.
const FIRST_ONLY_READ_WHILE: &str = "kernel k(shared A[], n) {
    local x = 0;
    local i = 0;
    while (i < n) {
        if (i == 0) {
            x = A[tid + 2];
        }
        A[tid] = x;
        i = i + 1;
    }
}";

#[test]
fn a_forward_race_across_iterations_of_a_while_loop() {
    assert_eq!(placed(FIRST_ONLY_READ_WHILE, true), (names(&["6"]), 50.0));
    assert_eq!(
        placed(FIRST_ONLY_READ_WHILE, false),
        (names(&["5:7s", "6"]), 100.0)
    );
}

/// Twin: two iterations read, so the write of the first races with the read of the
/// second (backward): a second barrier, at the top of the `if`.
fn two_reads() -> String {
    FIRST_ONLY_READ.replace("i < 1", "i < 2")
}

#[test]
fn a_backward_race_across_iterations_needs_its_own_barrier() {
    assert_eq!(placed(&two_reads(), true), (names(&["4:6s", "5"]), 100.0));
}

/// Twin: the read's guard is thread-dependent, so the barrier goes after the `if`
/// (which orders the forward race too); without forward races, a second one at the top.
fn thread_guard() -> String {
    FIRST_ONLY_READ.replace("if (i < 1)", "if (tid < 4 && i < 1)")
}

#[test]
fn a_forward_race_under_a_thread_dependent_guard() {
    assert_eq!(placed(&thread_guard(), true), (names(&["4:6"]), 100.0));
    assert_eq!(placed(&thread_guard(), false), (names(&["3:8s", "4:6"]), 200.0));
}

/// A tree sweep whose last iteration is run by thread 0 alone, followed by thread 0
/// zeroing `A[0]` (the shape of Blelloch's scan): the loop's barrier at its top orders
/// the earlier iterations' accesses of `A[0]` before the zeroing; the last iteration's
/// are thread 0's own.
const SWEEP_THEN_ZERO: &str = "kernel k(shared A[]) {
    local x = 0;
    local y = 0;
    for (d = 4; d > 0; d = d / 2) {
        if (tid < d) {
            x = A[2 * d - 1 - tid];
            y = A[d - 1 - tid];
            A[d - 1 - tid] = x + y;
        }
    }
    if (tid == 0) {
        A[0] = 0;
    }
}";

#[test]
fn the_loop_top_barrier_orders_the_accesses_before_the_loop_exit() {
    assert_eq!(placed(SWEEP_THEN_ZERO, true), (names(&["4:10s"]), 100.0));
    // Without loop-instance places the end of the loop body does it at the same cost.
    assert_eq!(placed(SWEEP_THEN_ZERO, false), (names(&["5:9"]), 100.0));
}

/// Twin: thread 1 zeroes `A[0]`, which thread 0 accessed in the last iteration: the
/// barrier must follow the last iteration's accesses, at the end of the loop body.
fn zero_by_another() -> String {
    SWEEP_THEN_ZERO.replace("tid == 0", "tid == 1")
}

#[test]
fn a_race_with_the_last_iteration_needs_a_barrier_after_it() {
    assert_eq!(placed(&zero_by_another(), true), (names(&["5:9"]), 100.0));
}

/// Twin: the zeroing is of the other block's element of a global array: no block
/// barrier helps (the loop's own races are still fixed, as a partial placement).
const OTHER_BLOCK: &str = "kernel k(global G[]) {
    local x = 0;
    local y = 0;
    for (d = 4; d > 0; d = d / 2) {
        if (tid < d) {
            x = G[bid * 8 + 2 * d - 1 - tid];
            y = G[bid * 8 + d - 1 - tid];
            G[bid * 8 + d - 1 - tid] = x + y;
        }
    }
    if (tid == 0) {
        G[(bid + 1) % 2 * 8] = 0;
    }
}";

#[test]
fn a_race_between_blocks_after_the_loop_has_no_solution() {
    let s = run_with(OTHER_BLOCK, true);
    let Outcome::NoSolution(ns) = &s.outcome else {
        panic!("{:?}", s.outcome)
    };
    assert!(
        ns.reason.contains("between threads of different blocks"),
        "{}",
        ns.reason
    );
    assert!(ns.races.iter().all(|r| !r.fixable && r.second.span.line == 12));
}

#[test]
fn the_naive_baseline_refuses_grid_and_warp_barriers() {
    let k = parse(EQUAL_FIRST).unwrap().remove(0);
    let cost = PaperCost::default();
    for grid in [true, false] {
        let mut opts = SynthOptions::new(&cost);
        opts.grid_barriers = grid;
        opts.warp_barriers = !grid;
        let err = synth::naive(&k, &mut StaticVerifier::new(check_opts()), &opts).unwrap_err();
        assert!(matches!(err, synth::SynthError::Unsupported(_)), "{err}");
        assert!(err.to_string().contains("block barriers only"), "{err}");
    }
}

#[test]
fn the_verifier_tells_forward_only_races_when_asked() {
    let race = |src: &str, directions: bool| {
        let k = parse(src).unwrap().remove(0);
        let opts = CheckOptions {
            race_directions: directions,
            ..check_opts()
        };
        let r = StaticVerifier::new(opts).check(&k).unwrap();
        assert_eq!(r.races.len(), 1, "{r:?}");
        let r = r.races[0].clone();
        (r.intra, r.inter, r.forward_only)
    };
    assert_eq!(race(FIRST_ONLY_READ, true), (true, vec![1], vec![1]));
    assert_eq!(race(FIRST_ONLY_READ, false), (true, vec![1], vec![]));
    assert_eq!(race(&two_reads(), true), (true, vec![1], vec![]));
}

/// Kernels whose loops need barriers for their own races, with a race between an access
/// in an inner loop and one after the loops: every barrier inside the loops before that
/// access touches the race (a loop-instance place) and none orders its last iteration.
/// Places of one enclosing block on one side of the access are one class, so one round
/// refutes them all; before, each place was a class and the rounds walked through them.
const NESTED_WRITES: &str = "kernel k(shared A[]) {
  local x;
  local y;
  for (i = 0; i < 4; i = i + 1) {
    x = i + 1;
    y = x * 2;
    A[tid] = y;
    for (j = 0; j < 3; j = j + 1) {
      x = A[tid + 1];
      y = x + j;
      A[tid] = y;
    }
  }
  y = A[tid + 1];
  A[tid] = y;
}";

/// The same shape over two arrays, partners `tid ^ 1`.
const NESTED_PARTNERS: &str = "kernel k(shared A[], shared B[]) {
  local x;
  local s;
  s = 1;
  for (i = 0; i < 8; i = i + 1) {
    x = B[tid];
    s = s + x;
    for (j = 0; j < 2; j = j + 1) {
      x = A[tid ^ 1];
      s = s + x;
      A[tid] = s;
    }
    B[tid] = s;
  }
  x = A[tid ^ 1];
  B[tid] = x;
}";

/// A write before the loops, rotating reads in the inner loop, a mirrored read after.
const NESTED_ROTATIONS: &str = "kernel k(shared A[]) {
  local x;
  A[tid] = tid;
  for (i = 0; i < 4; i = i + 1) {
    x = i;
    x = x + 2;
    for (j = 0; j < 4; j = j + 1) {
      x = x + 1;
      x = A[(tid + j) % bdim];
      A[tid] = x + 1;
    }
  }
  x = A[bdim - 1 - tid];
}";

#[test]
fn loop_instance_places_of_one_block_and_side_are_refuted_together() {
    for (src, at, cost) in [
        (NESTED_WRITES, vec!["8:12s", "9", "4:13", "14"], 20002.0),
        (NESTED_PARTNERS, vec!["9", "11"], 20000.0),
        (NESTED_ROTATIONS, vec!["9", "10"], 20000.0),
    ] {
        let s = run_with(src, true);
        assert_eq!(s.outcome, Outcome::Fixed, "{src}");
        let t = LabelTree::new(&parse(src).unwrap().remove(0));
        let lines: Vec<String> = s.inserted.iter().map(|l| t.name(*l)).collect();
        assert_eq!((lines, s.cost), (names(&at), cost), "{src}");
        // One round finds the loops' races, one the race after them, one accepts.
        assert_eq!(s.stats.oracle_calls, 3, "{src}");
    }
}

#[test]
fn instance_classes_group_places_by_block_and_side() {
    let k = parse(NESTED_WRITES).unwrap().remove(0);
    let t = LabelTree::new(&k);
    let label = |line: u32| {
        t.in_order()
            .find(|l| t.line(*l) == line && t.stmt_id(*l).is_some())
            .unwrap()
    };
    // The write in the inner loop (line 11) and the read after the loops (line 14).
    let (first, second) = (label(11), label(14));
    let uniform = t.candidates().into_iter().collect();
    let places = synth::regions::instance_places(&t, first, second, 0, &uniform);
    let classes = synth::regions::instance_classes(&t, first, second, 0, &places);
    let named: Vec<Vec<String>> = classes
        .iter()
        .map(|c| c.iter().map(|l| t.name(*l)).collect())
        .collect();
    // Outer body before the inner loop (its start, lines 5 to 7); inner body before the
    // write (its start, lines 9 and 10); after the write; after the inner loop (the last
    // two run after the write in every iteration: the race's interval has them, and
    // `CoverRace` leaves them out of its loop-instance places).
    let expected = [
        vec!["4:13s", "5", "6", "7"],
        vec!["8:12s", "9", "10"],
        vec!["11"],
        vec!["8:12"],
    ];
    assert_eq!(named, expected, "{places:?}");
}
