//! Regressions for constructs of the GPUVerify benchmark style that the corpus in
//! `tests/corpus/` found the front end mishandling, one test per fix.

use crate::common;

use crate::common::lower_text;

/// Unions are one opaque cell that every member names: reads of any member are
/// arbitrary (a write through another member may have changed it), and all accesses to a
/// union in memory touch the same cell. Anonymous struct members join the enclosing struct.
#[test]
fn unions_are_one_opaque_cell_and_anonymous_structs_are_flattened() {
    let src = r#"union Word { unsigned int u; unsigned char b[4]; };
struct Node { int key; union { int child[2]; struct { int left, right; }; }; };
__global__ void k(int *a, Node *nodes) {
    __shared__ Word w[64];
    __shared__ Node sn[64];
    Word x;
    x.u = threadIdx.x;
    a[x.b[0]] = 1;
    w[threadIdx.x].u = threadIdx.x;
    w[threadIdx.x].b[1] = 3;
    sn[threadIdx.x].key = 1;
    sn[threadIdx.x].left = 2;
    int r = sn[(threadIdx.x + 1) % 64].child[1];
    a[threadIdx.x + 64] = r + nodes[threadIdx.x].right;
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[], global nodes[], shared w[], shared sn[]) {
    local _;
    local _i;
    a[_i] = 1;
    havoc _;
    w[tid] = _;
    havoc _;
    w[tid] = _;
    sn[tid * 2] = 1;
    havoc _;
    sn[tid * 2 + 1] = _;
    local r;
    _ = sn[(tid + 1) % 64 * 2 + 1];
    havoc r;
    _ = nodes[tid * 2 + 1];
    havoc _;
    a[tid + 64] = _;
}
"#
    );
}

/// `-DNAME=VALUE` flags in the GPUVerify header comment are macros of the file; `-D`
/// options of the caller override them.
#[test]
fn header_comment_defines_are_macros() {
    let src = "//pass\n//--blockDim=64 --gridDim=1 -DWIDTH=64 -DUSE_SHARED\n#ifndef USE_SHARED\n#error no\n#endif\n\
               __global__ void k(int *a) { a[threadIdx.x] = WIDTH; }\n";
    assert_eq!(lower_text(src), "kernel k(global a[]) {\n    a[tid] = 64;\n}\n");
    let opts = cuda::Options {
        defines: vec![("WIDTH".into(), "8".into())],
        ..Default::default()
    };
    let ks = cuda::parse(std::path::Path::new("k.cu"), src, &opts).expect("lowers");
    assert_eq!(kpl::print(&ks), "kernel k(global a[]) {\n    a[tid] = 8;\n}\n");
}

/// A pointer that chooses between arrays (a ternary, or ping-pong buffers swapped in a
/// loop) makes those arrays parts of one KPL array: shared arrays of known size one after
/// the other, parameters (of unknown size) 2^40 cells apart, more than any allocation.
#[test]
fn pointers_into_several_arrays_merge_them() {
    let src = r#"__global__ void k(float *a, float *b, int flag) {
    __shared__ float s1[64], s2[64];
    float *src = flag ? s1 : s2;
    float *ping = s1, *pong = s2;
    s1[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    for (int it = 0; it < 4; it++) {
        pong[threadIdx.x] = ping[(threadIdx.x + 1) % 64];
        __syncthreads();
        float *t = ping; ping = pong; pong = t;
    }
    float *g = flag ? a : b;
    g[blockIdx.x * 64 + threadIdx.x] = src[threadIdx.x];
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[], i32 flag, shared s1[]) {
    local _p;
    if (flag) {
        _p = 0;
    } else {
        _p = 64;
    }
    local src = _p;
    local ping = 0;
    local pong = 64;
    local _f;
    _f = a[tid];
    s1[tid] = _f;
    barrier;
    for (it = 0; it < 4; it = it + 1) {
        local _f_1;
        _f_1 = s1[ping + (tid + 1) % 64];
        s1[pong + tid] = _f_1;
        barrier;
        local t = ping;
        ping = pong;
        pong = t;
    }
    local _p_1;
    if (flag) {
        _p_1 = 0;
    } else {
        _p_1 = 1099511627776;
    }
    local g = _p_1;
    local _f_2;
    _f_2 = s1[src + tid];
    a[g + (bid * 64 + tid)] = _f_2;
}
"#
    );
    // Arrays of different element sizes stay apart: still unsupported.
    let e = common::translate_text(
        "__global__ void k(int *a, short *b, int c) {\n  int *p = c ? a : (int *)b;\n  p[threadIdx.x] = 0;\n}\n",
    )
    .unwrap_err();
    assert!(e.message.contains("one of two arrays"), "{e}");
}

/// Structs defined inside a function body (named, anonymous, behind a local `typedef`)
/// are known types: their integer fields are tracked and pointer fields point somewhere.
#[test]
fn local_struct_definitions_are_types() {
    let src = r#"__global__ void k(float *a, int *b) {
    struct Pair { int i; float *p; };
    typedef struct { int lo, hi; } Range;
    struct { float *p; } holder;
    holder.p = a;
    Pair pr;
    pr.i = threadIdx.x;
    pr.p = a;
    Range r;
    r.lo = threadIdx.x * 2;
    r.hi = r.lo + 1;
    pr.p[pr.i] = holder.p[0];
    b[r.hi] = 1;
}
"#;
    let text = lower_text(src);
    assert!(text.contains("a[pr_p + pr_i] = _f;"), "{text}");
    assert!(text.contains("_f = a[holder_p];"), "{text}");
    assert!(text.contains("b[r_hi] = 1;"), "{text}");
}

/// A struct passed by value to the kernel may hold an array: each thread reads its own
/// copy (arbitrary values), as with a private array.
#[test]
fn array_fields_of_struct_parameters_are_private_copies() {
    let src = r#"struct Coefs { float c[16]; int n; };
__global__ void k(float *out, Coefs co) {
    Coefs local = co;
    local.c[1] = 2.0f;
    out[threadIdx.x * co.n] = co.c[threadIdx.x % 16] + local.c[1];
}
"#;
    let text = lower_text(src);
    assert!(text.starts_with("kernel k(global out[], i32 co_n) {"), "{text}");
    assert!(text.contains("out[tid * co_n] = _;"), "{text}");
}

/// `#include <header.h>` finds a header next to the file when no `-I` folder has it;
/// well-known system headers are still skipped even when a file of that name is there
/// (GPUVerify ships its own `cuda.h`).
#[test]
fn angle_includes_fall_back_to_the_files_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("localdefs.h"), "#define LOCAL_N 7\n").unwrap();
    std::fs::write(dir.path().join("cuda.h"), "#error not this one\n").unwrap();
    let src = "#include <cuda.h>\n#include <localdefs.h>\n__global__ void k(int *a) { a[threadIdx.x] = LOCAL_N; }\n";
    let ks = cuda::parse(&dir.path().join("k.cu"), src, &Default::default()).expect("lowers");
    assert_eq!(kpl::print(&ks), "kernel k(global a[]) {\n    a[tid] = 7;\n}\n");
}

/// An explicit specialization of a template kernel is a kernel of its own, and the
/// primary template is not lowered again for its arguments (even when launched with them).
#[test]
fn explicit_kernel_specializations_are_kernels() {
    let src = r#"template <typename T> __global__ void fill(T *a, int v) { a[threadIdx.x] = v; }
template <> __global__ void fill<float>(float *a, int v) { a[threadIdx.x + 1] = v; }
template __global__ void fill<int>(int *, int);
void host(float *d) { fill<float><<<1, 32>>>(d, 3); }
"#;
    let ks = common::kernels(src);
    let names: Vec<&str> = ks.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["fill<int>", "fill<float>"]);
    assert!(
        kpl::print(&ks[1..]).contains("a[tid + 1] = @cvt_i32_f32(v);"),
        "{}",
        kpl::print(&ks)
    );
}

/// `case X: { ...; break; }` ends with its `break` like `case X: ...; break;`: the switch
/// is an if chain, not a one-trip `while (1)` loop (which the verifier may think runs
/// twice, reporting races across its "iterations").
#[test]
fn switch_cases_in_braces_are_an_if_chain() {
    let src = r#"__global__ void k(int *a, int mode) {
    __shared__ int s[64];
    switch (mode) {
    case 0:
        s[threadIdx.x] = 1;
        break;
    case 1: {
        int j = threadIdx.x + 1;
        __syncthreads();
        s[threadIdx.x] = j;
        break;
    }
    default:
        __syncthreads();
    }
    a[threadIdx.x] = s[threadIdx.x];
}
"#;
    let text = lower_text(src);
    assert!(!text.contains("while"), "{text}");
    assert!(text.contains("if (mode == 1) {"), "{text}");
}

/// A switch with fallthrough whose `break`s all end their cases is a flagged if chain:
/// no one-trip loop, and `continue` inside it goes to the enclosing loop.
#[test]
fn fallthrough_switches_without_inner_breaks_are_a_flagged_chain() {
    let src = r#"__global__ void k(int *a, int mode) {
    for (int r = 0; r < 2; r++) {
        switch (mode) {
        case 1:
            a[threadIdx.x] = 1;
        case 2:
            a[threadIdx.x] += 2;
            break;
        case 3:
            continue;
        default:
            a[threadIdx.x] = 0;
        }
    }
}
"#;
    assert_eq!(
        lower_text(src),
        r#"kernel k(global a[], i32 mode) {
    for (r = 0; r < 2; r = r + 1) {
        local _m = 0;
        if (_m || mode == 1) {
            _m = 1;
            a[tid] = 1;
        }
        if (_m || mode == 2) {
            _m = 1;
            local _t;
            _t = i32(a[tid]);
            a[tid] = _t + 2;
            _m = 0;
        }
        if (_m || mode == 3) {
            _m = 1;
            continue;
        }
        if (_m || mode != 1 && mode != 2 && mode != 3) {
            _m = 1;
            a[tid] = 0;
        }
    }
}
"#
    );
}
