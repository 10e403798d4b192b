//! Race types answered from runs of the kernel (`verifier::concrete`,
//! `StaticVerifier::concrete_after`). A run only ever stands in for a satisfiable
//! query, so these tests pin that the answers are the solver's: the same races (lines,
//! kinds, types, directions, fixability), divergences and notes with runs as without,
//! on racy kernels and their race-free twins, across the synthesizer's repeated checks
//! of one kernel; that runs were used where they pay; and that a witness from a run is
//! an instance of its race type.

use crate::common::*;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle, Report};

/// A sorting network in shared memory (`pos = 2·tid − (tid & (s − 1))`, the odd-even
/// and bitonic index) whose result is stored to global memory, with a barrier after the
/// loads and after each stage.
const NETWORK: &str = "kernel net(shared K[], global out[]) {
    local a;
    local b;
    K[tid] = 8 - tid;
    K[tid + bdim] = tid;
    barrier;
    for (s = 1; s < bdim + 1; s = s * 2) {
        a = K[2 * tid - (tid & (s - 1))];
        b = K[2 * tid - (tid & (s - 1)) + s];
        if (a > b) {
            K[2 * tid - (tid & (s - 1))] = b;
            K[2 * tid - (tid & (s - 1)) + s] = a;
        }
        barrier;
    }
    a = K[tid];
    out[bid * bdim + tid] = a;
}
";

/// Every block stores its id into the same elements of a global array, and reads its
/// neighbour's: races between blocks, which no barrier orders.
const BLOCKS_CLASH: &str = "kernel clash(global G[], global H[]) {
    local x;
    for (i = 0; i < 3; i = i + 1) {
        G[tid + i] = bid;
        x = G[tid + 1];
        H[bid * bdim + tid] = x;
    }
}
";

/// Two pipelines across the iterations of one loop: `B`'s write (first in program
/// order) races with the read of the next iteration only (forward; and thread 0's
/// with thread 7's read in the same iteration), `A`'s write (second) with the read of
/// the next iteration only (backward). Barriers after the writes order both (the
/// race-free twin).
const PIPES: &str = "kernel pipes(shared A[], shared B[]) {
    local x;
    for (i = 0; i < 4; i = i + 1) {
        B[i * bdim + tid] = x;
        x = B[i * bdim + tid + 1 - bdim];
        x = A[i * bdim + tid];
        A[(i + 1) * bdim + tid + 1] = x;
    }
}
";

/// The element the access at `line` of [`PIPES`] touches for thread `t` at iteration
/// `k` of the loop.
fn pipes_element(line: u32, t: i64, k: &[u64]) -> i64 {
    let (i, n) = (k.first().map_or(0, |&k| k as i64), 8);
    match line {
        4 | 6 => i * n + t,
        5 => i * n + t + 1 - n,
        7 => (i + 1) * n + t + 1,
        _ => panic!("no access at line {line}"),
    }
}

/// Each race's witness touches the element it names from both threads, at the
/// iterations it gives (`element(line, tid, iterations)`), with two distinct threads of
/// the launch.
fn assert_instances(r: &Report, launch: ([u32; 3], [u32; 3]), element: impl Fn(u32, i64, &[u64]) -> i64) {
    assert!(!r.races.is_empty());
    for race in &r.races {
        let w = race.witness.as_ref().expect("a witness");
        assert_ne!(w.threads[0], w.threads[1], "{race:?}");
        assert_eq!((w.block_dim, w.grid_dim), launch, "{race:?}");
        let e0 = element(
            race.first.span.line,
            i64::from(w.threads[0].tid[0]),
            &w.iterations[0],
        );
        let e1 = element(
            race.second.span.line,
            i64::from(w.threads[1].tid[0]),
            &w.iterations[1],
        );
        assert_eq!(
            (e0, e1),
            (w.index.unwrap_or(-1), w.index.unwrap_or(-1)),
            "{race:?}"
        );
    }
}

fn options(block: u32, grid: u32) -> CheckOptions {
    CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([block, 1, 1])),
            grid: kpl::launch::dims(Some([grid, 1, 1])),
            ..kpl::Launch::default()
        },
        race_directions: true,
        ..CheckOptions::default()
    }
}

/// Races with their directions (`forward_only`), divergences, notes.
type Answer = (Vec<(RaceRow, Vec<usize>)>, Vec<u32>, Vec<String>);

fn answer(r: &Report) -> Answer {
    let rows = races(r)
        .into_iter()
        .zip(&r.races)
        .map(|(row, race)| (row, race.forward_only.clone()))
        .collect();
    (rows, divergences(r), r.notes.clone())
}

/// The answers of one verifier to `kernels` in turn, with runs after the first
/// satisfiable answer, asserted equal to the solver's alone; with how many answers
/// came from runs per check.
fn both(opts: &CheckOptions, kernels: &[kpl::Kernel]) -> Vec<(Answer, usize)> {
    let run = |after: usize| {
        let mut v = StaticVerifier::new(opts.clone());
        v.concrete_after = after;
        kernels
            .iter()
            .map(|k| {
                let r = v.check(k).expect("the verifier answers");
                (answer(&r), v.shown_by_runs())
            })
            .collect::<Vec<_>>()
    };
    let (with_runs, solver) = (run(1), run(usize::MAX));
    for ((a, _), (b, shown)) in with_runs.iter().zip(&solver) {
        assert_eq!(a, b, "answers from runs differ from the solver's");
        assert_eq!(*shown, 0, "runs without `concrete_after`");
    }
    with_runs
}

/// The kernel without its barriers, with a barrier after every candidate, and with
/// barriers after every other one: the synthesizer's checks of one kernel.
fn synthesizer_sequence(src: &str) -> Vec<kpl::Kernel> {
    let bare = kernel(src).without_movable_barriers();
    let tree = kpl::LabelTree::new(&bare);
    let all = tree.candidates();
    let (every, _) = kpl::insert_barriers(&bare, &tree, &all);
    let odd: Vec<kpl::Label> = all.iter().copied().step_by(2).collect();
    let (half, _) = kpl::insert_barriers(&bare, &tree, &odd);
    vec![bare, every, half]
}

#[test]
fn a_sorting_network_stripped_of_its_barriers_is_answered_from_runs() {
    let found = both(&options(8, 4), &[kernel(NETWORK)]);
    // The race-free kernel: no satisfiable query, so no run.
    assert_eq!(found[0], ((vec![], vec![], vec![]), 0));
    let found = both(&options(8, 4), &synthesizer_sequence(NETWORK));
    let (bare, shown) = &found[0];
    assert!(*shown > 0, "no answer from runs");
    // A stage is a permutation, but line 8 reads what line 12 of another thread
    // writes in other stages (both directions), and the loads race with the stages.
    assert!(
        bare.0
            .contains(&(row("K", 8, 12, "read-write", false, &[1], true), vec![])),
        "{:?}",
        bare.0
    );
    assert!(
        bare.0
            .iter()
            .any(|(r, _)| (r.1, r.2, r.3.as_str()) == (4, 9, "write-read") && r.4),
        "{:?}",
        bare.0
    );
    // Barriers everywhere: no race, but the ones inside `if (a > b)` diverge.
    assert_eq!(found[1].0.0, vec![]);
    assert_eq!(found[1].0.1.len(), 3);
}

#[test]
fn races_between_blocks_from_runs_stay_unfixable() {
    let found = both(&options(4, 3), &[kernel(BLOCKS_CLASH)]);
    let (rows, shown) = &found[0];
    assert!(*shown > 0, "no answer from runs");
    assert!(rows.0.iter().all(|(r, _)| r.0 != "H"), "{:?}", rows.0);
    let g: Vec<&RaceRow> = rows.0.iter().map(|(r, _)| r).filter(|r| r.0 == "G").collect();
    assert!(!g.is_empty() && g.iter().all(|r| !r.6), "{g:?}");
    // The race-free twin: each block its own elements.
    let twin = BLOCKS_CLASH
        .replace("G[tid + i]", "G[bid * 8 + tid + i]")
        .replace("G[tid + 1]", "G[bid * 8 + tid]");
    let found = both(&options(4, 3), &[kernel(&twin)]);
    assert!(found[0].0.0.iter().all(|(r, _)| r.6), "{:?}", found[0].0);
}

#[test]
fn a_witness_from_a_run_is_an_instance_of_its_race_type() {
    let bare = kernel(NETWORK).without_movable_barriers();
    let mut v = StaticVerifier::new(options(8, 4));
    v.concrete_after = 1;
    let r = v.check(&bare).expect("the verifier answers");
    assert!(v.shown_by_runs() > 0);
    // The loads write `tid` and `tid + 8`, the stages touch `pos` and `pos + s` at
    // `s = 2^k` of the iteration.
    assert_instances(&r, ([8, 1, 1], [4, 1, 1]), |line, t, k| {
        let s = k.first().map_or(0, |k| 1i64 << k);
        match line {
            4 | 16 => t,
            5 => t + 8,
            8 | 11 => 2 * t - (t & (s - 1)),
            9 | 12 => 2 * t - (t & (s - 1)) + s,
            _ => panic!("no access at line {line}"),
        }
    });
}

#[test]
fn races_in_one_direction_across_iterations_keep_their_direction() {
    // `B` is asked first: its forward race runs the kernel, which answers `A`'s
    // backward one (the witness's threads and iterations in program order).
    let mut v = StaticVerifier::new(options(8, 1));
    v.concrete_after = 1;
    let r = v.check(&kernel(PIPES)).expect("the verifier answers");
    assert!(v.shown_by_runs() > 0);
    assert_instances(&r, ([8, 1, 1], [1, 1, 1]), pipes_element);
    let found = both(&options(8, 1), &[kernel(PIPES)]);
    assert_eq!(
        found[0].0.0,
        vec![
            (row("B", 4, 5, "write-read", true, &[1], true), vec![1]),
            (row("A", 6, 7, "read-write", false, &[1], true), vec![]),
        ]
    );
    let synced = PIPES
        .replace(
            "B[i * bdim + tid] = x;\n",
            "B[i * bdim + tid] = x;\n        barrier;\n",
        )
        .replace(
            "A[(i + 1) * bdim + tid + 1] = x;\n",
            "A[(i + 1) * bdim + tid + 1] = x;\n        barrier;\n",
        );
    let found = both(&options(8, 1), &[kernel(&synced)]);
    assert_eq!(found[0], ((vec![], vec![], vec![]), 0));
}

#[test]
fn no_runs_under_warp_lock_step() {
    let bare = kernel(NETWORK).without_movable_barriers();
    let mut v = StaticVerifier::new(CheckOptions {
        launch: kpl::Launch {
            warp_size: Some(4),
            ..(options(8, 4)).launch
        },
        ..options(8, 4)
    });
    v.concrete_after = 1;
    let r = v.check(&bare).expect("the verifier answers");
    assert!(!r.races.is_empty());
    assert_eq!(v.shown_by_runs(), 0);
}
