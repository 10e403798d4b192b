//! Warp lock step (`--warp-size`, seed 000 Sec. 3, the re-sync method): both oracles
//! must agree on the exact racing pairs of warp-synchronous code.

use crate::common;

use crate::common::{RaceRow, check_with, kernel, races, row, strict};
use oracle::dynamic::Interpreter;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle};

fn warp_launch(block: u32, warp: Option<u32>) -> CheckOptions {
    CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([block, 1, 1])),
            grid: kpl::launch::dims(Some([1, 1, 1])),
            warp_size: warp,
            ..(strict()).launch
        },
        ..strict()
    }
}

/// The races of both oracles, which must be equal (and equal under the verifier's
/// two-pass method).
fn both(src: &str, opts: CheckOptions) -> Vec<RaceRow> {
    let fixed = races(&check_with(src, opts.clone()));
    let mut two_pass = StaticVerifier::new(opts.clone());
    two_pass.warp_two_pass = true;
    let passes = races(&two_pass.check(&kernel(src)).expect("the verifier answers"));
    assert_eq!(fixed, passes, "re-sync and two-pass disagree");
    let dynamic = races(
        &Interpreter::new(opts)
            .check(&kernel(src))
            .expect("the interpreter runs"),
    );
    assert_eq!(fixed, dynamic, "static and dynamic oracles disagree");
    fixed
}

/// The warp-synchronous tail of the SDK reductions (reduce5/reduce6): the first warp
/// folds 32 partial sums with no barrier.
const TAIL: &str = "kernel tail(shared s[]) {
  if (tid < 32) {
    local a;
    local b;
    a = s[tid];
    b = s[tid + 16];
    s[tid] = a + b;
    a = s[tid];
    b = s[tid + 8];
    s[tid] = a + b;
  }
}";

#[test]
fn warp_synchronous_tail_is_clean_in_lock_step() {
    assert_eq!(both(TAIL, warp_launch(64, Some(32))), vec![]);
}

#[test]
fn warp_synchronous_tail_races_without_lock_step() {
    let found = both(TAIL, warp_launch(64, None));
    assert!(
        found.contains(&row("s", 6, 7, "read-write", true, &[], true)),
        "{found:?}"
    );
    assert!(
        found.contains(&row("s", 7, 9, "write-read", true, &[], true)),
        "{found:?}"
    );
}

#[test]
fn lock_step_does_not_order_threads_of_different_warps() {
    // Threads 16..31 of warp 0 read what threads 32..47 of warp 1 write.
    let src = TAIL.replace("tid < 32", "tid < 48");
    let found = both(&src, warp_launch(64, Some(32)));
    assert!(
        found.contains(&row("s", 6, 7, "read-write", true, &[], true)),
        "{found:?}"
    );
    // Small warps: thread 0 reads s[16], which thread 16 (another warp of 16) writes.
    let found = both(TAIL, warp_launch(64, Some(16)));
    assert!(
        found.contains(&row("s", 6, 7, "read-write", true, &[], true)),
        "{found:?}"
    );
}

#[test]
fn one_write_instruction_of_a_warp_races_with_itself() {
    let src = "kernel k(shared s[]) {
  s[0] = tid;
}";
    assert_eq!(
        both(src, warp_launch(32, Some(32))),
        vec![row("s", 2, 2, "write-write", true, &[], true)]
    );
}

#[test]
fn divergent_paths_of_a_warp_are_not_ordered() {
    // A "porting race" (seed 000): threads on the two sides of a branch never
    // re-synchronize in between.
    let src = "kernel k(shared s[]) {
  if (tid < 16) {
    s[0] = 1;
  } else {
    s[0] = 2;
  }
}";
    assert_eq!(
        both(src, warp_launch(32, Some(32))),
        vec![
            row("s", 3, 3, "write-write", true, &[], true),
            row("s", 3, 5, "write-write", true, &[], true),
            row("s", 5, 5, "write-write", true, &[], true),
        ]
    );
    // One thread per side: only the pair across the branch.
    let one = "kernel k(shared s[]) {
  if (tid == 0) {
    s[0] = 1;
  }
  if (tid == 16) {
    s[0] = 2;
  }
}";
    assert_eq!(
        both(one, warp_launch(32, Some(32))),
        vec![row("s", 3, 6, "write-write", true, &[], true)]
    );
}

#[test]
fn neighbour_exchange_is_ordered_inside_one_warp_only() {
    let src = "kernel k(shared s[]) {
  local x;
  s[tid] = tid;
  x = s[(tid + 1) % bdim];
}";
    assert_eq!(both(src, warp_launch(32, Some(32))), vec![]);
    assert_eq!(
        both(src, warp_launch(64, Some(32))),
        vec![row("s", 3, 4, "write-read", true, &[], true)]
    );
}

#[test]
fn lock_step_loop_iterations_are_ordered() {
    // A warp-synchronous scan step in a loop: every iteration reads what the previous
    // one wrote, and threads of one warp stay in lock step.
    let src = "kernel k(shared s[]) {
  local x;
  for (d = 1; d < 32; d = d * 2) {
    if (tid >= d) {
      x = s[tid - d];
      s[tid] = x + 1;
    }
  }
}";
    assert_eq!(both(src, warp_launch(32, Some(32))), vec![]);
    let found = both(src, warp_launch(32, None));
    assert!(!found.is_empty());
}

/// Divergent barriers of both oracles, which must be equal.
fn both_divergences(src: &str, opts: CheckOptions) -> Vec<u32> {
    let fixed = common::divergences(&check_with(src, opts.clone()));
    let dynamic = common::divergences(
        &Interpreter::new(opts)
            .check(&kernel(src))
            .expect("the interpreter runs"),
    );
    assert_eq!(
        fixed, dynamic,
        "static and dynamic oracles disagree on divergence"
    );
    fixed
}

const EXCHANGE: &str = "kernel k(shared s[]) {
  local x;
  s[tid] = tid;
  warp_barrier;
  x = s[(tid + 1) % bdim];
}";

#[test]
fn warp_barrier_orders_the_threads_of_one_warp_only() {
    // No lock step: `__syncwarp()` (warps of 32 by default) is what orders them.
    assert_eq!(both(EXCHANGE, warp_launch(32, None)), vec![]);
    // Thread 31 reads what thread 32, in the next warp, writes.
    assert_eq!(
        both(EXCHANGE, warp_launch(64, None)),
        vec![row("s", 3, 5, "write-read", true, &[], true)]
    );
    // Warps of 4 threads under --warp-size 4 (lock step also orders them).
    assert_eq!(
        both(EXCHANGE, warp_launch(8, Some(4))),
        vec![row("s", 3, 5, "write-read", true, &[], true)]
    );
    let without = EXCHANGE.replace("  warp_barrier;\n", "");
    assert_eq!(
        both(&without, warp_launch(32, None)),
        vec![row("s", 3, 4, "write-read", true, &[], true)]
    );
}

#[test]
fn warp_barrier_diverges_only_when_a_warp_disagrees() {
    let src = "kernel k(shared s[]) {
  if (tid < 16) {
    warp_barrier;
  }
}";
    assert_eq!(both_divergences(src, warp_launch(32, None)), vec![3]);
    // Whole warps take the branch: no divergence.
    let whole = src.replace("tid < 16", "tid < 32");
    assert_eq!(both_divergences(&whole, warp_launch(64, None)), Vec::<u32>::new());
    // A divergent warp barrier orders nothing.
    let racy = "kernel k(shared s[]) {
  local x;
  s[tid] = tid;
  if (tid < 16) {
    warp_barrier;
  }
  x = s[(tid + 1) % bdim];
}";
    assert_eq!(both_divergences(racy, warp_launch(32, None)), vec![5]);
    assert_eq!(
        both(racy, warp_launch(32, None)),
        vec![row("s", 3, 7, "write-read", true, &[], true)]
    );
}

/// `Race::warp_local` (`CheckOptions::classify_warps`, for `fix --warp-barriers`): the
/// pairs of each oracle with their flag, as (first line, second line, warp-local).
fn warp_local(src: &str, opts: CheckOptions) -> Vec<(u32, u32, bool)> {
    let rows = |r: &oracle::Report| -> Vec<(u32, u32, bool)> {
        r.races
            .iter()
            .map(|r| (r.first.span.line, r.second.span.line, r.warp_local))
            .collect()
    };
    let fixed = rows(&check_with(src, opts.clone()));
    let dynamic = rows(
        &Interpreter::new(opts)
            .check(&kernel(src))
            .expect("the interpreter runs"),
    );
    assert_eq!(fixed, dynamic, "static and dynamic oracles disagree");
    fixed
}

fn classify(block: u32) -> CheckOptions {
    CheckOptions {
        classify_warps: true,
        ..warp_launch(block, None)
    }
}

/// Neighbours `tid ^ 1` share a warp, mirrored threads `63 - tid` do not (warps of 32).
const NEIGHBOURS: &str = "kernel exchange(shared s[], shared t[], v) {
  local x;
  s[tid] = v;
  x = s[tid ^ 1];
  t[tid] = x;
  x = t[63 - tid];
  s[tid] = x;
}";

#[test]
fn races_inside_one_warp_are_warp_local() {
    assert_eq!(
        warp_local(NEIGHBOURS, classify(64)),
        vec![(3, 4, true), (4, 7, true), (5, 6, false)]
    );
}

#[test]
fn warp_locality_is_only_computed_when_asked() {
    assert_eq!(
        warp_local(NEIGHBOURS, warp_launch(64, None)),
        vec![(3, 4, false), (4, 7, false), (5, 6, false)]
    );
}

/// Warps follow `--warp-size` (else 32): with warps of 2 threads, `tid ^ 2` leaves the
/// warp.
#[test]
fn warp_locality_follows_the_warp_size() {
    let src = "kernel k(shared s[], v) {
  local x;
  s[tid] = v;
  x = s[tid ^ 2];
}";
    assert_eq!(warp_local(src, classify(8)), vec![(3, 4, true)]);
    let small = CheckOptions {
        classify_warps: true,
        ..warp_launch(8, Some(4))
    };
    // Lock step inside warps of 4 orders the exchange already.
    assert_eq!(warp_local(src, small), vec![]);
    let tiny = CheckOptions {
        classify_warps: true,
        ..warp_launch(8, Some(2))
    };
    assert_eq!(warp_local(src, tiny), vec![(3, 4, false)]);
}

/// One instance across a warp boundary (thread 31 reads what thread 32 writes) is
/// enough: the race is not warp-local, although most instances are.
#[test]
fn one_instance_across_warps_makes_a_race_not_warp_local() {
    let src = "kernel k(shared s[], v) {
  local x;
  s[tid] = v;
  x = s[(tid + 1) % 64];
}";
    assert_eq!(warp_local(src, classify(64)), vec![(3, 4, false)]);
}
