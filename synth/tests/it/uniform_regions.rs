//! Barriers inside conditionals and loops whose guard is block-uniform (issue #19, part 1;
//! `synth::regions`), with the static verifier as oracle: exact placements and costs,
//! and the thread-dependent twins where the barrier must stay outside.

use kpl::{LabelTree, parse};
use oracle::CheckOptions;
use oracle::verifier::StaticVerifier;
use synth::{Outcome, PaperCost, SynthOptions, Synthesis};

fn run_with(src: &str, regions: bool, faithful: bool) -> Synthesis {
    let k = parse(src).unwrap().remove(0);
    let cost = PaperCost::default();
    let mut opts = SynthOptions::new(&cost);
    opts.uniform_regions = regions;
    opts.use_race_types = !faithful;
    let mut o = StaticVerifier::new(CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 1, 1])),
            grid: kpl::launch::dims(Some([2, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    });
    synth::synthesize(&k, &mut o, &opts).unwrap()
}

fn run(src: &str) -> Synthesis {
    run_with(src, true, false)
}

fn placed(src: &str, s: &Synthesis) -> Vec<String> {
    let k = parse(src).unwrap().remove(0);
    let t = LabelTree::new(&k);
    s.inserted.iter().map(|l| t.name(*l)).collect()
}

/// The read only happens in block 0's even threads, the write in block 0's threads that
/// are multiples of 4: the race needs block 0, so the barrier goes inside `if (bid == 0)`.
const BLOCK0: &str = "kernel k(shared A[]) {
    local x = 0;
    local y = 0;
    if (bid == 0 && tid % 2 == 0) {
        x = A[tid + 4];
    }
    if (bid == 0) {
        y = 1;
    }
    if (bid == 0 && tid % 4 == 0) {
        A[tid] = x;
    }
}";

#[test]
fn optimum_inside_a_block_uniform_conditional() {
    for faithful in [false, true] {
        let s = run_with(BLOCK0, true, faithful);
        assert_eq!(s.outcome, Outcome::Fixed);
        assert_eq!(placed(BLOCK0, &s), ["7:9s"], "faithful = {faithful}");
        assert_eq!(s.inserted.len(), 1);
        assert_eq!(s.cost, 0.5);
    }
    // The paper's candidates only: between the conditionals.
    let s = run_with(BLOCK0, false, false);
    assert_eq!(placed(BLOCK0, &s), ["4:6"]);
    assert_eq!(s.cost, 1.0);
}

/// The twin of [`BLOCK0`]: the middle conditional is thread-dependent, a barrier inside it
/// would diverge, so the barrier stays between the conditionals.
const THREAD_GUARD: &str = "kernel k(shared A[]) {
    local x = 0;
    local y = 0;
    if (bid == 0 && tid % 2 == 0) {
        x = A[tid + 4];
    }
    if (tid < 4) {
        y = 1;
    }
    if (bid == 0 && tid % 4 == 0) {
        A[tid] = x;
    }
}";

#[test]
fn no_barrier_inside_a_thread_dependent_conditional() {
    let s = run(THREAD_GUARD);
    assert_eq!(s.outcome, Outcome::Fixed);
    assert_eq!(placed(THREAD_GUARD, &s), ["4:6"]);
    assert_eq!(s.cost, 1.0);
    // Nothing inside was tried: the same oracle calls as with the paper's candidates only
    // (the first report, the barriers in the accesses' own conditionals that diverge, the
    // placement).
    assert_eq!(s.stats.oracle_calls, 4);
    assert_eq!(run_with(THREAD_GUARD, false, false).stats.oracle_calls, 4);
    // Inside, it would diverge.
    let k = parse(THREAD_GUARD).unwrap().remove(0);
    let t = LabelTree::new(&k);
    let inside = t.in_order().find(|l| t.name(*l) == "7:9s").unwrap();
    let (with, _) = kpl::insert_barriers(&k, &t, &[inside]);
    let mut o = StaticVerifier::new(CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 1, 1])),
            grid: kpl::launch::dims(Some([2, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    });
    let r = oracle::Oracle::check(&mut o, &with).unwrap();
    assert_eq!(r.divergences.len(), 1);
}

/// The paper's Sec. III-E example, inside a uniform `if` around a loop over a uniform
/// bound: the race happens only in iterations where `i < 2`, so the intra-iteration
/// barrier goes inside `if (i < 2)` (cost LC · IC² = 25 instead of 50). The race also
/// happens across iterations (the write of iteration 0, the read of iteration 1), which
/// needs a barrier on the loop's back edge, at the top of the body.
const LOOP: &str = "kernel k(shared A[], n) {
    local x = 0;
    local y = 0;
    if (n > 4) {
        for (i = 0; i < n; i = i + 1) {
            if (i < 2 && tid % 2 == 0) {
                x = A[tid + 4];
            }
            if (i < 2) {
                y = y + 1;
            }
            if (i < 2 && tid % 4 == 0) {
                A[tid] = x;
            }
        }
    }
}";

#[test]
fn uniform_loop_inside_a_uniform_conditional() {
    for faithful in [false, true] {
        let s = run_with(LOOP, true, faithful);
        assert_eq!(s.outcome, Outcome::Fixed);
        assert_eq!(placed(LOOP, &s), ["5:15s", "9:11s"], "faithful = {faithful}");
        assert_eq!(s.cost, 75.0);
    }
    let s = run_with(LOOP, false, false);
    assert_eq!(placed(LOOP, &s), ["5:15s", "6:8"]);
    assert_eq!(s.cost, 100.0);
}
