//! Loops without invariants: reductions, thread-dependent loops, geometric steps, nested
//! loops and early exits.

use crate::common::*;

const REDUCE: &str = "kernel reduce(shared A[]) {
    local a;
    local b;
    for (s = bdim / 2; s > 0; s = s >> 1) {
        if (tid < s) {
            a = A[tid];
            b = A[tid + s];
            A[tid] = a + b;
        }
        barrier;
    }
}
";

#[test]
fn reduction_is_race_free_for_any_and_for_concrete_block_sizes() {
    let r = check(REDUCE);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    for n in [1, 2, 64, 256, 1000] {
        let r = check_with(REDUCE, launch(n, 8));
        assert!(r.is_clean(), "bdim {n}: {:?}", races(&r));
    }
}

#[test]
fn reduction_without_barrier_races_only_across_iterations() {
    let src = REDUCE.replace("        barrier;\n", "");
    for opts in [strict(), launch(256, 1)] {
        let r = check_with(&src, opts);
        assert_eq!(races(&r), [row("A", 7, 8, "read-write", false, &[1], true)]);
        let w = r.races[0].witness.as_ref().expect("witness");
        assert_ne!(w.iterations[0], w.iterations[1]);
    }
}

#[test]
fn reduction_with_division_step_and_doubling_step() {
    let halving = REDUCE.replace("s = s >> 1", "s = s / 2");
    assert!(check(&halving).is_clean());
    let doubling = "kernel reduce2(shared A[]) {
    local a;
    local b;
    for (s = 1; s < bdim; s = s * 2) {
        if (tid % (2 * s) == 0) {
            a = A[tid];
            b = A[tid + s];
            A[tid] = a + b;
        }
        barrier;
    }
}
";
    assert!(check(doubling).is_clean());
    assert!(check_with(doubling, launch(128, 1)).is_clean());
    let masked = doubling.replace("tid % (2 * s) == 0", "(tid & (2 * s - 1)) == 0");
    assert!(check(&masked).is_clean());
    let racy = doubling.replace("        barrier;\n", "");
    assert_eq!(
        races(&check(&racy)),
        [row("A", 7, 8, "read-write", false, &[1], true)]
    );
}

/// Iteration k writes `[s_k, 2 s_k)`: disjoint from later iterations only because the
/// sequence at least halves, which the geometric facts provide when `n` is symbolic and
/// the table provides when it is known.
#[test]
fn geometric_ranges_are_disjoint_across_iterations() {
    let src = "kernel halves(shared A[], n) {
    for (s = n; s > 0; s = s / 2) {
        if (tid < s) {
            A[s + tid] = 0;
        }
    }
}
";
    let r = check(src);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    let mut opts = strict();
    opts.launch.params.insert("n".into(), 64);
    assert!(check_with(src, opts).is_clean());
    let growing = "kernel doubles(shared A[], n) {
    for (s = 1; s < n; s = s * 2) {
        if (tid < s) {
            A[s + tid] = 0;
        }
    }
}
";
    assert!(check(growing).is_clean());
    // One step of three thirds is not enough: iterations overlap.
    let thirds = src.replace("s = s / 2", "s = s * 2 / 3");
    assert_eq!(
        races(&check(&thirds)),
        [row("A", 4, 4, "write-write", false, &[1], true)]
    );
}

#[test]
fn thread_dependent_trip_counts() {
    let src = "kernel tri(shared A[], n) requires n >= bdim {
    for (i = 0; i < tid; i = i + 1) {
        A[tid * n + i] = 0;
    }
}
";
    assert!(check(src).is_clean());
    let racy = src.replace(" requires n >= bdim", "");
    assert_eq!(
        races(&check(&racy)),
        [row("A", 3, 3, "write-write", true, &[1], true)]
    );
    let with_barrier = src.replace(
        "        A[tid * n + i] = 0;\n",
        "        A[tid * n + i] = 0;\n        barrier;\n",
    );
    let r = check(&with_barrier);
    assert_eq!(divergences(&r), [4]);
}

#[test]
fn strided_read_modify_write_is_race_free() {
    let src = "kernel inc(global A[], n) {
    local x;
    for (i = bid * bdim + tid; i < n; i = i + bdim * gdim) {
        x = A[i];
        A[i] = x + 1;
    }
}
";
    let r = check_with(src, launch(64, 4));
    assert!(r.is_clean(), "{:?}", races(&r));
}

const NESTED: &str = "kernel nested(shared A[], n, m) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        for (j = 0; j < m; j = j + 1) {
            x = A[tid + 1];
            A[tid] = x;
        }
    }
}
";

#[test]
fn nested_loops_race_at_both_depths() {
    assert_eq!(
        races(&check(NESTED)),
        [row("A", 5, 6, "read-write", true, &[1, 2], true)]
    );
}

#[test]
fn nested_loops_intra_barrier_leaves_both_inter_races() {
    let src = NESTED.replace(
        "            A[tid] = x;\n",
        "            barrier;\n            A[tid] = x;\n",
    );
    assert_eq!(
        races(&check(&src)),
        [row("A", 5, 7, "read-write", false, &[1, 2], true)]
    );
}

#[test]
fn nested_loops_outer_barrier_fixes_depth_one_only() {
    let src = NESTED
        .replace(
            "            A[tid] = x;\n",
            "            barrier;\n            A[tid] = x;\n",
        )
        .replace("i = i + 1) {\n", "i = i + 1) {\n        barrier;\n");
    assert_eq!(
        races(&check(&src)),
        [row("A", 6, 8, "read-write", false, &[2], true)]
    );
}

#[test]
fn nested_loops_fully_synchronized() {
    let src = NESTED
        .replace(
            "            A[tid] = x;\n",
            "            barrier;\n            A[tid] = x;\n",
        )
        .replace("j = j + 1) {\n", "j = j + 1) {\n            barrier;\n");
    let r = check(&src);
    assert!(r.is_clean(), "{:?}", races(&r));
}

const EARLY: &str = "kernel early(shared A[], n) {
    local x;
    if (tid >= n) {
        return;
    }
    x = A[tid + 1];
    barrier;
    A[tid] = x;
}
";

#[test]
fn early_exit_with_a_thread_dependent_guard_diverges() {
    let r = check(EARLY);
    assert_eq!(divergences(&r), [7]);
    // The divergent barrier synchronizes nothing.
    assert_eq!(races(&r), [row("A", 6, 8, "read-write", true, &[], true)]);
    let w = r.divergences[0].witness.as_ref().expect("witness");
    let n = w
        .params
        .iter()
        .find(|(p, _)| p == "n")
        .map(|(_, v)| *v)
        .unwrap_or(-1);
    assert!((w.threads[0].tid[0] as i64) < n && (w.threads[1].tid[0] as i64) >= n);
}

#[test]
fn early_exit_made_uniform_by_the_precondition_or_launch() {
    let src = EARLY.replace(
        "kernel early(shared A[], n) {",
        "kernel early(shared A[], n) requires n >= bdim {",
    );
    let r = check(&src);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), divergences(&r));
    let mut opts = launch(32, 1);
    opts.launch.params.insert("n".into(), 32);
    assert!(check_with(EARLY, opts).is_clean());
    let uniform = EARLY.replace("tid >= n", "n == 0");
    assert!(check(&uniform).is_clean());
}

#[test]
fn uniform_break_and_continue_keep_barriers_aligned() {
    let src = "kernel brk(shared A[], n) {
    local x;
    for (i = 0; i < n; i = i + 1) {
        if (i == 5) {
            break;
        }
        if (i % 2 == 1) {
            continue;
        }
        x = A[tid + 1];
        barrier;
        A[tid] = x;
        barrier;
    }
}
";
    let r = check(src);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), divergences(&r));
}

#[test]
fn thread_dependent_break_and_continue_diverge() {
    let brk = "kernel brk(shared A[], n) {
    for (i = 0; i < n; i = i + 1) {
        if (i == tid) {
            break;
        }
        barrier;
    }
}
";
    assert_eq!(divergences(&check(brk)), [6]);
    let cont = brk.replace("break;", "continue;");
    assert_eq!(divergences(&check(&cont)), [6]);
    // After the loop the threads are together again.
    let after = brk.replace("        barrier;\n    }\n", "    }\n    barrier;\n");
    assert!(check(&after).is_clean());
}

#[test]
fn while_loop_with_an_unknown_step() {
    // `i` has no closed form (it is doubled and incremented), so it is arbitrary at
    // every iteration but the first. `A[i * bdim + tid]` still belongs to thread `tid`
    // whatever `i` is, so that loop needs no barrier; `A[i + tid]` does.
    let src = "kernel wh(shared A[], n) {
    local i = 1;
    while (i < n) {
        A[i * bdim + tid] = 0;
        i = i * 2 + 1;
    }
}
";
    let r = check(src);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    let shifted = src.replace("A[i * bdim + tid]", "A[i + tid]");
    assert_eq!(
        races(&check(&shifted)),
        [row("A", 4, 4, "write-write", false, &[1], true)]
    );
    let synchronized = shifted.replace(
        "        i = i * 2 + 1;\n",
        "        barrier;\n        i = i * 2 + 1;\n",
    );
    assert!(check(&synchronized).is_clean());
}

/// Found by the property test: a `return` that every thread inside the loop executes
/// is still thread-dependent when the number of iterations is.
#[test]
fn uniform_return_inside_a_thread_dependent_loop_diverges_later_barriers() {
    let src = "kernel k(shared A[]) {
    for (i = 1; i < tid; i = i * 2) {
        for (j = 0; j < 1; j = j + 1) {
            return;
        }
    }
    barrier;
}
";
    assert_eq!(divergences(&check(src)), [7]);
    let uniform = src.replace("i < tid", "i < bdim");
    assert!(check(&uniform).is_clean());
}

/// A loop whose body ends with an unconditional `break` and never continues runs once
/// (the CUDA front end's `while (1) { ... break; }` for a `switch`): no race across
/// its iterations. With a data-dependent `continue` it may run again for some threads:
/// the barrier diverges (and orders nothing), and the races are back.
#[test]
fn a_loop_that_always_breaks_runs_once() {
    let once = "kernel k(shared s[]) {
  local x;
  while (1) {
    x = s[tid + 1];
    barrier;
    s[tid] = x;
    break;
  }
}";
    let r = check(once);
    assert_eq!(races(&r), vec![]);
    let again = once.replace(
        "    barrier;\n",
        "    barrier;\n    if (x == 0) {\n      continue;\n    }\n",
    );
    let r = check(&again);
    assert_eq!(divergences(&r), vec![5]);
    assert_eq!(races(&r), vec![row("s", 4, 9, "read-write", true, &[1], true)]);
}

/// An inner loop that updates a variable the outer loop carries is analysed inside the
/// outer loop's analysis pass (it is not self-contained): `x` is exactly 6 after the nest.
const CARRIED_THROUGH_INNER: &str = "kernel carried(shared A[]) {
    local x;
    x = 0;
    for (i = 0; i < 3; i = i + 1) {
        for (j = 0; j < 2; j = j + 1) {
            x = x + 1;
        }
    }
    if (tid == 0) {
        A[x] = 1;
    }
    if (tid == 1) {
        A[5] = 2;
    }
}
";

#[test]
fn a_variable_updated_in_an_inner_loop_keeps_its_exact_value_after_the_nest() {
    let r = check(CARRIED_THROUGH_INNER);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    let racy = CARRIED_THROUGH_INNER.replace("A[5] = 2", "A[6] = 2");
    let r = check(&racy);
    assert!(
        races(&r).iter().any(|x| (x.1, x.2) == (10, 13)),
        "{:?}",
        races(&r)
    );
}

/// A nest of `depth` loops with symbolic trip counts, each writing `A[tid]` and
/// synchronizing (Faial's sync-loops pattern), with `innermost` in the deepest body.
fn deep_nest(depth: usize, innermost: &str) -> String {
    let mut body = String::new();
    for d in 0..depth {
        let pad = "    ".repeat(d + 1);
        body += &format!(
            "{pad}for (i{d} = 0; i{d} < N; i{d} = i{d} + 1) {{\n{pad}    A[tid] = 1;\n{pad}    barrier;\n"
        );
    }
    body += &format!("{}{innermost}\n", "    ".repeat(depth + 1));
    for d in (0..depth).rev() {
        body += &format!("{}}}\n", "    ".repeat(d + 1));
    }
    format!("kernel deep(shared A[], shared B[], N) {{\n{body}}}\n")
}

#[test]
fn deep_loop_nests_are_summarized_once_per_loop_and_still_race() {
    // The inner loops are self-contained: analysis passes of the outer loops skip them.
    let r = check(&deep_nest(40, "B[tid] = 1;"));
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    let r = check(&deep_nest(40, "B[0] = tid;"));
    assert_eq!(races(&r).len(), 1, "{:?}", races(&r));
    assert_eq!(races(&r)[0].0, "B");
    assert_eq!(races(&r)[0].1, 122);
}
