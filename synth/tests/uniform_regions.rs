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
        block_dim: Some([8, 1, 1]),
        grid_dim: Some([2, 1, 1]),
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
