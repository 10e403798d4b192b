//! Replaying the verifier's findings on the interpreter (`oracle::replay`): a race a run
//! shows is confirmed, with the run's instance as its witness; one it does not is
//! possible, with the reason the runs give. Twins: the race that is real (confirmed) and
//! the one the replay cannot show (possible), for loop-carried values, memory-dependent
//! indices, unknown values and benign-looking writes.

use crate::common::*;
use oracle::verifier::StaticVerifier;
use oracle::{CheckOptions, Oracle, Report};

/// The report of the static verifier on `src`, replayed.
fn replayed(src: &str, opts: CheckOptions) -> Report {
    let k = kernel(src);
    let mut v = StaticVerifier::new(opts);
    let mut r = v.check(&k).expect("the verifier answers");
    v.replay(&k, &mut r);
    r
}

/// Per race: (first line, second line, confirmed, the reason when possible).
fn rows(r: &Report) -> Vec<(u32, u32, bool, String)> {
    r.races
        .iter()
        .map(|x| {
            let p = x.replay.as_ref().expect("replayed");
            (
                x.first.span.line,
                x.second.span.line,
                p.confirmed,
                p.why.clone().unwrap_or_default(),
            )
        })
        .collect()
}

/// The neighbour read of the AutoSync paper's Fig. 2: a real race.
const NEIGHBOUR: &str = "kernel fig2(shared A[]) {
    local x;
    x = A[tid + 1];
    A[tid] = x;
}
";

#[test]
fn a_real_race_is_confirmed_with_the_runs_instance() {
    let r = replayed(NEIGHBOUR, launch(8, 1));
    assert_eq!(rows(&r), vec![(3, 4, true, String::new())]);
    let w = r.races[0].witness.as_ref().expect("a witness");
    // The run's instance: thread t reads A[t + 1], thread t + 1 writes it.
    let [reader, writer] = w.threads;
    assert_eq!(writer.tid[0], reader.tid[0] + 1);
    assert_eq!(w.index, Some(i64::from(writer.tid[0])));
    let run = r.races[0]
        .replay
        .as_ref()
        .and_then(|p| p.run.clone())
        .expect("ran");
    assert_eq!(
        (run.block_dim, run.grid_dim, run.blocks),
        ([8, 1, 1], [1, 1, 1], vec![0])
    );
}

/// Input and output regions of one array that trade places every iteration (the output
/// moves to a square of the old input's offset: 0, then 0 again, far from the input).
/// The verifier keeps no relation between the offsets across iterations and reports a
/// race the kernel does not have.
const PING_PONG: &str = "kernel pingpong(shared A[]) {
    local src = 0;
    local dst = 2 * bdim;
    for (k = 0; k < 3; k = k + 1) {
        local x;
        x = A[src + tid + 1];
        A[dst + tid] = x;
        barrier;
        local t = src;
        src = dst * 1;
        dst = t * t;
    }
}
";

/// The twin: the output region of the second iteration is the input shifted by one,
/// so a thread writes what its right neighbour reads in the same interval.
const PING_PONG_RACY: &str = "kernel pingpong(shared A[]) {
    local src = 0;
    local dst = 2 * bdim;
    for (k = 0; k < 3; k = k + 1) {
        local x;
        x = A[src + tid + 1];
        A[dst + tid] = x;
        barrier;
        local t = src;
        src = dst * 1;
        dst = src + 2;
    }
}
";

#[test]
fn a_race_of_swapped_offsets_is_possible_and_its_twin_confirmed() {
    let r = replayed(PING_PONG, launch(8, 1));
    assert!(
        !r.races.is_empty(),
        "the verifier's false alarm this test is about"
    );
    for (a, b, confirmed, why) in rows(&r) {
        assert!(!confirmed, "line {a}/{b} confirmed");
        assert!(
            why.contains("the verifier's model of the kernel may allow more"),
            "{why}"
        );
    }
    // A possible race keeps the verifier's witness, inside its launch.
    for x in &r.races {
        let w = x.witness.as_ref().expect("the witness is kept");
        assert!(w.threads.iter().all(|t| t.tid[0] < 8 && t.bid[0] < 1), "{w:?}");
    }
    let racy = replayed(PING_PONG_RACY, launch(8, 1));
    assert_eq!(rows(&racy), vec![(6, 7, true, String::new())]);
    // Its witness is the run's: thread t writes A[18 + t] in iteration 1, which thread
    // t + 1 reads in the same iteration.
    let w = racy.races[0].witness.as_ref().expect("a witness");
    let [reader, writer] = w.threads;
    assert_eq!(reader.tid[0], writer.tid[0] + 1);
    assert_eq!(w.index, Some(18 + i64::from(writer.tid[0])));
    assert_eq!(w.iterations, [vec![1], vec![1]]);
}

/// A race only when memory holds a value no replayed contents have (they are small).
const MEMORY_GATED: &str = "kernel gated(shared A[], global G[]) {
    local x;
    x = G[0];
    if (x == 100000) {
        A[0] = tid;
    }
}
";

/// The twin: gated on a value that zeroed memory has.
const MEMORY_GATED_ZERO: &str = "kernel gated(shared A[], global G[]) {
    local x;
    x = G[0];
    if (x == 0) {
        A[0] = tid;
    }
}
";

#[test]
fn a_race_behind_memory_contents_is_possible_and_its_twin_confirmed() {
    let r = replayed(MEMORY_GATED, launch(8, 1));
    assert_eq!(r.races.len(), 1);
    let (_, _, confirmed, why) = rows(&r).remove(0);
    assert!(!confirmed);
    assert!(
        why.contains("depend on memory contents or unknown values, and the 4 contents tried"),
        "{why}"
    );
    assert_eq!(
        rows(&replayed(MEMORY_GATED_ZERO, launch(8, 1))),
        vec![(5, 5, true, String::new())]
    );
}

/// An unknown value (a call the front end does not know is `havoc`): as memory.
const UNKNOWN_GATED: &str = "kernel unknown(shared A[]) {
    local x;
    havoc x;
    if (x == 100000) {
        A[tid % 2] = tid;
    }
}
";

#[test]
fn a_race_behind_an_unknown_value_is_possible() {
    let r = replayed(UNKNOWN_GATED, launch(8, 1));
    assert_eq!(r.races.len(), 1);
    let (_, _, confirmed, why) = rows(&r).remove(0);
    assert!(!confirmed);
    assert!(why.contains("unknown values"), "{why}");
}

/// Two writes of values the verifier does not prove equal (`x³ - x` is a multiple of 3
/// for every integer `x`: Fermat), which the run sees equal: possible, said so.
const EQUAL_WRITES: &str = "kernel equal(shared A[], global G[]) {
    local x;
    x = G[tid];
    A[0] = (x * x * x - x) % 3;
}
";

/// The twin: odd and even threads store different values.
const UNEQUAL_WRITES: &str = "kernel equal(shared A[], global G[]) {
    local x;
    x = G[tid];
    A[0] = (x * x * x - x) % 3 + tid % 2;
}
";

#[test]
fn writes_a_run_sees_equal_are_possible_benign_races() {
    let opts = CheckOptions {
        no_benign_tolerance: false,
        ..launch(8, 1)
    };
    let r = replayed(EQUAL_WRITES, opts.clone());
    assert_eq!(r.races.len(), 1);
    let (_, _, confirmed, why) = rows(&r).remove(0);
    assert!(!confirmed);
    assert!(why.contains("store equal values"), "{why}");
    assert_eq!(
        rows(&replayed(UNEQUAL_WRITES, opts)),
        vec![(4, 4, true, String::new())]
    );
}

/// A barrier some threads skip: confirmed, with the run's two threads.
const DIVERGENT: &str = "kernel div(shared A[]) {
    if (tid < 3) {
        barrier;
    }
    A[tid] = 1;
}
";

#[test]
fn a_divergent_barrier_is_confirmed() {
    let r = replayed(DIVERGENT, launch(8, 1));
    assert_eq!(r.divergences.len(), 1);
    let d = &r.divergences[0];
    assert!(d.replay.as_ref().is_some_and(|p| p.confirmed));
    let w = d.witness.as_ref().expect("a witness");
    // The first thread reaches the barrier, the second does not.
    assert!(w.threads[0].tid[0] < 3 && w.threads[1].tid[0] >= 3, "{w:?}");
}

/// Blocks far apart in a large grid: the replay runs the witness's two blocks only.
const FAR_BLOCKS: &str = "kernel far(global G[]) {
    if (bid == 70000 && tid == 0) {
        G[0] = 1;
    }
    if (bid == 3 && tid == 0) {
        G[0] = 2;
    }
}
";

#[test]
fn a_race_between_far_blocks_of_a_large_grid_is_confirmed() {
    let r = replayed(FAR_BLOCKS, launch(32, 100000));
    assert_eq!(rows(&r), vec![(3, 6, true, String::new())]);
    let run = r.races[0]
        .replay
        .as_ref()
        .and_then(|p| p.run.clone())
        .expect("ran");
    assert_eq!(run.blocks, vec![3, 70000]);
}

/// The interpreter's own findings come from runs: confirmed as found.
#[test]
fn the_interpreters_findings_are_confirmed() {
    let k = kernel(NEIGHBOUR);
    let r = oracle::dynamic::Interpreter::new(launch(8, 1))
        .check(&k)
        .expect("runs");
    assert!(
        r.races
            .iter()
            .all(|x| x.replay.as_ref().is_some_and(|p| p.confirmed))
    );
}
