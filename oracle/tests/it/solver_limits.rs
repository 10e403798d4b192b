//! Solver limits are Z3 resource units, not time: a verdict is a function of the kernel
//! and the options alone. These tests find the exact limit at which a query of a
//! kernel becomes decidable and check that the answers on both sides of it stay the
//! same while other threads load the machine with queries of their own.

use crate::common::*;
use oracle::Oracle;
use oracle::verifier::{Limits, StaticVerifier};
use oracle::{CheckOptions, Report};

/// The diagonal block reordering of the SDK transpose (`(bid.x + bid.y) % gdim.x`),
/// racing across blocks: one of its queries needs a few tens of thousands of units.
const DIAGONAL: &str =
    "kernel transposeDiagonal(global odata[], global idata[], i32 width, i32 height, shared tile[])
    requires width == 512 && height == 512 && bdim == 16 && bdim.y == 16 {
    local v;
    local blockIdx_x;
    local blockIdx_y;
    if (width == height) {
        blockIdx_y = bid;
        blockIdx_x = i32((bid + bid.y) % gdim);
    } else {
        local bid_1 = i32(bid + gdim * bid.y);
        blockIdx_y = i32(u32(bid_1) % gdim.y);
        blockIdx_x = i32((u32(bid_1) / gdim.y + blockIdx_y) % gdim);
    }
    local xIndex = i32(blockIdx_x * 16 + tid);
    local yIndex = i32(blockIdx_y * 16 + tid.y);
    local index_in = xIndex + yIndex * width;
    xIndex = i32(blockIdx_y * 16 + tid);
    yIndex = i32(blockIdx_x * 16 + tid.y);
    local index_out = xIndex + yIndex * height;
    v = idata[index_in];
    tile[tid.y * 17 + tid] = v;
    barrier;
    v = tile[tid * 17 + tid.y];
    odata[index_out] = v;
}
";

/// What a report says, without times: races (with whether each has a witness),
/// divergences and notes.
fn answer(r: &Report) -> (Vec<(RaceRow, bool)>, usize, Vec<String>) {
    let rows = races(r)
        .into_iter()
        .zip(r.races.iter().map(|x| x.witness.is_some()));
    (rows.collect(), r.divergences.len(), r.notes.clone())
}

fn check_within(limit: u64) -> (Vec<(RaceRow, bool)>, usize, Vec<String>) {
    let mut v = StaticVerifier::new(CheckOptions::default());
    v.limits = Limits {
        first: 1_000,
        query: limit,
        check: 1_000_000_000,

        ..oracle::verifier::Limits::DEFAULT
    };
    answer(&v.check(&kernel(DIAGONAL)).expect("the verifier answers"))
}

/// Whether every question of the check was decided (no "could not decide" note).
fn decided(a: &(Vec<(RaceRow, bool)>, usize, Vec<String>)) -> bool {
    a.2.is_empty()
}

/// Runs `f` while two other threads check kernels as fast as they can.
fn under_load<R>(f: impl FnOnce() -> R) -> R {
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let mut v = StaticVerifier::new(CheckOptions::default());
                    v.check(&kernel(DIAGONAL)).expect("the verifier answers");
                }
            });
        }
        let out = f();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        out
    })
}

#[test]
fn the_answer_at_the_edge_of_the_limit_does_not_depend_on_load() {
    // The smallest limit of the second attempts at which every question is decided.
    let (mut lo, mut hi) = (1_000u64, 1u64 << 17);
    assert!(decided(&check_within(hi)), "decided with {hi} units");
    assert!(!decided(&check_within(lo)), "undecided with {lo} units");
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if decided(&check_within(mid)) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let (just_enough, too_little) = (check_within(hi), check_within(lo));
    // The race is reported either way; below the edge it has no witness and a note.
    assert_eq!(just_enough.0.len(), 1, "{just_enough:?}");
    assert!(just_enough.0[0].1);
    assert!(!decided(&too_little));
    let loaded = under_load(|| (check_within(hi), check_within(lo)));
    assert_eq!(loaded, (just_enough, too_little), "edge at {hi} units");
}

#[test]
fn a_spent_check_budget_leaves_the_rest_undecided() {
    let mut v = StaticVerifier::new(CheckOptions::default());
    v.limits = Limits {
        first: 1_000_000,
        query: 1_000_000,
        check: 1,

        ..oracle::verifier::Limits::DEFAULT
    };
    let r = v.check(&kernel(DIAGONAL)).expect("the verifier answers");
    assert!(!r.races.is_empty());
    assert!(
        r.notes.iter().any(|n| n.contains("budget is spent")),
        "{:?}",
        r.notes
    );
}

#[test]
fn scaled_limits_keep_their_proportions() {
    let l = Limits::DEFAULT.scaled(2.0);
    assert_eq!(l.first, 2 * Limits::DEFAULT.first);
    assert_eq!(l.query, 2 * Limits::DEFAULT.query);
    assert_eq!(l.check, 2 * Limits::DEFAULT.check);
    assert_eq!(Limits::DEFAULT.scaled(1e-12).first, 1);
}
