//! Lowering of CUDA constructs to KPL: the exact kernel `kpl::print` shows for small
//! snippets, one construct (family) per test, as `insta` snapshots in
//! `cuda/tests/snapshots/it__lower__<test>.snap` (`INSTA_UPDATE=always` or `cargo insta
//! review` to accept a change; review the diff of the `.snap` file).

use crate::common;

use crate::common::{assert_snapshot, lower_text};

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
    assert_snapshot!(lower_text(src));
}

/// Floating-point values are terms (`lower::float`): constants are bit patterns, reads go
/// to a local of their own, arithmetic is a function of its place (`@f32_mul_1`),
/// comparisons and conversions one function each, and `x += c` reads, adds and stores.
#[test]
fn floats_are_terms_of_uninterpreted_functions() {
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
    assert_snapshot!(lower_text(src));
}

/// Floating-point constants are folded to their bit patterns as C rounds them; each
/// arithmetic place has functions of its own, comparisons, conversions and math
/// functions one per name and argument types (`__expf` is not `expf`); `clock()` and
/// shuffles stay each thread's own unknowns.
#[test]
fn float_terms_fold_constants_and_name_operations_by_place() {
    let src = r#"__global__ void k(float *a, double *d, int *c, float alpha) {
    a[0] = 0.5;
    a[1] = -1.5f;
    a[2] = (float)3;
    c[0] = (int)2.7f;
    d[0] = 0.1f;
    float x = a[threadIdx.x];
    a[3] = x * alpha;
    a[4] = x * alpha;
    a[5] = expf(x);
    a[6] = __expf(x);
    c[1] = x < alpha;
    c[2] = (int)x;
    a[7] = (float)clock();
    a[8] = __shfl_xor_sync(0xffffffff, x, 1);
}
"#;
    let text = common::lower_text(src);
    let has = |s: &str| assert!(text.contains(s), "`{s}` in\n{text}");
    has("a[0] = 1056964608;");
    has("a[1] = 3217031168;");
    has("a[2] = 1077936128;");
    has("c[0] = 2;");
    // `0.1f` widened exactly: the double nearest the float, not the double nearest 0.1.
    has(&format!("d[0] = {};", f64::from(0.1f32).to_bits() as i64));
    has("a[3] = @f32_mul_1(x, @arg_alpha());");
    has("a[4] = @f32_mul_2(x, @arg_alpha());");
    has("a[5] = @expf_f32(x);");
    has("a[6] = @__expf_f32(x);");
    has("c[1] = @f32_lt(x, @arg_alpha()) != 0;");
    has("c[2] = i32(@cvt_f32_i32(x));");
    assert!(!text.contains("clock"), "{text}");
    assert!(!text.contains("shfl"), "{text}");
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
    assert_snapshot!(lower_text(src));
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
    assert_snapshot!(lower_text(src));
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
    assert_snapshot!(lower_text(src));
}

/// A forward `goto` sets a flag: the statements it skips are guarded by the flag up to the label (where it is cleared), loops it leaves end with `break` and `if (flag) break;`; a `do { } while (0)` that holds one stays a loop.
#[test]
fn forward_goto_skips_and_leaves_loops() {
    let src = r#"__global__ void k(int *out, const int *in, int n) {
    int i = threadIdx.x;
    int r = -1;
    if (i >= n) goto done;
    for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++) {
            if (in[a * n + b] == i) { r = a; goto done; }
        }
        r = -2;
    }
    do {
        if (r < 0) goto skip;
        out[i + n] = r;
    skip:
        ;
    } while (0);
    r += 1;
done:
    out[i] = r;
}
"#;
    assert_snapshot!(lower_text(src));
}

/// A backward `goto` (a loop made of a label) stays unsupported, with a clear message.
#[test]
fn backward_goto_is_unsupported() {
    let src = r#"__global__ void k(int *out) {
    int i = 0;
again:
    out[threadIdx.x] = i;
    if (++i < 4) goto again;
}
"#;
    let msg = match common::translate_text(src) {
        Ok(t) => t.failed[0].error.to_string(),
        Err(e) => e.to_string(),
    };
    assert!(msg.contains("unsupported: a backward `goto`"), "{msg}");
}

/// `memcpy`/`memset` loop over every cell of their byte range (whole cells, arbitrary values, `0` for a zero `memset`); `memcpy` into a local struct changes the local; `printf` has no memory effect.
#[test]
fn memcpy_and_memset_access_their_range() {
    let src = r#"struct P { float x, y, z; };
__global__ void k(float *out, const float *in, P *ps, char *bytes, int n) {
    __shared__ float s[256];
    int i = threadIdx.x;
    memcpy(&s[i * 4], &in[i * 4], 4 * sizeof(float));
    memset(bytes + i * 3, 0, 3);
    memset(out + i * n, 1, n * sizeof(float));
    P local;
    memcpy(&local, &ps[i], sizeof(P));
    printf("%f %p\n", local.x, s);
}
"#;
    assert_snapshot!(lower_text(src));
}

/// A pointer in `__device__`/`__constant__` memory that device code never assigns points to a global array of its own.
#[test]
fn device_pointer_variables_are_global_arrays() {
    let src = r#"__device__ float *buf;
__constant__ int *lookup;
__global__ void k(const float *x) {
    int i = threadIdx.x;
    buf[i] = x[lookup[i]];
}
"#;
    assert_snapshot!(lower_text(src));
}

/// A derived struct has the fields of its base first, and calls the base's methods; an array of arrays in a struct passed by value is private (its rows too).
#[test]
fn base_classes_and_array_members() {
    let src = r#"struct Base { int n; __device__ int get() const { return n; } };
struct Derived : public Base { int m; };
struct Q { int p[8][64]; };
__global__ void k(int *out, Derived d, Q q) {
    Derived e;
    e.n = threadIdx.x;
    e.m = d.m;
    out[e.get()] = d.get() + e.m + q.p[4][threadIdx.x];
}
"#;
    assert_snapshot!(lower_text(src));
}

/// Misreadings of the parser repaired with parentheses: a `<` comparison taken for a template argument list (in a `do`/`while` condition, and as a "call"), an assignment as the first operand of a comma expression; every access of the comma operands, in order.
#[test]
fn comparisons_and_comma_assignments_the_parser_misreads() {
    let src = r#"__global__ void k(int *s, int *y, int n) {
    int t = threadIdx.x;
    int i = 0, j = 0;
    do {
        i++;
    } while (i < n && s[(t + 1) % 8] >= 0);
    if (t < n && s[t] > (i)) i = 2;
    y[(j = t + 1, t)] = i;
    y[t + 64] = (j = 3, s[j]);
}
"#;
    assert_snapshot!(lower_text(src));
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
    assert_snapshot!(lower_text(src));
}

/// `__requires` over parameters and launch sizes is a precondition, `__assume` an assumption; `__invariant`, `__global_invariant` are `invariant` statements (hints the verifier proves before use: outside a loop head, never used), `__assert` is ignored.
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
    assert_snapshot!(lower_text(src));
}

/// GPUVerify's two-thread preconditions: `__other_int`, `__implies`, `__uniform_int`,
/// `__distinct_int` and `__add_noovfl` are exact; a `__requires` that reads memory or names
/// the other thread is an `assume` at the top with its reads before it (`a[__other_int(i)]`
/// read as `other(a[i])`); a read of an array the kernel writes becomes `havoc`, an index
/// mixing both threads' values too; `__global_requires` and `__ensures` are ignored.
#[test]
fn gpuverify_two_thread_preconditions() {
    let src = r#"//--blockDim=64 --gridDim=8
__global__ void k(const int *scan, const int *occ, const int *perm, int *out, unsigned base) {
    __requires(__implies(threadIdx.x < __other_int(threadIdx.x),
                         scan[threadIdx.x] + occ[threadIdx.x] <= scan[__other_int(threadIdx.x)]));
    __requires(__uniform_int(occ[0]) && __distinct_int(perm[threadIdx.x]));
    __requires(__add_noovfl(base, threadIdx.x));
    __requires(out[threadIdx.x] == 0);
    __requires(scan[threadIdx.x + __other_int(threadIdx.x)] > 0);
    __global_requires(out[0] == 0);
    __ensures(out[0] == 0);
    out[scan[threadIdx.x]] = perm[threadIdx.x] + base;
}
"#;
    assert_snapshot!(lower_text(src));
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
    assert_snapshot!(lower_text(src));
}

/// Distinct pointer parameters are distinct arrays (noted); `__restrict__` ones are not in the note.
#[test]
fn distinct_pointer_parameters_and_the_alias_note() {
    let src = r#"__global__ void k(float *a, float *b, int *c, const float * __restrict__ r) {
    a[threadIdx.x] = b[threadIdx.x] + r[0];
    c[threadIdx.x] = 1;
}
"#;
    assert_snapshot!(lower_text(src));
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
    assert_snapshot!(lower_text(src));
    let t = common::translate_text(src).unwrap();
    assert_eq!(t.kernels[0].notes, vec![r#"`helper` is not defined in this file: its result is taken as arbitrary, and it may read and write everything its arguments reach (what pointers point to, arguments it may take by reference, the object of a method)"#.to_string()]);
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
    assert_snapshot!(lower_text(src));
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
    assert_snapshot!(kpl::print(&[t.kernels[0].kernel.clone()]));
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
    assert_snapshot!(kpl::print(std::slice::from_ref(k)));
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
    // (`&(n)` looks like taking `n`'s address to the syntactic pre-scan, so `n` is
    // copied to a local: conservative.)
    assert_snapshot!(lower_text(src));
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
    assert_snapshot!(lower_text(src));
}

/// Inline PTX that only computes in registers: inputs evaluated, outputs arbitrary (in
/// a loop too: the output is loop-carried). PTX that touches memory or synchronizes is
/// modelled instruction by instruction (`lower::ptx`), or unsupported with its opcode
/// named, never ignored.
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
    assert_snapshot!(lower_text(src));
    for (code, opcode) in [
        (
            "cp.async.ca.shared.global [%0], [%1], 4;",
            "cp.async.ca.shared.global",
        ),
        (
            "mbarrier.arrive.shared.b64 %0, [%1];",
            "mbarrier.arrive.shared.b64",
        ),
        ("bar.arrive 1, 64;", "bar.arrive"),
        ("frobnicate.u32 %0, %1;", "frobnicate.u32"),
        ("@p exit;", "exit"),
    ] {
        let src = format!(
            "__global__ void k(int *a, unsigned p) {{\n    unsigned x;\n    asm volatile(\"{code}\" : \"=r\"(x) : \"r\"(p));\n    a[x] = 1;\n}}\n"
        );
        let e = common::translate_text(&src).expect_err(code);
        assert!(
            e.to_string().contains(&format!("inline PTX `{opcode}`")),
            "{code}: {e}"
        );
    }
}

/// Inline PTX that touches memory: a sized load or store through a pointer operand is
/// an access of exactly its cells (at the displacement); an integer address, a
/// collective load (`ldmatrix`) or an atomic touches some element of every array the
/// address may point into; `bar.sync 0` is a barrier, a full-mask `bar.warp.sync` a
/// warp barrier; fences vanish.
#[test]
fn memory_inline_asm_is_modelled() {
    let src = r#"__global__ void k(float *g, unsigned addr) {
    __shared__ float s[64];
    __shared__ unsigned short h[256];
    unsigned t = threadIdx.x;
    float v;
    asm volatile("ld.shared.f32 %0, [%1+4];" : "=f"(v) : "l"(&s[t]));
    asm volatile("st.global.v2.f32 [%0], {%1, %1};" :: "l"(&g[2 * t]), "f"(v) : "memory");
    asm volatile("bar.sync 0;" ::: "memory");
    unsigned r;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(addr));
    asm volatile("red.global.add.u32 [%0], 1;" :: "l"(g));
    asm volatile("fence.acq_rel.gpu;\n\tbar.warp.sync %0;" :: "r"(0xffffffff));
    h[t] = r;
}
"#;
    assert_snapshot!(lower_text(src));
}

/// A template kernel the file never instantiates: `int` for its type parameter, its
/// non-type parameters scalar parameters of their own types (`int` may be negative,
/// `bool` is 0 or 1), the same in every thread; the note says so.
#[test]
fn open_template_kernels_use_int_and_typed_symbolic_values() {
    let src = r#"template <typename T, int SHIFT, bool WIDE>
__global__ void k(T *out) {
    __shared__ T s[64];
    s[threadIdx.x] = (T)1;
    if (WIDE) out[threadIdx.x + SHIFT] = s[threadIdx.x];
}
"#;
    let t = common::translate_text(src).expect("lowers");
    let l = &t.kernels[0];
    assert!(
        l.notes.iter().any(|n| n.contains("checked with `int` for `T`")
            && n.contains(
                "`SHIFT`, `WIDE` symbolic (any value of the parameter's type, the same in every thread)"
            )),
        "{:?}",
        l.notes
    );
    assert_snapshot!(kpl::print(std::slice::from_ref(&l.kernel)));
}

/// `template <> __device__ ... f<double>(...)` parses, and a call of `f<T>` uses the
/// specialization exactly when `T` is `double`.
#[test]
fn device_function_specializations_are_used_for_their_instantiation() {
    let src = r#"template <typename T> __device__ int slot(int t) { return t; }
template <> __device__ int slot<double>(int t) { return 2 * t; }
template <typename T> __global__ void k(T *a) { a[slot<T>(threadIdx.x)] = 0; }
template __global__ void k<float>(float *);
template __global__ void k<double>(double *);
"#;
    assert_snapshot!(lower_text(src));
}

/// Calls through function pointers: a known constant target is inlined; an unknown one
/// (a table element, a `__device__` pointer) is a choice among the functions whose
/// address the file takes, each under the condition that the pointer names it.
#[test]
fn function_pointer_calls_call_every_possible_target() {
    let src = r#"__device__ int own(int t) { return t; }
__device__ int next(int t) { return t + 1; }
typedef int (*pick_t)(int);
__device__ pick_t d_pick = own;
__device__ void put(int *a, int (*f)(int)) { a[f(threadIdx.x)] = 1; }
__global__ void k(int *a, int which) {
    pick_t table[2] = {own, next};
    put(a, &next);
    pick_t p = which ? own : next;
    a[p(threadIdx.x)] = 2;
    a[table[which](threadIdx.x)] = 3;
    a[(*d_pick)(threadIdx.x)] = 4;
}
"#;
    assert_snapshot!(lower_text(src));
}

/// A call through a function pointer with no possible target in the file stays an error.
#[test]
fn function_pointer_without_known_targets_is_an_error() {
    let src = r#"__global__ void k(int *a, int (*f)(int)) { a[f(threadIdx.x)] = 1; }
"#;
    let e = common::translate_text(src).expect_err("no targets");
    assert!(
        e.to_string()
            .contains("function pointer whose possible targets are not in this file"),
        "{e}"
    );
}

/// Cooperative groups: a block's sync is a barrier (every spelling); a tile of 32 is a
/// warp barrier; a tile of 8 or a `thread_group` of unknown size synchronizes nothing;
/// a grid sync is a block barrier that `--strip` keeps (not the statement's own).
#[test]
fn cooperative_group_syncs_by_group_kind() {
    let src = r#"#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int *a) {
    cg::thread_block b = cg::this_thread_block();
    b.sync();
    cg::sync(b);
    cg::this_thread_block().sync();
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
    w.sync();
    auto t8 = cg::tiled_partition<8>(b);
    t8.sync();
    cg::thread_group g = cg::tiled_partition(b, 4);
    g.sync();
    cg::this_grid().sync();
    a[threadIdx.x] = 0;
}
"#;
    assert_snapshot!(lower_text(src));
    let opts = cuda::Options {
        launch: kpl::Launch {
            warp_size: Some(64),
            ..kpl::Launch::default()
        },
        ..common::options()
    };
    let t = cuda::translate(&common::cuda_dir().join("w.cu"), src, &opts).expect("lowers");
    assert!(
        !kpl::print(&[t.kernels[0].kernel.clone()]).contains("warp_barrier"),
        "a tile of 32 is not a warp of 64"
    );
}

#[test]
fn every_spelling_of_a_grid_sync_is_a_grid_barrier() {
    let src = r#"#include <cooperative_groups.h>
namespace cg = cooperative_groups;
using namespace cooperative_groups;
__global__ void k(int *a) {
    cg::grid_group grid = cg::this_grid();
    a[threadIdx.x] = 1;
    grid.sync();
    a[threadIdx.x] = 2;
    cg::sync(grid);
    a[threadIdx.x] = 3;
    cooperative_groups::this_grid().sync();
    a[threadIdx.x] = 4;
    grid_group g = this_grid();
    g.sync();
    a[threadIdx.x] = 5;
}
"#;
    let text = lower_text(src);
    assert_eq!(text.matches("grid_barrier;").count(), 4, "{text}");
    assert!(!text.contains("    barrier;"), "{text}");
    // Each is the statement's own: `fix --cooperative --strip` may move it.
    let t = cuda::translate(&common::cuda_dir().join("g.cu"), src, &common::options()).expect("lowers");
    let k = &t.kernels[0].kernel;
    let grids: Vec<_> = k
        .stmts()
        .into_iter()
        .filter(|s| s.kind.is_grid_barrier())
        .collect();
    assert!(grids.iter().all(|s| s.is_movable_grid_barrier()), "{grids:?}");
    assert_eq!(
        grids.iter().map(|s| s.span.line).collect::<Vec<_>>(),
        [7, 9, 11, 14]
    );
}

/// Surface writes and reads are accesses of one byte-addressed `surface` array at
/// `x + 2^20 * (y + 2^20 * z)`, one cell per byte of the texel.
#[test]
fn surface_accesses_are_accesses_of_the_surface_array() {
    let src = r#"__global__ void k(cudaSurfaceObject_t s, cudaSurfaceObject_t v) {
    int x = threadIdx.x, y = blockIdx.x;
    surf1Dwrite((short)1, s, x * 2);
    surf2Dwrite(1.0f, s, x * 4, y);
    char c;
    surf2Dread(&c, s, x, y);
    char d = surf3Dread<char>(v, x, y, 3);
}
"#;
    assert_snapshot!(lower_text(src));
}

/// A pointer parameter compared with null (or tested as a truth) is one unknown truth for
/// the launch (`_u`), and the other operand of `&&`/`||` stays exact: only thread 0 may
/// write `mean`; a float test is a per-thread unknown (`_c`) beside an exact `tid < 2`.
#[test]
fn pointer_null_tests_are_launch_uniform_and_keep_the_other_operand() {
    let src = r#"__global__ void k(float *mean, int *count, const float *inp) {
    float s = inp[threadIdx.x];
    if (threadIdx.x == 0 && mean != nullptr) mean[blockIdx.x] = s;
    if (count || threadIdx.x == 0) count[blockIdx.x] = 1;
    if (threadIdx.x < 2 && s > 0.5f) count[threadIdx.x] = 2;
    float *dst = mean ? mean : count == NULL ? nullptr : mean;
}
"#;
    assert_snapshot!(lower_text(src));
}
