//! Grid barriers (`grid_barrier;`, CUDA's `this_grid().sync()` in a cooperative
//! launch): they order threads of different blocks, and must be reached by every
//! thread of the grid. Both oracles must agree on the exact races and divergences.

use crate::common;

use crate::common::{RaceRow, check_with, divergences, kernel, launch, races, row};
use oracle::dynamic::Interpreter;
use oracle::{CheckOptions, Oracle, Report};

/// Both oracles' reports; their races must be equal, and so must their divergent
/// barriers.
fn both(src: &str, opts: CheckOptions) -> (Vec<RaceRow>, Vec<u32>) {
    let stat = check_with(src, opts.clone());
    let dynamic: Report = Interpreter::new(opts)
        .check(&kernel(src))
        .expect("the interpreter runs");
    assert_eq!(
        races(&stat),
        races(&dynamic),
        "static and dynamic races differ\n{src}"
    );
    assert_eq!(
        divergences(&stat),
        divergences(&dynamic),
        "static and dynamic divergences differ\n{src}"
    );
    (races(&stat), divergences(&stat))
}

/// Per-block partial sums, a grid barrier, block 0 sums the partials.
const TWO_PHASE: &str = "kernel two_phase(global part[], global out[]) {
  if (tid == 0) {
    part[bid] = bid;
  }
  grid_barrier;
  if (bid == 0) {
    if (tid == 0) {
      for (i = 0; i < gdim; i = i + 1) {
        local x = 0;
        x = part[i];
        out[0] = x;
      }
    }
  }
}";

#[test]
fn a_grid_barrier_orders_threads_of_different_blocks() {
    assert_eq!(both(TWO_PHASE, launch(4, 3)), (vec![], vec![]));
    // Symbolic launch: proved for every grid.
    let stat = check_with(TWO_PHASE, common::strict());
    assert!(stat.is_clean(), "{stat:?}");
}

#[test]
fn a_block_barrier_does_not_order_threads_of_different_blocks() {
    let src = TWO_PHASE.replace("grid_barrier;", "barrier;");
    let (r, d) = both(&src, launch(4, 3));
    assert_eq!(r, vec![row("part", 3, 10, "write-read", true, &[], false)]);
    assert!(d.is_empty());
    let none = TWO_PHASE.replace("  grid_barrier;\n", "");
    assert_eq!(
        both(&none, launch(4, 3)).0,
        vec![row("part", 3, 9, "write-read", true, &[], false)]
    );
}

#[test]
fn deviation_a_divergent_grid_barrier_orders_nothing_and_the_interpreter_sees_less() {
    let src = TWO_PHASE.replace("  grid_barrier;", "  if (bid == 0) {\n    grid_barrier;\n  }");
    let stat = check_with(&src, launch(4, 3));
    let dynamic = Interpreter::new(launch(4, 3)).check(&kernel(&src)).expect("runs");
    assert_eq!(divergences(&stat), vec![6]);
    assert_eq!(divergences(&dynamic), vec![6]);
    // A divergent grid barrier orders nothing (the interpreter, whose blocks then
    // disagree on their grid phases, sees less).
    assert_eq!(
        races(&stat),
        vec![row("part", 3, 12, "write-read", true, &[], false)]
    );
    common::assert_static_covers(&stat, &dynamic, &src);
    // Uniform in every block but not across blocks: only the grid query sees it.
    let stat = check_with(&src, common::strict());
    assert_eq!(divergences(&stat), vec![6]);
    // With one block, nothing diverges.
    assert_eq!(both(&src, launch(4, 1)).1, Vec::<u32>::new());
}

#[test]
fn a_grid_barrier_under_a_grid_uniform_condition_does_not_diverge() {
    let src = "kernel k(global G[], n) {
  G[bid * bdim + tid] = 1;
  if (n > 2) {
    grid_barrier;
  }
  local x = 0;
  x = G[(bid * bdim + tid + 1) % (gdim * bdim)];
}";
    let (r, d) = both(src, launch(2, 2));
    assert!(d.is_empty());
    // Ordered only when the barrier runs (n > 2): the race with n <= 2 stays.
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(!r[0].6, "between blocks");
}

/// Jacobi-style sweep: ping-pong buffers, a grid barrier per iteration.
const JACOBI: &str = "kernel jacobi(global a[], global b[], n) {
  local i = bid * bdim + tid;
  for (it = 0; it < n; it = it + 1) {
    local l = 0;
    local r = 0;
    if (i > 0) {
      l = a[i - 1];
    }
    if (i + 1 < gdim * bdim) {
      r = a[i + 1];
    }
    b[i] = l + r;
    grid_barrier;
    if (i > 0) {
      l = b[i - 1];
    }
    if (i + 1 < gdim * bdim) {
      r = b[i + 1];
    }
    a[i] = l + r;
    grid_barrier;
  }
}";

#[test]
fn jacobi_sweeps_with_grid_barriers_verify() {
    assert_eq!(both(JACOBI, launch(2, 2)), (vec![], vec![]));
    let stat = check_with(JACOBI, common::strict());
    assert!(stat.is_clean(), "{stat:?}");
}

#[test]
fn jacobi_without_its_second_grid_barrier_races_across_iterations() {
    let src = JACOBI.replacen("    a[i] = l + r;\n    grid_barrier;\n", "    a[i] = l + r;\n", 1);
    let (r, d) = both(&src, launch(2, 2));
    assert!(d.is_empty());
    let lines: Vec<(u32, u32, bool)> = r.iter().map(|x| (x.1, x.2, x.6)).collect();
    assert!(lines.contains(&(7, 20, false)), "{r:?}");
}

#[test]
fn deviation_grid_barriers_are_credited_only_at_chosen_instances() {
    // As for block barriers: the grid barrier at j == 3 of the inner loop lies between
    // the write and the read of another block, but only the inner loop's first
    // iteration is tried, so the same-iteration pair stays a (false) race; the
    // barrier out of the conditional removes it.
    let src = "kernel k(global G[], n) {
    local x = 0;
    for (i = 0; i < n; i = i + 1) {
        G[bid * bdim + tid] = i;
        for (j = 0; j < 4; j = j + 1) {
            if (j == 3) {
                grid_barrier;
            }
        }
        x = G[((bid + 1) % gdim) * bdim + tid];
        grid_barrier;
    }
}";
    let r = check_with(src, launch(2, 2));
    assert!(r.divergences.is_empty());
    assert_eq!(races(&r), vec![row("G", 4, 10, "write-read", true, &[], false)]);
    let plain = src.replace(
        "            if (j == 3) {\n                grid_barrier;\n            }\n",
        "            grid_barrier;\n",
    );
    assert!(check_with(&plain, launch(2, 2)).is_clean());
    // The interpreter sees no race.
    let dynamic = Interpreter::new(launch(2, 2)).check(&kernel(src)).expect("runs");
    assert!(dynamic.races.is_empty(), "{:?}", dynamic.races);
}

/// [`TWO_PHASE`] with the ordering point of a last-block ticket (`ticket_barrier;`,
/// what the CUDA front end writes for a fence-and-ticket pattern) instead of a grid
/// barrier: it orders as one.
#[test]
fn a_ticket_barrier_orders_threads_of_different_blocks() {
    let src = TWO_PHASE.replace("grid_barrier;", "ticket_barrier;");
    assert_eq!(both(&src, launch(4, 3)), (vec![], vec![]));
    let stat = check_with(&src, common::strict());
    assert!(stat.is_clean(), "{stat:?}");
}

#[test]
fn deviation_a_ticket_barrier_some_block_skips_orders_nothing_and_is_no_divergence() {
    // A block that skips its ticket leaves no block last: not an error, but then the
    // ticket orders nothing (the verifier), while the interpreter, whose blocks then
    // disagree on their phases, sees less.
    let src = TWO_PHASE.replace("  grid_barrier;", "  if (bid == 0) {\n    ticket_barrier;\n  }");
    let stat = check_with(&src, launch(4, 3));
    let dynamic = Interpreter::new(launch(4, 3)).check(&kernel(&src)).expect("runs");
    assert_eq!(divergences(&stat), Vec::<u32>::new());
    assert_eq!(divergences(&dynamic), Vec::<u32>::new());
    assert_eq!(
        races(&stat),
        vec![row("part", 3, 12, "write-read", true, &[], false)]
    );
    common::assert_static_covers(&stat, &dynamic, &src);
    // Within a block too: no divergence, no ordering.
    let src = TWO_PHASE.replace("  grid_barrier;", "  if (tid == 0) {\n    ticket_barrier;\n  }");
    let stat = check_with(&src, launch(4, 3));
    assert_eq!(divergences(&stat), Vec::<u32>::new());
    assert_eq!(
        races(&stat),
        vec![row("part", 3, 12, "write-read", true, &[], false)]
    );
}
