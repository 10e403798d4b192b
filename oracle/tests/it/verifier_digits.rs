//! Mixed-radix digits (`verifier::affine::mixed_radix_digits`): when two accesses have
//! the same index term and it is `c + Σ coef·digit` with each coefficient above what the
//! smaller ones can add up to, a race query is told that equal indices have equal
//! digits. The digits may be any term with a known range: ids, iterations of loops with
//! constant trip counts, or a block index taken modulo the grid (the SDK transpose's
//! diagonal block order). These facts are implied, so no answer may change: race-free
//! kernels verify (quickly), their racy twins are still caught, with the interpreter's
//! races all reported.

use crate::common::*;
use oracle::CheckOptions;

/// Tiles in diagonal order: block (x, y) writes the tile of column `(x + y) % gdim`.
/// Digits: `tid` (1, 4 values), `bid` (4, 4 values), `tid.y + 2·i` (16, 8 values) and
/// `bx` (128, 4 values).
const DIAGONAL: &str = "kernel diag(global out[]) {
    local bx = (bid + bid.y) % gdim;
    for (i = 0; i < 4; i = i + 1) {
        out[tid + 4 * bid + 16 * (tid.y + 2 * i) + 128 * bx] = tid;
    }
}
";

fn launch_4x2_on_4x4() -> CheckOptions {
    CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([4, 2, 1])),
            grid: kpl::launch::dims(Some([4, 4, 1])),
            ..(strict()).launch
        },
        ..strict()
    }
}

#[test]
fn diagonal_tiles_are_disjoint_across_blocks() {
    let r = static_covering_dynamic(DIAGONAL, launch_4x2_on_4x4());
    assert_eq!(races(&r), vec![]);
    assert_eq!(r.notes, Vec::<String>::new());
    // More rows of blocks than columns: blocks (0, 0) and (0, 4) take the same column.
    let taller = CheckOptions {
        launch: kpl::Launch {
            grid: kpl::launch::dims(Some([4, 5, 1])),
            ..(launch_4x2_on_4x4()).launch
        },
        ..launch_4x2_on_4x4()
    };
    let r = static_covering_dynamic(DIAGONAL, taller);
    assert_eq!(races(&r), [row("out", 4, 4, "write-write", true, &[], false)]);
}

#[test]
fn a_column_taken_modulo_too_few_tiles_races_across_blocks() {
    // Columns modulo 2: blocks (0, 0) and (0, 2) write the same tile.
    let racy = DIAGONAL.replace("% gdim", "% 2");
    let r = static_covering_dynamic(&racy, launch_4x2_on_4x4());
    assert_eq!(races(&r), [row("out", 4, 4, "write-write", true, &[], false)]);
    assert!(r.races[0].witness.is_some());
}

#[test]
fn overlapping_digits_race_and_are_not_split() {
    // `2·bid` overlaps the four values of `tid`: not mixed-radix, and thread 2 of block
    // 0 meets thread 0 of block 1.
    let racy = DIAGONAL.replace("4 * bid", "2 * bid");
    let r = static_covering_dynamic(&racy, launch_4x2_on_4x4());
    assert_eq!(races(&r), [row("out", 4, 4, "write-write", true, &[], false)]);
}

#[test]
fn negative_coefficients_and_a_constant_base_are_digits_too() {
    let mirrored = DIAGONAL.replace(
        "out[tid + 4 * bid + 16 * (tid.y + 2 * i) + 128 * bx]",
        "out[1000 - tid - 4 * bid - 16 * (tid.y + 2 * i) - 128 * bx]",
    );
    assert_eq!(
        races(&static_covering_dynamic(&mirrored, launch_4x2_on_4x4())),
        vec![]
    );
    // Its racy twin: the iteration digit is too narrow (`tid.y + i` overlaps itself):
    // row 1 at iteration 0 meets row 0 at iteration 1, in one block.
    let racy = mirrored.replace("2 * i", "i");
    let r = static_covering_dynamic(&racy, launch_4x2_on_4x4());
    assert_eq!(races(&r), [row("out", 4, 4, "write-write", false, &[1], true)]);
}

#[test]
fn a_loop_without_a_constant_trip_count_gives_no_digit() {
    // The iteration of a loop up to `n` has no known range: no facts. Past 4 iterations
    // a block's rows reach the next column's tile: a real race.
    let open = DIAGONAL
        .replace("kernel diag(global out[])", "kernel diag(global out[], n)")
        .replace("i < 4", "i < n");
    assert_eq!(
        races(&check_with(&open, launch_4x2_on_4x4())),
        [row("out", 4, 4, "write-write", false, &[1], false)]
    );
    // At most 4 iterations (a precondition, which ranges do not see): the solver alone
    // verifies it, and the racy twin is still caught.
    let bounded = open.replace("(global out[], n)", "(global out[], n) requires n <= 4");
    assert_eq!(races(&check_with(&bounded, launch_4x2_on_4x4())), vec![]);
    let racy = bounded.replace("% gdim", "% 2");
    assert_eq!(
        races(&check_with(&racy, launch_4x2_on_4x4())),
        [row("out", 4, 4, "write-write", true, &[], false)]
    );
}
