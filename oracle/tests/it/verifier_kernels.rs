//! Realistic kernels (tiled transpose and matrix multiply, histogram with atomics,
//! two-level reduction, double-buffered and work-efficient scans, bitonic sort,
//! stencils, vector add): verified without loop invariants, and with a barrier removed
//! reported with the right race.

use crate::common::*;
use oracle::CheckOptions;

fn block2d(x: u32, y: u32) -> CheckOptions {
    CheckOptions {
        launch: kpl::Launch {
            block: kpl::launch::dims(Some([x, y, 1])),
            ..kpl::Launch::default()
        },
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

/// Blelloch's work-efficient scan: `offset` doubles in the up-sweep and halves in the
/// down-sweep, indices are `offset * (2 * tid + 1) - 1`. Both loops have constant trip
/// counts, so `offset` is tabulated exactly in both.
const BLELLOCH: &str = "kernel blelloch(shared temp[]) requires bdim == 128 {
    local offset = 1;
    local ai;
    local bi;
    local a;
    local b;
    for (d = 128; d > 0; d = d >> 1) {
        barrier;
        if (tid < d) {
            ai = offset * (2 * tid + 1) - 1;
            bi = offset * (2 * tid + 2) - 1;
            a = temp[ai];
            b = temp[bi];
            temp[bi] = a + b;
        }
        offset = offset * 2;
    }
    if (tid == 0) {
        temp[255] = 0;
    }
    for (d = 1; d < 256; d = d * 2) {
        offset = offset >> 1;
        barrier;
        if (tid < d) {
            ai = offset * (2 * tid + 1) - 1;
            bi = offset * (2 * tid + 2) - 1;
            a = temp[ai];
            b = temp[bi];
            temp[ai] = b;
            temp[bi] = a + b;
        }
    }
    barrier;
}
";

#[test]
fn blelloch_scan() {
    let r = check(BLELLOCH);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    // Without the down-sweep's barrier, its iterations race.
    let racy = BLELLOCH.replace(
        "        offset = offset >> 1;\n        barrier;\n",
        "        offset = offset >> 1;\n",
    );
    let rs = races(&check(&racy));
    assert!(!rs.is_empty() && rs.iter().all(|r| r.0 == "temp"), "{rs:?}");
}

const STENCIL: &str = "kernel stencil(global out[], global inp[], shared s[], n) requires bdim == 128 {
    local gid;
    local v;
    local sum = 0;
    gid = bid * bdim + tid;
    v = inp[gid + 3];
    s[tid + 3] = v;
    if (tid < 3) {
        v = inp[gid];
        s[tid] = v;
        v = inp[gid + bdim + 3];
        s[tid + bdim + 3] = v;
    }
    barrier;
    for (o = 0; o <= 6; o = o + 1) {
        v = s[tid + o];
        sum = sum + v;
    }
    out[gid] = sum;
}
";

#[test]
fn stencil_with_halo() {
    let r = check(STENCIL);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    let racy = STENCIL.replace("    barrier;\n", "");
    assert_eq!(
        races(&check(&racy)),
        [
            row("s", 7, 15, "write-read", true, &[], true),
            row("s", 10, 15, "write-read", true, &[], true),
            row("s", 12, 15, "write-read", true, &[], true)
        ]
    );
}

#[test]
fn vector_add_and_warp_reduction() {
    let vadd = "kernel vadd(global C[], global A[], global B[], n) {
    local i;
    local a;
    local b;
    i = bid * bdim + tid;
    if (i < n) {
        a = A[i];
        b = B[i];
        C[i] = a + b;
    }
}
";
    assert!(check(vadd).is_clean());
    // Warp-synchronous code without __syncwarp: racy under the block-level semantics.
    let warp = "kernel warpred(shared s[]) requires bdim == 64 {
    local a;
    local b;
    if (tid < 32) {
        for (o = 16; o > 0; o = o >> 1) {
            a = s[tid];
            b = s[tid + o];
            s[tid] = a + b;
        }
    }
}
";
    assert_eq!(
        races(&check(warp)),
        [row("s", 7, 8, "read-write", true, &[1], true)]
    );
}

/// The SDK's sortingNetworks bitonic sort on a symbolic length: `size` doubles up to
/// `arrayLength`, `stride` halves from `size / 2`. Both are powers of two with an
/// exponent linear in the iteration numbers (no table is cut short by a guard here).
const BITONIC_SDK: &str =
    "kernel bitonic(global d_Key[], global d_Val[], arrayLength, dir, shared s_key[], shared s_val[])
    requires bdim == 256 {
    local key;
    local a;
    local b;
    local t;
    key = d_Key[tid];
    s_key[tid] = key;
    for (size = 2; size < arrayLength; size = size << 1) {
        local ddd = dir ^ (tid & size / 2) != 0;
        for (stride = size / 2; stride > 0; stride = stride >> 1) {
            barrier;
            local pos = 2 * tid - (tid & stride - 1);
            a = s_key[pos];
            b = s_key[pos + stride];
            if (a > b == ddd) {
                t = s_key[pos];
                s_key[pos] = b;
                s_key[pos + stride] = t;
            }
        }
    }
}
";

#[test]
fn bitonic_sort_with_a_symbolic_length() {
    let r = check(BITONIC_SDK);
    assert!(r.is_clean(), "{:?} {:?}", races(&r), r.notes);
    // A stride that is not a power of two breaks the network.
    let broken = BITONIC_SDK.replace("stride = stride >> 1", "stride = stride - 1");
    assert!(!check(&broken).races.is_empty());
}
