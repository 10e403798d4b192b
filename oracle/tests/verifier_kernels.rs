//! Realistic kernels (tiled transpose and matrix multiply, histogram with atomics,
//! two-level reduction, double-buffered scan, bitonic sort): verified without loop
//! invariants, and each with a barrier removed reported with the right race.

mod common;
use common::*;
use oracle::CheckOptions;

fn block2d(x: u32, y: u32) -> CheckOptions {
    CheckOptions {
        block_dim: Some([x, y, 1]),
        ..CheckOptions::default()
    }
}

const TRANSPOSE: &str = "kernel transpose(global odata[], global idata[], shared tile[], width, height)
    requires width == gdim.x * 16 && height == gdim.y * 16 {
    local x;
    local y;
    local v;
    x = bid.x * 16 + tid.x;
    y = bid.y * 16 + tid.y;
    v = idata[y * width + x];
    tile[tid.y * 17 + tid.x] = v;
    barrier;
    x = bid.y * 16 + tid.x;
    y = bid.x * 16 + tid.y;
    v = tile[tid.x * 17 + tid.y];
    odata[y * height + x] = v;
}
";

#[test]
fn tiled_transpose() {
    let r = check_with(TRANSPOSE, block2d(16, 16));
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    let racy = TRANSPOSE.replace("    barrier;\n", "");
    assert_eq!(
        races(&check_with(&racy, block2d(16, 16))),
        [row("tile", 9, 12, "write-read", true, &[], true)]
    );
}

const MATMUL: &str = "kernel matmul(global C[], global A[], global B[], shared As[], shared Bs[], n)
    requires n == gdim.x * 16 && gdim.x == gdim.y {
    local row;
    local col;
    local sum = 0;
    local a;
    local b;
    row = bid.y * 16 + tid.y;
    col = bid.x * 16 + tid.x;
    for (t = 0; t < gdim.x; t = t + 1) {
        a = A[row * n + t * 16 + tid.x];
        As[tid.y * 16 + tid.x] = a;
        b = B[(t * 16 + tid.y) * n + col];
        Bs[tid.y * 16 + tid.x] = b;
        barrier;
        for (k = 0; k < 16; k = k + 1) {
            a = As[tid.y * 16 + k];
            b = Bs[k * 16 + tid.x];
            sum = sum + a * b;
        }
        barrier;
    }
    C[row * n + col] = sum;
}
";

#[test]
fn tiled_matrix_multiply() {
    let r = check_with(MATMUL, block2d(16, 16));
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    let racy = MATMUL.replace("        }\n        barrier;\n", "        }\n");
    assert_eq!(
        races(&check_with(&racy, block2d(16, 16))),
        [
            row("As", 12, 17, "write-read", false, &[1], true),
            row("Bs", 14, 18, "write-read", false, &[1], true)
        ]
    );
}

const HISTOGRAM: &str =
    "kernel histogram(global data[], global bins[], shared local_bins[], n) requires bdim == 256 {
    local v;
    local c;
    local_bins[tid] = 0;
    barrier;
    for (i = bid * bdim + tid; i < n; i = i + bdim * gdim) {
        v = data[i];
        atomic_add(local_bins[v & 255], 1);
    }
    barrier;
    c = local_bins[tid];
    atomic_add(bins[tid], c);
}
";

#[test]
fn histogram_with_atomics() {
    let r = check(HISTOGRAM);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    let racy = HISTOGRAM.replace("    barrier;\n    for", "    for");
    assert_eq!(
        races(&check(&racy)),
        [row("local_bins", 4, 7, "write-atomic", true, &[], true)]
    );
}

const REDUCE: &str = "kernel reduce(global out[], global in[], shared s[], n) {
    local sum = 0;
    local v;
    local a;
    local b;
    for (i = bid * bdim + tid; i < n; i = i + bdim * gdim) {
        v = in[i];
        sum = sum + v;
    }
    s[tid] = sum;
    barrier;
    for (k = bdim / 2; k > 0; k = k >> 1) {
        if (tid < k) {
            a = s[tid];
            b = s[tid + k];
            s[tid] = a + b;
        }
        barrier;
    }
    if (tid == 0) {
        a = s[0];
        out[bid] = a;
    }
}
";

#[test]
fn two_level_reduction() {
    let r = check(REDUCE);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    assert!(check_with(REDUCE, launch(256, 64)).is_clean());
    let racy = REDUCE.replace("    s[tid] = sum;\n    barrier;\n", "    s[tid] = sum;\n");
    assert_eq!(
        races(&check(&racy)),
        [row("s", 10, 14, "write-read", true, &[], true)]
    );
}

const SCAN: &str = "kernel scan(global out[], global in[], shared t[]) requires bdim == 128 {
    local pout = 0;
    local pin = 1;
    local v;
    local w;
    v = in[bid * 128 + tid];
    t[tid] = v;
    barrier;
    for (off = 1; off < 128; off = off * 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        v = t[pin * 128 + tid];
        if (tid >= off) {
            w = t[pin * 128 + tid - off];
            t[pout * 128 + tid] = v + w;
        } else {
            t[pout * 128 + tid] = v;
        }
        barrier;
    }
    v = t[pout * 128 + tid];
    out[bid * 128 + tid] = v;
}
";

#[test]
fn double_buffered_scan() {
    let r = check(SCAN);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    // Without the loop's barrier the next iteration overwrites what this one reads.
    let racy = SCAN.replace("        }\n        barrier;\n", "        }\n");
    let rs = races(&check(&racy));
    assert!(rs.iter().all(|r| r.0 == "t" && !r.4 && r.5 == [1]), "{rs:?}");
    assert!(!rs.is_empty());
}

const BITONIC: &str = "kernel bitonic(shared s[]) requires bdim == 256 {
    local a;
    local b;
    local ixj;
    for (k = 2; k <= 256; k = k * 2) {
        for (j = k / 2; j > 0; j = j >> 1) {
            ixj = tid ^ j;
            if (ixj > tid) {
                a = s[tid];
                b = s[ixj];
                if ((tid & k) == 0) {
                    if (a > b) {
                        s[tid] = b;
                        s[ixj] = a;
                    }
                } else {
                    if (a < b) {
                        s[tid] = b;
                        s[ixj] = a;
                    }
                }
            }
            barrier;
        }
    }
}
";

#[test]
fn bitonic_sort() {
    let r = check(BITONIC);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
}
