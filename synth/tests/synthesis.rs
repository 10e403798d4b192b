//! Algorithm 1 and the naive baseline on small kernels, with the dynamic interpreter as
//! oracle: placements (as source lines), costs, call counts and no-solution reasons.

use kpl::{LabelTree, parse};
use oracle::CheckOptions;
use oracle::dynamic::Interpreter;
use synth::{Outcome, PaperCost, SynthOptions, Synthesis};

fn oracle() -> Interpreter {
    Interpreter::new(CheckOptions {
        block_dim: Some([8, 1, 1]),
        grid_dim: Some([1, 1, 1]),
        ..CheckOptions::default()
    })
}

fn run(src: &str, naive: bool, faithful: bool) -> Synthesis {
    let k = parse(src).unwrap().remove(0);
    let cost = PaperCost::default();
    let mut opts = SynthOptions::new(&cost);
    opts.use_race_types = !faithful;
    let mut o = oracle();
    if naive {
        synth::naive(&k, &mut o, &opts).unwrap()
    } else {
        synth::synthesize(&k, &mut o, &opts).unwrap()
    }
}

/// The inserted barriers as label names of the input tree (`5` = after line 5,
/// `3:6s` = top of the block of lines 3–6).
fn placed(src: &str, s: &Synthesis) -> Vec<String> {
    let k = parse(src).unwrap().remove(0);
    let t = LabelTree::new(&k);
    s.inserted.iter().map(|l| t.name(*l)).collect()
}

#[test]
fn self_race_across_iterations_is_fixed_by_a_barrier_in_the_loop() {
    // Thread t writes A[(t + i) % 8] in iteration i: two threads write the same element
    // only in different iterations, so a barrier in the loop body separates them.
    let src = "kernel k(shared A[]) {
    for (i = 0; i < 4; i = i + 1) {
        A[(tid + i) % 8] = i;
    }
}";
    for faithful in [false, true] {
        let s = run(src, false, faithful);
        assert_eq!(s.outcome, Outcome::Fixed);
        assert_eq!(placed(src, &s), ["2:4s"], "faithful = {faithful}");
        assert_eq!(s.cost, 100.0);
    }
}

#[test]
fn race_inside_a_thread_dependent_conditional_has_no_solution() {
    let src = "kernel k(shared A[]) {
    local x;
    if (tid < 4) {
        x = A[tid + 1];
        A[tid] = x;
    }
}";
    let s = run(src, false, false);
    let Outcome::NoSolution(ns) = &s.outcome else {
        panic!("{:?}", s.outcome)
    };
    assert!(ns.reason.contains("line 4 and line 5"), "{}", ns.reason);
    assert!(
        ns.reason.contains("barrier divergence at line 3"),
        "{}",
        ns.reason
    );
    // The barrier after line 4 diverged; that excluded the whole block; UNSAT.
    assert_eq!(s.stats.oracle_calls, 2);
    assert_eq!(s.stats.solver_calls, 2);
    assert!(s.inserted.is_empty());
}

#[test]
fn uniform_conditional_allows_a_barrier_inside() {
    // The guard depends only on a parameter: every thread agrees, no divergence, and
    // the barrier inside the conditional costs IC = 0.5.
    let src = "kernel k(shared A[], n) {
    local x;
    if (n > 2) {
        x = A[tid + 1];
        A[tid] = x;
    }
}";
    let s = run(src, false, false);
    assert_eq!(s.outcome, Outcome::Fixed);
    assert_eq!(placed(src, &s), ["4"]);
    assert_eq!(s.cost, 0.5);
}

#[test]
fn loop_cost_drives_the_barrier_out_of_the_loop() {
    // The write before the loop races with the reads inside: a barrier before the loop
    // (cost 1) beats one at the top of its body (cost 100).
    let src = "kernel k(shared A[], n) {
    local x;
    A[tid] = tid;
    for (i = 0; i < n; i = i + 1) {
        x = A[(tid + 1) % bdim];
    }
}";
    let s = run(src, false, false);
    assert_eq!(s.outcome, Outcome::Fixed);
    assert_eq!(placed(src, &s), ["3"]);
    assert_eq!(s.cost, 1.0);
    // The naive baseline drops barriers in program order: the one before the loop goes
    // first (the loop's still covers the race), leaving the expensive one.
    let n = run(src, true, false);
    assert_eq!(placed(src, &n), ["4:6s"]);
    assert_eq!(n.cost, 100.0);
}

#[test]
fn already_correct_kernels_cost_one_call() {
    let src = "kernel k(shared A[]) {
    A[tid] = tid;
}";
    for naive in [false, true] {
        let s = run(src, naive, false);
        assert_eq!(s.outcome, Outcome::AlreadyCorrect);
        assert_eq!(s.stats.oracle_calls, 1);
        assert_eq!(s.stats.solver_calls, 0);
    }
}

#[test]
fn existing_divergent_barrier_is_reported_not_looped_on() {
    let src = "kernel k(shared A[]) {
    local x;
    if (tid < 4) {
        barrier;
    }
    x = A[tid + 1];
    A[tid] = x;
}";
    let s = run(src, false, false);
    let Outcome::NoSolution(ns) = &s.outcome else {
        panic!("{:?}", s.outcome)
    };
    assert!(ns.reason.contains("existing barrier at line 4"), "{}", ns.reason);
    assert_eq!(s.stats.oracle_calls, 1);
}

#[test]
fn nested_loops_inter_iteration_at_the_outer_depth() {
    // The write in the inner loop races with the read of the next outer iteration only
    // (the inner loop writes A[tid], the read is of the neighbour's element).
    let src = "kernel k(shared A[], n) {
    local x;
    for (i = 0; i < 3; i = i + 1) {
        x = A[(tid + 1) % bdim];
        for (j = 0; j < 2; j = j + 1) {
            A[tid] = x + j;
        }
    }
}";
    let s = run(src, false, false);
    assert_eq!(s.outcome, Outcome::Fixed);
    // Intra: between the read (4) and the inner loop; inter at depth 1: top of the outer body.
    assert_eq!(placed(src, &s), ["3:8s", "4"]);
    assert_eq!(s.cost, 200.0);
    let f = run(src, false, true);
    assert_eq!(placed(src, &f), ["3:8s", "4"]);
    assert!(f.stats.oracle_calls > s.stats.oracle_calls);
}
