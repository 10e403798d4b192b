//! Algorithm 1 and the naive baseline on small kernels, with the dynamic interpreter as
//! oracle: placements (as source lines), costs, call counts and no-solution reasons.

use kpl::{LabelTree, parse};
use oracle::CheckOptions;
use oracle::dynamic::Interpreter;
use synth::{Outcome, PaperCost, SynthOptions, Synthesis};

fn oracle() -> Interpreter {
    Interpreter::new(CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([8, 1, 1])),
            grid: kpl::launch::dims(Some([1, 1, 1])),
            ..kpl::Launch::default()
        },
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

/// (block barriers, barriers of another kind) as label names, and the cost, of a
/// synthesis with `configure`d options, with the static verifier and with the
/// interpreter (which must agree); `other` picks the labels of the other kind.
fn kinds_run(
    src: &str,
    check: CheckOptions,
    configure: &dyn Fn(&mut SynthOptions),
    other: fn(&Synthesis) -> &Vec<kpl::Label>,
) -> (Vec<String>, Vec<String>, f64) {
    let k = parse(src).unwrap().remove(0);
    let t = LabelTree::new(&k);
    let cost = PaperCost::default();
    let mut opts = SynthOptions::new(&cost);
    configure(&mut opts);
    let mut answers = Vec::new();
    let oracles: [Box<dyn oracle::Oracle>; 2] = [
        Box::new(oracle::verifier::StaticVerifier::new(check.clone())),
        Box::new(Interpreter::new(check)),
    ];
    for mut o in oracles {
        let s = synth::synthesize(&k, o.as_mut(), &opts).unwrap();
        assert_eq!(s.outcome, Outcome::Fixed, "{}", o.name());
        let names = |ls: &mut dyn Iterator<Item = &kpl::Label>| ls.map(|l| t.name(*l)).collect::<Vec<_>>();
        let block = names(&mut s.inserted.iter().filter(|l| !other(&s).contains(l)));
        answers.push((block, names(&mut other(&s).iter()), s.cost));
    }
    assert_eq!(answers[0], answers[1], "static and dynamic oracles disagree");
    answers.remove(0)
}

/// `SynthOptions::warp_barriers`: (block barriers, warp barriers) as label names, and
/// the cost, with the static verifier and with the interpreter (which must agree).
fn warp_run(src: &str, warp_cost: f64) -> (Vec<String>, Vec<String>, f64) {
    let check = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([64, 1, 1])),
            grid: kpl::launch::dims(Some([1, 1, 1])),
            ..kpl::Launch::default()
        },
        classify_warps: true,
        ..CheckOptions::default()
    };
    let configure = |o: &mut SynthOptions| {
        o.warp_barriers = true;
        o.warp_cost = warp_cost;
    };
    kinds_run(src, check, &configure, |s| &s.warp)
}

#[test]
fn warp_barriers_fix_races_inside_warps() {
    let src = "kernel k(shared s[], shared t[], v) {
    local x;
    s[tid] = v;
    x = s[tid ^ 1];
    t[tid] = x;
    x = t[63 - tid];
    s[tid] = x;
}";
    // tid ^ 1 stays in the warp (a warp barrier, 0.25), 63 - tid does not (a block
    // barrier, 1), and the block barrier also orders the read of line 4 before the
    // write of line 7.
    assert_eq!(warp_run(src, 0.25), (vec!["5".into()], vec!["3".into()], 1.25));
    // A warp barrier dearer than a block barrier is never chosen.
    assert_eq!(warp_run(src, 2.0), (vec!["3".into(), "5".into()], vec![], 2.0));
}

#[test]
fn a_warp_barrier_may_go_where_a_block_barrier_diverges() {
    // Only the first warp enters: `__syncthreads()` there diverges, `__syncwarp()` not.
    let src = "kernel k(shared s[], v) {
    local x;
    if (tid < 32) {
        s[tid] = v;
        x = s[31 - tid];
    }
}";
    assert_eq!(warp_run(src, 0.25), (vec![], vec!["4".into()], 0.125));
}

#[test]
fn a_divergent_warp_barrier_excludes_its_block() {
    // Half a warp enters: neither barrier kind can go inside.
    let src = "kernel k(shared s[], v) {
    local x;
    if (tid < 16) {
        s[tid] = v;
        x = s[15 - tid];
    }
}";
    let k = parse(src).unwrap().remove(0);
    let cost = PaperCost::default();
    let mut opts = SynthOptions::new(&cost);
    opts.warp_barriers = true;
    let mut o = Interpreter::new(CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([64, 1, 1])),
            grid: kpl::launch::dims(Some([1, 1, 1])),
            ..kpl::Launch::default()
        },
        classify_warps: true,
        ..CheckOptions::default()
    });
    let s = synth::synthesize(&k, &mut o, &opts).unwrap();
    assert!(matches!(s.outcome, Outcome::NoSolution(_)), "{:?}", s.outcome);
    assert!(s.inserted.is_empty() && s.warp.is_empty());
}

/// `SynthOptions::grid_barriers`: (block barriers, grid barriers) as label names, and
/// the cost, with the static verifier and with the interpreter (which must agree).
fn grid_run(src: &str, grid_cost: f64) -> (Vec<String>, Vec<String>, f64) {
    let check = CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([4, 1, 1])),
            grid: kpl::launch::dims(Some([3, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    };
    let configure = |o: &mut SynthOptions| {
        o.grid_barriers = true;
        o.grid_cost = grid_cost;
    };
    kinds_run(src, check, &configure, |s| &s.grid)
}

/// A shared exchange inside each block (line 4), then one value per block that the
/// next block reads (line 7).
const BLOCKS: &str = "kernel k(shared s[], global g[]) {
    local x;
    s[tid] = tid;
    x = s[(tid + 1) % bdim];
    g[bid * bdim + tid] = x;
    x = g[((bid + 1) % gdim) * bdim + tid];
}";

#[test]
fn grid_barriers_fix_races_between_blocks_and_block_barriers_the_rest() {
    assert_eq!(
        grid_run(BLOCKS, synth::DEFAULT_GRID_COST),
        (vec!["3".into()], vec!["5".into()], 101.0)
    );
    // Cheaper than a block barrier, a grid barrier does both.
    assert_eq!(grid_run(BLOCKS, 0.5), (vec![], vec!["3".into(), "5".into()], 1.0));
}

#[test]
fn without_grid_barriers_a_race_between_blocks_has_no_solution() {
    let k = parse(BLOCKS).unwrap().remove(0);
    let cost = PaperCost::default();
    let opts = SynthOptions::new(&cost);
    let mut o = oracle::verifier::StaticVerifier::new(CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([4, 1, 1])),
            grid: kpl::launch::dims(Some([3, 1, 1])),
            ..kpl::Launch::default()
        },
        ..CheckOptions::default()
    });
    let s = synth::synthesize(&k, &mut o, &opts).unwrap();
    let Outcome::NoSolution(ns) = &s.outcome else {
        panic!("{:?}", s.outcome)
    };
    assert!(ns.reason.contains("fix --cooperative"), "{}", ns.reason);
    // The partial placement still fixes the race inside the block.
    assert_eq!(placed(BLOCKS, &s), ["3"]);
}

#[test]
fn a_grid_barrier_under_a_block_uniform_guard_is_excluded_but_a_block_barrier_is_not() {
    // Only block 0 publishes and reads back: inside `if (bid == 0)` a block barrier is
    // fine, a grid barrier diverges. The race between blocks (lines 8 and 5) needs
    // a grid barrier after the conditional (100), not inside it (50: it diverges).
    let src = "kernel k(shared s[], global g[]) {
    local x;
    if (bid == 0) {
        s[tid] = tid;
        x = s[(tid + 1) % bdim];
        g[tid] = x;
    }
    x = g[tid];
}";
    assert_eq!(
        grid_run(src, synth::DEFAULT_GRID_COST),
        (vec!["4".into()], vec!["3:7".into()], 100.5)
    );
}

/// Two kernels of one structure (as instantiations of a template are) synthesized
/// together, their candidates numbered alike (the same place of one text): the barrier
/// inside the `if` is uniform in the first (`tid < 8` with 8 threads) and cheapest for
/// it alone, but diverges in the second, so both get the one before the `if`.
#[test]
fn joint_synthesis_excludes_a_place_that_diverges_in_one_kernel_for_all() {
    let racy = "kernel k(shared A[], shared B[]) {
    local x;
    A[tid] = tid;
    if (tid < 8) {
        x = A[(tid + 4) % 8];
        B[tid] = x;
    }
}";
    let clean = racy
        .replace("tid < 8", "tid < 4")
        .replace("A[(tid + 4) % 8]", "A[tid]");
    let alone = run(racy, false, false);
    assert_eq!(placed(racy, &alone), ["4:7s"]);
    assert_eq!(alone.cost, 0.5);

    let kernels: Vec<kpl::Kernel> = [racy, clean.as_str()]
        .iter()
        .map(|src| parse(src).unwrap().remove(0))
        .collect();
    let cost = PaperCost::default();
    let opts = SynthOptions::new(&cost);
    let mut oracles = [oracle(), oracle()];
    let members = kernels
        .iter()
        .zip(oracles.iter_mut())
        .map(|(k, o)| {
            let places = LabelTree::new(k)
                .candidates()
                .into_iter()
                .enumerate()
                .map(|(n, l)| (l, n))
                .collect();
            synth::Member {
                kernel: k,
                oracle: o,
                opts: &opts,
                places,
                fix: true,
            }
        })
        .collect();
    let synth::Joint::Synthesized(done) = synth::synthesize_jointly(members).unwrap() else {
        panic!("no statement to split here")
    };
    assert_eq!(done.len(), 2);
    for (s, src) in done.iter().zip([racy, clean.as_str()]) {
        assert_eq!(s.outcome, Outcome::Fixed);
        assert_eq!(placed(src, s), ["3"]);
        assert_eq!(s.cost, 1.0);
        // The top of the `if` diverged in the second kernel: two optima, one refuted.
        assert_eq!(s.stats.solver_calls, 2);
    }
    let trace = done[0].trace.as_ref().unwrap();
    // The places of the block: its top and after each of its two statements.
    assert_eq!(trace.elsewhere.len(), 3, "{:?}", trace.elsewhere);
    assert!(trace.elsewhere.iter().all(|(_, k)| k == "k"));
}
