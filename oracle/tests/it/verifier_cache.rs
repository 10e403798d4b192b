//! The per-kernel cache of barrier-independent answers: one `StaticVerifier` asked about
//! one kernel with different barriers (what a synthesis does) must answer each time as
//! a fresh verifier would. Some answers that ignore barriers still depend on them
//! through the summary (a `__shared__` counter is repetition-free only when a barrier
//! follows its set-up; a shared scalar is one value per block only behind a barrier),
//! so the cache is dropped when they change.

use crate::common::*;
use oracle::Oracle;
use oracle::verifier::StaticVerifier;

/// A block-local compaction: thread 0 sets the counter up, the barrier at line 5 makes
/// the slots of the `atomic_add`s distinct.
const COMPACT: &str = "kernel compact(shared n[], shared kept[], global out[]) {
  if (tid == 0) { n[0] = 0; }
  local slot;
  local c;
  barrier;
  if (tid % 2 == 0) {
    slot = atomic_add(n[0], 1);
    kept[slot] = tid;
  }
  barrier;
  c = n[0];
  if (tid < c) { local v; v = kept[tid]; out[bid * bdim + tid] = v; }
}";

/// The kernel without its barriers, with the same statement ids (as the synthesis
/// sees it before placing any).
fn stripped() -> kpl::Kernel {
    kernel(COMPACT).without_movable_barriers()
}

/// (array, first line, second line) of each race.
fn pairs(r: &oracle::Report) -> Vec<(String, u32, u32)> {
    races(r).into_iter().map(|x| (x.0, x.1, x.2)).collect()
}

#[test]
fn the_counter_race_comes_back_when_its_barrier_goes() {
    let with = kernel(COMPACT);
    let without = stripped();
    let fresh = pairs(&StaticVerifier::new(strict()).check(&without).expect("answers"));
    assert!(
        fresh.contains(&("kept".to_string(), 8, 8)),
        "without the set-up barrier the slots may repeat: {fresh:?}"
    );
    // One verifier for the three questions, as a synthesis asks them.
    let mut v = StaticVerifier::new(strict());
    let first = v.check(&with).expect("answers");
    assert!(first.is_clean(), "{:?}", races(&first));
    let second = v.check(&without).expect("answers");
    assert_eq!(
        pairs(&second),
        fresh,
        "the cached answers of the first check leaked"
    );
    let third = v.check(&with).expect("answers");
    assert!(third.is_clean(), "{:?}", races(&third));
}

#[test]
fn the_counter_is_recognised_once_a_barrier_is_added() {
    // The synthesis starts from the kernel without barriers and adds them: the answer
    // about `kept` from the first check must not stick.
    let mut v = StaticVerifier::new(strict());
    let first = v.check(&stripped()).expect("answers");
    assert!(pairs(&first).contains(&("kept".to_string(), 8, 8)));
    let second = v.check(&kernel(COMPACT)).expect("answers");
    assert!(second.is_clean(), "{:?}", races(&second));
}
