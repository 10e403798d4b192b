//! The digit lemmas of `verifier::radix`: a flat index taken apart by `/` and `%` with
//! parameters as extents and put together again (in the same order, permuted, through
//! remainders first, with a loop's variable or a grid-stride step as a digit) is one
//! thread's own cell, which the solver alone cannot show (nonlinear arithmetic); the
//! racy twins (a wrong weight, a dropped digit, a missing bound on a reduced top digit)
//! are found in a small instance of the parameters. Every kernel here has a symbolic
//! launch and symbolic extents, and each check is also run against the interpreter.

use crate::common::*;

/// `b*T*V + t*V + v` from `b = i / (T*V)`, `t = (i / V) % T`, `v = i % V`.
const SAME_ORDER: &str = "kernel grad(global d[], i32 B, i32 T, i32 V) {
    local i = bid * bdim + tid;
    if (i < B * T * V) {
        local b = i / (T * V);
        local t = (i / V) % T;
        local v = i % V;
        local x;
        x = d[b * T * V + t * V + v];
        d[b * T * V + t * V + v] = x + 1;
    }
}
";

#[test]
fn a_flat_index_put_together_again_is_one_threads_own() {
    let r = static_covering_dynamic(SAME_ORDER, strict());
    assert_eq!(races(&r), vec![]);
    assert_eq!(r.notes, Vec::<String>::new());
}

#[test]
fn a_wrong_weight_makes_rows_overlap() {
    // `t * T`: with T < V, row t + 1 starts inside row t.
    let racy = SAME_ORDER.replace("t * V + v]", "t * T + v]");
    let r = static_covering_dynamic(&racy, strict());
    assert_eq!(
        races(&r),
        [
            row("d", 8, 9, "read-write", true, &[], false),
            row("d", 9, 9, "write-write", true, &[], false),
        ]
    );
    assert!(r.races.iter().all(|x| x.witness.is_some()));
    assert_eq!(r.notes, Vec::<String>::new(), "decided, not given up on");
}

/// A 4-d transpose: the top digit reduced `% d1` as well, which is the identity only
/// below `d1*d2*d3*d4` (the guard).
const PERMUTED: &str = "kernel transpose(global src[], global dst[], i32 d1, i32 d2, i32 d3, i32 d4) {
    local idx = bid * bdim + tid;
    if (idx < d1 * d2 * d3 * d4) {
        local i1 = (idx / (d2 * d3 * d4)) % d1;
        local i2 = (idx / (d3 * d4)) % d2;
        local i3 = (idx / d4) % d3;
        local i4 = idx % d4;
        dst[i4 * (d3 * d1 * d2) + i3 * (d1 * d2) + i1 * d2 + i2] = i4;
    }
}
";

#[test]
fn a_permutation_of_the_digits_is_one_threads_own() {
    let r = static_covering_dynamic(PERMUTED, strict());
    assert_eq!(races(&r), vec![]);
    assert_eq!(r.notes, Vec::<String>::new());
}

#[test]
fn without_the_guard_the_reduced_top_digit_wraps() {
    // Thread idx and thread idx + d1*d2*d3*d4 have the same digits.
    let racy = PERMUTED.replace("if (idx < d1 * d2 * d3 * d4)", "if (idx >= 0)");
    let r = static_covering_dynamic(&racy, strict());
    assert_eq!(races(&r), [row("dst", 8, 8, "write-write", true, &[], false)]);
}

#[test]
fn a_dropped_digit_collides() {
    let racy = PERMUTED.replace("+ i1 * d2 + i2]", "+ i2]");
    let r = static_covering_dynamic(&racy, strict());
    assert_eq!(races(&r), [row("dst", 8, 8, "write-write", true, &[], false)]);
}

/// Remainders first (`rest = idx % (H*T*D); h = rest / (T*D); ...`), after an early
/// `return` (so the variables are merged with the guard), into the (b, t, h, k) layout.
const REMAINDERS_FIRST: &str = "kernel unpermute(global rows[], global heads[], i32 B, i32 H, i32 T, i32 D) {
    local idx = bid * bdim + tid;
    if (idx >= B * H * T * D) {
        return;
    }
    local b = idx / (H * T * D);
    local rest = idx % (H * T * D);
    local h = rest / (T * D);
    rest = rest % (T * D);
    local t = rest / D;
    local k = rest % D;
    rows[((b * T + t) * H + h) * D + k] = k;
}
";

#[test]
fn remainders_first_and_an_early_return_are_digits_too() {
    let r = static_covering_dynamic(REMAINDERS_FIRST, strict());
    assert_eq!(races(&r), vec![]);
    let racy = REMAINDERS_FIRST.replace("* H + h) * D + k]", "* H) * D + k]");
    let r = static_covering_dynamic(&racy, strict());
    assert_eq!(races(&r), [row("rows", 12, 12, "write-write", true, &[], false)]);
}

/// A row per thread and its channels in a loop: the loop's variable is the lowest
/// digit, below `C` by the loop's guard.
const ROW_LOOP: &str = "kernel rows(global out[], i32 B, i32 T, i32 C) {
    local n = bid * bdim + tid;
    if (n < B * T) {
        local b = n / T;
        local t = n % T;
        for (c = 0; c < C; c = c + 1) {
            out[(b * T + t) * C + c] = t;
        }
    }
}
";

#[test]
fn a_loop_variable_below_its_bound_is_the_lowest_digit() {
    let r = static_covering_dynamic(ROW_LOOP, strict());
    assert_eq!(races(&r), vec![]);
    // One channel too many: the last of row n is the first of row n + 1 (and with
    // `C = 0` every row is cell 0, in the same iteration).
    let racy = ROW_LOOP.replace("c < C;", "c <= C;");
    let r = static_covering_dynamic(&racy, strict());
    assert_eq!(races(&r), [row("out", 7, 7, "write-write", true, &[1], false)]);
}

#[test]
fn a_grid_stride_loop_visits_disjoint_cells() {
    let src = "kernel bias(global out[], i32 n) {
    for (i = bid * bdim + tid; i < n; i = i + bdim * gdim) {
        local x;
        x = out[i];
        out[i] = x + 1;
    }
}
";
    let r = static_covering_dynamic(src, strict());
    assert_eq!(races(&r), vec![]);
    // A block's stride: block 1's first cell is block 0's second.
    let racy = src.replace("bdim * gdim", "bdim");
    let r = static_covering_dynamic(&racy, strict());
    assert_eq!(
        races(&r),
        [
            row("out", 4, 5, "read-write", false, &[1], false),
            row("out", 5, 5, "write-write", false, &[1], false),
        ]
    );
}

/// A lane (`idx & 31`) and a warp (`idx >> 5`) split again by a parameter, written
/// transposed: `b = warp / H` is below `B` because `warp < B*H` (the early return).
const WARP_ROWS: &str = "kernel warps(global out[], i32 B, i32 H) {
    local idx = bid * bdim + tid;
    local lane = idx & 31;
    local warp = idx >> 5;
    if (warp >= B * H) {
        return;
    }
    local h = warp % H;
    local b = warp / H;
    out[(h * B + b) * 32 + lane] = lane;
}
";

#[test]
fn masks_shifts_and_a_bounded_quotient_are_digits() {
    let r = static_covering_dynamic(WARP_ROWS, strict());
    assert_eq!(races(&r), vec![]);
    // Rows of 16 for 32 lanes: lane 16 of warp 0 meets lane 0 of warp 1 (B = 2, H = 1).
    let racy = WARP_ROWS.replace("* 32 + lane]", "* 16 + lane]");
    let r = static_covering_dynamic(&racy, strict());
    assert_eq!(races(&r), [row("out", 10, 10, "write-write", true, &[], false)]);
}

/// A 2-d launch: `col` (x) bounded by `V` and `row` (y) by `B*T` in one negated
/// disjunction; each is a digit of its own, and a whole index of ids again.
const ROWS_2D: &str = "kernel swap(global out[], i32 B, i32 T, i32 V) {
    local col = bid * bdim + tid;
    local row = bid.y * bdim.y + tid.y;
    if (row >= B * T || col >= V) {
        return;
    }
    local b = row / T;
    local t = row % T;
    out[t * B * V + b * V + col] = t;
}
";

#[test]
fn a_guarded_column_of_a_2d_launch_is_one_digit() {
    let r = static_covering_dynamic(ROWS_2D, strict());
    assert_eq!(races(&r), vec![]);
    // Without the column's bound, column V of row r is column 0 of row r + 1.
    let racy = ROWS_2D.replace(" || col >= V", "");
    let r = static_covering_dynamic(&racy, strict());
    assert_eq!(races(&r), [row("out", 9, 9, "write-write", true, &[], false)]);
}

/// Causal rows: the first loop writes the keys up to the query (`k <= q`, so `k` is
/// below `q`'s extent `T`), the second clears the others with its own counter: two
/// index terms with the same digits (the pair lemma), and a loop digit bounded by
/// another digit.
const CAUSAL: &str = "kernel causal(global att[], i32 H, i32 T) {
    local i = bid * bdim + tid;
    if (i < H * T) {
        local h = i / T;
        local q = i % T;
        for (k = 0; k <= q; k = k + 1) {
            att[h * T * T + q * T + k] = 1;
        }
        for (k2 = 0; k2 < T; k2 = k2 + 1) {
            if (k2 > q) {
                att[h * T * T + q * T + k2] = 0;
            }
        }
    }
}
";

#[test]
fn keys_up_to_the_query_and_the_rest_of_the_row_are_the_rows_own() {
    let r = static_covering_dynamic(CAUSAL, strict());
    assert_eq!(races(&r), vec![]);
    assert_eq!(r.notes, Vec::<String>::new());
}

#[test]
fn clearing_one_key_past_the_row_meets_the_next_rows_first_key() {
    // The last query's row ends at the next row's first cell, which the next thread
    // writes (1) in its first loop while this one clears it (0).
    let racy = CAUSAL.replace("q * T + k2] = 0", "q * T + k2 + 1] = 0");
    let r = static_covering_dynamic(&racy, strict());
    assert_eq!(races(&r), [row("att", 7, 11, "write-write", true, &[], false)]);
    assert!(r.races.iter().all(|x| x.witness.is_some()));
}

/// The q, k and v slices of one row of a fused buffer, each accumulated by its own
/// statement: offsets `H*D` and `2*H*D` sit in the gap between the head digit (weight
/// `D`, extent `H`) and the position digit (weight `3*H*D`), so they are digits of
/// their own (`radix::gap_digits`). The launch and extents are llm.c's; without the
/// offsets as digits the solver takes seconds on these queries (over 100 s on the CUDA
/// form of llm.c's `permute_kernel_backward`).
const QKV_SLICES: &str = "kernel scatter(global d[], global g[], i32 B, i32 T, i32 H, i32 D) {
    local i = bid * bdim + tid;
    if (i < B * H * T * D) {
        local b = i / (H * T * D);
        local h = (i / (T * D)) % H;
        local t = (i / D) % T;
        local c = i % D;
        local row = b * T * 3 * H * D + t * 3 * H * D + h * D + c;
        local x;
        local y;
        x = g[i];
        y = d[row];
        d[row] = x + y;
        y = d[row + H * D];
        d[row + H * D] = x + y;
        y = d[row + 2 * H * D];
        d[row + 2 * H * D] = x + y;
    }
}
";

fn llmc_launch() -> oracle::CheckOptions {
    let mut opts = launch(256, 12288);
    for (p, v) in [("B", 4), ("T", 1024), ("H", 12), ("D", 64)] {
        opts.launch.params.insert(p.into(), v);
    }
    opts
}

#[test]
fn slices_offset_into_a_gap_of_the_digits_are_apart() {
    let r = check_with(QKV_SLICES, llmc_launch());
    assert_eq!(races(&r), vec![]);
    assert_eq!(r.notes, Vec::<String>::new());
}

#[test]
fn a_slice_offset_inside_a_digits_range_overlaps() {
    // `row + D`: the next head's channel, which another thread's `row` is.
    let racy = QKV_SLICES.replace("row + H * D]", "row + D]");
    let r = check_with(&racy, llmc_launch());
    assert_eq!(
        races(&r),
        [
            row("d", 12, 15, "read-write", true, &[], false),
            row("d", 13, 14, "write-read", true, &[], false),
            row("d", 13, 15, "write-write", true, &[], false),
        ]
    );
}
