//! Lowering of CUDA constructs to KPL: the exact kernel `kpl::print` shows for small
//! snippets, one construct (family) per test.

mod common;

use common::lower_text;

/// A padded 2-D tile flattens row-major; a `__shared__` scalar is a one-cell array; `atomicAdd` on it is a KPL atomic.
#[test]
fn shared_2d_arrays_scalars_and_atomics() {
    let src = r#"#define N 16
__global__ void k(int *in, int *out, int n) {
    __shared__ int s[N][N + 1];
    __shared__ int total;
    int x = threadIdx.x, y = threadIdx.y;
    s[y][x] = in[y * n + x];
    if (x == 0 && y == 0) total = 0;
    __syncthreads();
    atomicAdd(&total, s[x][y]);
    __syncthreads();
    if (x == 0) out[blockIdx.x] = total;
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global in[], global out[], n, shared s[], shared total[]) {
    local x = tid;
    local y = tid.y;
    local _t;
    _t = in[y * n + x];
    s[y * 17 + x] = _t;
    if (x == 0 && y == 0) {
        total[0] = 0;
    }
    barrier;
    local _t_1;
    _t_1 = s[x * 17 + y];
    atomic_add(total[0], _t_1);
    barrier;
    if (x == 0) {
        local _t_2;
        _t_2 = total[0];
        out[bid] = _t_2;
    }
}
"#
    );
}

/// Floating-point values are not tracked: reads go to `_`, writes store a havocked `_`, float conditions are arbitrary locals.
#[test]
fn floats_are_arbitrary() {
    let src = r#"__global__ void k(float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = a[i] * 2.0f;
    if (v > 0.5f)
        a[i] = v;
    for (int j = 0; j < n; j += 2) {
        a[i + j] += 1.0f;
    }
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[], n) {
    local _;
    local i = bid * bdim + tid;
    _ = a[i];
    local _c;
    if (_c) {
        havoc _;
        a[i] = _;
    }
    for (j = 0; j < n; j = j + 2) {
        _ = a[i + j];
        havoc _;
        a[i + j] = _;
    }
}
"#
    );
}

/// `?:` and `&&` with memory reads become `if`s into fresh locals; comma, compound assignment and `++`/`--` are plain updates; a narrowing signed cast of an unknown value is arbitrary.
#[test]
fn ternary_short_circuit_comma_and_updates() {
    let src = r#"__global__ void k(int *a, int *b, int n) {
    int t = threadIdx.x;
    int v = t < n ? a[t] : -1;
    int w = (t > 0 && a[t - 1] > v) ? 1 : 0;
    b[t] = v, b[t + n] = w;
    int k = t;
    k += 2; k <<= 1; ++k; k--;
    b[k] = (unsigned char)(k) + (short)k;
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[], global b[], n) {
    local _;
    local t = tid;
    local _s;
    if (t < n) {
        local _t;
        _t = a[t];
        _s = _t;
    } else {
        _s = (-1);
    }
    local v = _s;
    local _b = t > 0;
    if (_b) {
        local _t_1;
        _t_1 = a[t - 1];
        _b = _t_1 > v;
    }
    local _s_1;
    if (_b) {
        _s_1 = 1;
    } else {
        _s_1 = 0;
    }
    local w = _s_1;
    b[t] = v;
    b[t + n] = w;
    local k = t;
    k = k + 2;
    k = k << 1;
    k = k + 1;
    k = k - 1;
    havoc _;
    b[k] = _;
}
"#
    );
}

/// `SharedMemory<T>()` through its conversion operator, a template instantiated explicitly, and `if (blockSize >= 512)` folded away.
#[test]
fn templates_sharedmemory_and_constant_folding() {
    let src = r#"template <class T> struct SharedMemory {
    __device__ inline operator T *() { extern __shared__ int __smem[]; return (T *)__smem; }
};
template <unsigned int blockSize>
__global__ void k(int *g, unsigned int n) {
    int *sdata = SharedMemory<int>();
    unsigned int tid = threadIdx.x;
    sdata[tid] = g[tid];
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
    if (tid == 0) g[blockIdx.x] = sdata[0];
}
template __global__ void k<256>(int *, unsigned int);
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k<256>(global g[], n, shared __smem[]) {
    local tid_1 = tid;
    local _t;
    _t = g[tid_1];
    __smem[tid_1] = _t;
    barrier;
    if (tid_1 < 128) {
        local _t_1;
        _t_1 = __smem[tid_1];
        local _t_2;
        _t_2 = __smem[tid_1 + 128];
        __smem[tid_1] = _t_1 + _t_2;
    }
    barrier;
    if (tid_1 == 0) {
        local _t_3;
        _t_3 = __smem[0];
        g[bid] = _t_3;
    }
}
"#
    );
}

/// A device function with an early return uses a `done` flag; a pointer argument binds to the array it points into.
#[test]
fn device_functions_inlined_with_early_returns() {
    let src = r#"__device__ int clampi(int v, int hi) {
    if (v > hi)
        return hi;
    return v;
}
__device__ void store(int *p, int i, int v) { p[i] = v; }
__global__ void k(int *out, int n) {
    __shared__ int s[64];
    int i = clampi(threadIdx.x, n);
    store(s, i, 7);
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global out[], n, shared s[]) {
    local clampi_done = 0;
    local clampi_ret;
    if (tid > n) {
        clampi_ret = n;
        clampi_done = 1;
    }
    if (!clampi_done) {
        clampi_ret = tid;
        clampi_done = 1;
    }
    local i = clampi_ret;
    s[i] = 7;
    barrier;
    local _t;
    _t = s[63 - tid];
    out[tid] = _t;
}
"#
    );
}

/// Vector types take one cell per field; a `uint4` load goes straight into the fields; `(float *)f` addresses the same cells as `float2 *f`.
#[test]
fn vector_types_field_slots_and_pointer_casts() {
    let src = r#"__global__ void k(uint4 *d, float2 *f, int n) {
    __shared__ float2 buf[32];
    uint4 v = d[threadIdx.x];
    v.x += v.w;
    buf[threadIdx.x] = f[threadIdx.x];
    __syncthreads();
    float2 g = buf[(threadIdx.x + 1) % 32];
    d[threadIdx.x] = v;
    ((float *)f)[2 * threadIdx.x + 1] = g.x;
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global d[], global f[], n, shared buf[]) {
    local _;
    local v_x;
    local v_y;
    local v_z;
    local v_w;
    v_x = d[tid * 4];
    v_y = d[tid * 4 + 1];
    v_z = d[tid * 4 + 2];
    v_w = d[tid * 4 + 3];
    v_x = v_x + v_w;
    _ = f[tid * 2];
    _ = f[tid * 2 + 1];
    havoc _;
    buf[tid * 2] = _;
    havoc _;
    buf[tid * 2 + 1] = _;
    barrier;
    _ = buf[(tid + 1) % 32 * 2];
    _ = buf[(tid + 1) % 32 * 2 + 1];
    d[tid * 4] = v_x;
    d[tid * 4 + 1] = v_y;
    d[tid * 4 + 2] = v_z;
    d[tid * 4 + 3] = v_w;
    havoc _;
    f[2 * tid + 1] = _;
}
"#
    );
}

/// `__requires` over parameters and launch sizes is a precondition, `__assume` an assumption; `__invariant`, `__global_invariant`, `__assert` are ignored.
#[test]
fn gpuverify_annotations() {
    let src = r#"//--blockDim=64 --gridDim=8
__global__ void k(int *a, int *b, int n, int m) {
    __requires(n > 0 && m == 2 * n);
    __requires(blockDim.x == 64);
    __assume(threadIdx.x < 64);
    __invariant(n > 0);
    __global_invariant(__implies(n > 0, m > 0));
    __assert(n > 0);
    a[threadIdx.x] = b[threadIdx.x] + n;
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[], global b[], n, m) requires (n > 0 && m == 2 * n) && bdim == 64 {
    assume tid < 64;
    local _t;
    _t = b[tid];
    a[tid] = _t + n;
}
"#
    );
}

/// A `switch` without fallthrough is an `if` chain; a loop condition that reads memory is evaluated at the top of the body; `do`/`while` loops run the body first.
#[test]
fn switch_and_loops_that_read_memory_in_their_condition() {
    let src = r#"__global__ void k(int *a, int n) {
    int t = threadIdx.x;
    switch (t % 4) {
    case 0: a[t] = 0; break;
    case 1:
    case 2: a[t] = 1; break;
    default: a[t] = 2;
    }
    int i = 0;
    while (a[i] < n) {
        if (a[i] == 0) break;
        i++;
    }
    do { i--; } while (i > t);
    for (int j = n; j > 0; j /= 2)
        a[j] = t;
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[], n) {
    local t = tid;
    local _sw = t % 4;
    if (_sw == 0) {
        a[t] = 0;
    } else {
        if (_sw == 1 || _sw == 2) {
            a[t] = 1;
        } else {
            a[t] = 2;
        }
    }
    local i = 0;
    while (1) {
        local _t;
        _t = a[i];
        if (_t >= n) {
            break;
        }
        local _t_1;
        _t_1 = a[i];
        if (_t_1 == 0) {
            break;
        }
        i = i + 1;
    }
    while (1) {
        i = i - 1;
        if (i <= t) {
            break;
        }
    }
    for (j = n; j > 0; j = j / 2) {
        a[j] = t;
    }
}
"#
    );
}

/// Distinct pointer parameters are distinct arrays (noted); `__restrict__` ones are not in the note.
#[test]
fn distinct_pointer_parameters_and_the_alias_note() {
    let src = r#"__global__ void k(float *a, float *b, int *c, const float * __restrict__ r) {
    a[threadIdx.x] = b[threadIdx.x] + r[0];
    c[threadIdx.x] = 1;
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[], global b[], global c[], global r[]) {
    local _;
    _ = b[tid];
    _ = r[0];
    havoc _;
    a[tid] = _;
    c[tid] = 1;
}
"#
    );
    let t = common::translate_text(src).unwrap();
    assert_eq!(t.kernels[0].notes, vec![r#"assuming the pointer parameters `a`, `b`, `c` do not alias each other, as GPUVerify does; pass --alias to drop this assumption (or mark them __restrict__ to state it)"#.to_string()]);
}

/// `__ldg` reads, texture fetches are arbitrary, `b.sync()` of a thread block is a barrier, `__syncwarp()` is a warp barrier, fences vanish, private arrays are not memory, and an unknown function may read and write some element of what its pointer argument points to.
#[test]
fn builtins_groups_textures_and_unknown_functions() {
    let src = r#"#include <cooperative_groups.h>
namespace cg = cooperative_groups;
texture<float, 1, cudaReadModeElementType> tex;
__device__ void helper(int *p);
__global__ void k(int *out, int n) {
    cg::thread_block b = cg::this_thread_block();
    __shared__ int s[128];
    int priv[4];
    priv[threadIdx.x % 4] = n;
    s[threadIdx.x] = __ldg(&out[threadIdx.x]) + priv[1];
    float t = tex1Dfetch(tex, threadIdx.x);
    b.sync();
    helper(s);
    __syncwarp();
    __threadfence_block();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 128];
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global out[], n, shared s[]) {
    local _;
    local _t;
    _t = out[tid];
    havoc _;
    s[tid] = _;
    barrier;
    local _i;
    _ = s[_i];
    havoc _;
    s[_i] = _;
    warp_barrier;
    local _t_1;
    _t_1 = s[(tid + 1) % 128];
    out[tid] = _t_1;
}
"#
    );
    let t = common::translate_text(src).unwrap();
    assert_eq!(t.kernels[0].notes, vec![r#"`helper` is not defined in this file: its result is taken as arbitrary, and it may read and write what its pointer arguments point to"#.to_string()]);
}

/// A struct parameter becomes scalar and array parameters; references bind to the variable; a reassigned pointer keeps its offset in a local.
#[test]
fn struct_parameters_references_and_pointer_variables() {
    let src = r#"struct Range { int *data; int lo, hi; };
__device__ void bump(int &x) { x += 1; }
__global__ void k(Range r, int *out) {
    int i = r.lo + threadIdx.x;
    bump(i);
    int *p = out + blockIdx.x * 32;
    p += threadIdx.x;
    for (int j = r.lo; j < r.hi; j++) {
        if (r.data[j] < 0) continue;
        *p = r.data[j];
    }
    out[i] = r.hi;
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global r_data[], r_lo, r_hi, global out[]) {
    local i = r_lo + tid;
    i = i + 1;
    local p = bid * 32;
    p = p + tid;
    for (j = r_lo; j < r_hi; j = j + 1) {
        local _t;
        _t = r_data[j];
        if (_t < 0) {
            continue;
        }
        local _t_1;
        _t_1 = r_data[j];
        out[p] = _t_1;
    }
    out[i] = r_hi;
}
"#
    );
    let t = common::translate_text(src).unwrap();
    assert_eq!(t.kernels[0].notes, Vec::<String>::new());
}

/// `--alias`: the non-`__restrict__` pointer parameters with the same element size are
/// one array, each at its own symbolic offset.
#[test]
fn alias_option_merges_pointer_parameters() {
    let src = r#"__global__ void k(float *a, float *b, int *c, const float * __restrict__ r) {
    a[threadIdx.x] = b[threadIdx.x] + r[0];
    c[threadIdx.x] = 1;
}
"#;
    let opts = cuda::Options {
        alias: true,
        ..common::options()
    };
    let t = cuda::translate(&common::cuda_dir().join("a.cu"), src, &opts).unwrap();
    assert_eq!(
        kpl::print(&[t.kernels[0].kernel.clone()]),
        r#"kernel k(global a[], b_base, c_base, global r[]) {
    local _;
    _ = a[b_base + tid];
    _ = r[0];
    havoc _;
    a[tid] = _;
    a[c_base + tid] = 1;
}
"#
    );
}

/// Includes, object-like and function-like macros and conditionals; every statement's
/// span is in the file as written (a macro call stands for its expansion).
#[test]
fn preprocessing_keeps_spans_in_the_original_file() {
    let src = r#"#include "histogram_common.h"
#define IDX(a, b) ((a) * 16 + (b))
#define SYNC __syncthreads()
#if HISTOGRAM64_BIN_COUNT == 64 && defined(UMUL)
#define STEP 2
#else
#define STEP 1
#endif
#pragma once
__global__ void k(uint *a) {
    __shared__ uint s[256];
    s[IDX(threadIdx.y, threadIdx.x)] = a[UMUL(blockIdx.x, 256) + threadIdx.x];
    SYNC;
#pragma unroll
    for (int i = 0; i < 16; i += STEP) a[i] = s[IDX(i, threadIdx.x)];
}
"#;
    let t = common::translate_text(src).unwrap();
    let k = &t.kernels[0].kernel;
    assert_eq!(
        kpl::print(std::slice::from_ref(k)),
        "kernel k(global a[], shared s[]) {
    local _t;
    _t = a[bid * 256 + tid];
    s[tid.y * 16 + tid] = _t;
    barrier;
    for (i = 0; i < 16; i = i + 2) {
        local _t_1;
        _t_1 = s[i * 16 + tid];
        a[i] = _t_1;
    }
}
"
    );
    let line_text = |s: kpl::Span| &src[s.start..s.end];
    let stmts = k.stmts();
    // The store (line 12), the barrier written as a macro call (line 13), the loop (15).
    assert_eq!(stmts[2].span.line, 12);
    assert_eq!(
        line_text(stmts[2].span),
        "s[IDX(threadIdx.y, threadIdx.x)] = a[UMUL(blockIdx.x, 256) + threadIdx.x];"
    );
    assert_eq!((stmts[3].span.line, line_text(stmts[3].span)), (13, "SYNC;"));
    assert_eq!(stmts[4].span.line, 15);
    assert!(line_text(stmts[4].span).starts_with("for (int i = 0;"));
    // The read inside the macro call maps to the call.
    assert_eq!(line_text(stmts[6].span), "s[IDX(i, threadIdx.x)]");
}

/// `((i) + (j) * W)` parses as a cast of `+(j)` when the parser cannot know `i` is not a
/// type: such chains are re-read with C precedence.
#[test]
fn parenthesized_names_are_not_casts() {
    let src = "#define INDEX(i, j, w) ((i) + (j) * (w))
typedef int T;
__global__ void k(int *a, int n) {
    int i = threadIdx.x;
    a[INDEX(i, blockIdx.x, 32)] = (i) - 1;
    a[(n) * (i) & (n) - 1] = (T) - 1;
}
";
    assert_eq!(
        lower_text(src),
        // (`&(n)` looks like taking `n`'s address to the syntactic pre-scan, so `n` is
        // copied to a local: conservative.)
        "kernel k(global a[], n) {
    local n_1 = n;
    local i = tid;
    a[i + bid * 32] = i - 1;
    a[n_1 * i & n_1 - 1] = (-1);
}
"
    );
}

/// `__syncwarp()` and `__syncwarp(0xffffffff)` are warp barriers; a partial or unknown
/// mask synchronizes only some lanes and is lowered to nothing (no ordering: sound).
#[test]
fn syncwarp_with_a_full_mask_is_a_warp_barrier() {
    let src = r#"__global__ void k(int *a, unsigned mask) {
    a[threadIdx.x] = 1;
    __syncwarp();
    __syncwarp(0xffffffff);
    __syncwarp(mask);
    __syncwarp(0x0000ffff);
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[], mask) {
    a[tid] = 1;
    warp_barrier;
    warp_barrier;
}
"#
    );
}

/// Inline PTX that only computes in registers: inputs evaluated, outputs arbitrary (in
/// a loop too: the output is loop-carried). PTX that may touch memory or synchronize is
/// unsupported, never ignored.
#[test]
fn register_only_inline_asm_havocs_its_outputs() {
    let src = r#"__global__ void k(int *a) {
    unsigned lane = 0;
    for (int i = 0; i < 4; i++) {
        asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    }
    a[lane] = 1;
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[]) {
    local lane = 0;
    for (i = 0; i < 4; i = i + 1) {
        havoc lane;
    }
    a[lane] = 1;
}
"#
    );
    for code in [
        "ld.shared.u32 %0, [%1];",
        "st.global.u32 [%0], %1;",
        "bar.sync 0;",
        "atom.add.u32 %0, [%1], 1;",
    ] {
        let src = format!(
            "__global__ void k(int *a, unsigned p) {{\n    unsigned x;\n    asm volatile(\"{code}\" : \"=r\"(x) : \"r\"(p));\n    a[x] = 1;\n}}\n"
        );
        let e = common::translate_text(&src).expect_err(code);
        assert!(
            e.to_string()
                .contains("inline assembly that may access memory or synchronize"),
            "{code}: {e}"
        );
    }
}
