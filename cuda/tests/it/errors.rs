//! Bad input: every problem is a `CudaError` with its kind, the file, line and column,
//! the construct and help — never a panic.

use crate::common;

use cuda::ErrorKind;

fn error(src: &str) -> cuda::CudaError {
    match common::translate_text(src) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(e) => e,
    }
}

#[test]
fn syntax_errors_are_located() {
    let e = error("__global__ void k(int *a) {\n    int x = (a[0] + ;\n}\n");
    // At the start of the text the parser could not make sense of.
    assert_eq!((e.kind, e.line, e.col), (ErrorKind::Syntax, 2, 11));
    assert!(e.message.starts_with("syntax error"), "{e}");
    assert!(e.help.is_some());
    assert!(e.file.ends_with("snippet.cu"));
    // A missing token (the parser reads the function as a declaration with a brace
    // initializer, and misses the `;` after it).
    let e = error("__global__ void k(int *a) {\n    a[0] = 1\n}\n");
    assert_eq!((e.kind, e.line, e.col), (ErrorKind::Syntax, 3, 2));
    assert_eq!(e.message, "syntax error: missing `;`");
    // Errors in host code that no kernel uses do not matter.
    assert!(
        common::translate_text("void host() { int x = ; }\n__global__ void k(int *a) { a[0] = 1; }\n")
            .is_ok()
    );
}

/// Constructs the CUDA front end does not lower, each with the position and the words of
/// its `unsupported` error: (source, (line, column), part of the message).
const UNSUPPORTED: &[(&str, (u32, u32), &str)] = &[
    (
        "__global__ void k(int *a) {\n  l: a[0] = 1;\n  goto l;\n}\n",
        (3, 3),
        "`goto`",
    ),
    (
        "__device__ int f(int n) { return n ? f(n - 1) : 0; }\n__global__ void k(int *a) { a[0] = f(2); }\n",
        (1, 38),
        "recursive call of `f`",
    ),
    (
        "__global__ void k(int *a, int (*fp)(int)) {\n  a[0] = fp(1);\n}\n",
        (2, 10),
        "a call through a function pointer whose possible targets are not in this file",
    ),
    (
        "__global__ void k(int *a, short *b, int c) {\n  int *p = c ? a : (int *)b;\n  p[threadIdx.x] = 0;\n}\n",
        (2, 12),
        "one of two arrays",
    ),
    (
        "__global__ void k(int *a, short *b, int c) {\n  int *p = a;\n  if (c)\n    p = (int *)b;\n}\n",
        (4, 5),
        "different arrays",
    ),
    (
        "__global__ void k(float *a) {\n  float x = 0.0f, y = 1.0f;\n  float &r = threadIdx.x % 2 ? x : y;\n  r = 5.0f;\n  a[0] = x;\n}\n",
        (3, 14),
        "a reference bound to a conditional",
    ),
    (
        "__global__ void k(int **a) {\n  a[0][threadIdx.x] = 1;\n}\n",
        (2, 3),
        "a pointer whose target cannot be determined",
    ),
    (
        "__global__ void k(int *a) {\n  asm(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: \"r\"(0), \"l\"(a));\n}\n",
        (2, 3),
        "inline PTX `cp.async.ca.shared.global` (an asynchronous copy",
    ),
    (
        "__device__ void g(int *s, int i) {\n  for (int k = 0; k < 4; k++) {\n    clampIndex(i);\n    s[i] = k;\n  }\n}\n__global__ void k(int *a) { g(a, threadIdx.x); }\n",
        (3, 5),
        "a call of a function the file does not define that may change `i` inside a loop",
    ),
    // Fresh memory of the thread is modelled (`lower::alloc`); what would let another
    // thread reach it, or run code `new` hides, is not.
    (
        "__global__ void k(int *a) {\n  __shared__ int *buf;\n  if (threadIdx.x == 0) buf = (int *)malloc(256);\n  __syncthreads();\n  buf[threadIdx.x] = 1;\n}\n",
        (5, 3),
        "a pointer whose target cannot be determined",
    ),
    (
        "struct Node { int v; __device__ Node(int x) : v(x) { } };\n__global__ void k(int *a) {\n  Node *n = new Node(a[0]);\n}\n",
        (3, 13),
        "`new` of `Node`, whose constructor or destructor",
    ),
    (
        "__device__ int next[1];\nstruct Node { int id = next[0]++; };\n__global__ void k(int *a) {\n  Node *n = new Node;\n}\n",
        (4, 13),
        "or a member initializer or base class",
    ),
    (
        "struct Base { __device__ Base() { } };\nstruct Node : Base { int v; };\n__global__ void k(int *a) {\n  Node *n = new Node;\n}\n",
        (4, 13),
        "`new` of `Node`",
    ),
    (
        "struct Res { int *p; __device__ ~Res() { p[0] = 0; } };\n__global__ void k(Res *r) {\n  Res *x = new Res[2];\n  delete[] x;\n}\n",
        (3, 12),
        "`new` of `Res`",
    ),
    (
        "__global__ void k(int *a) {\n  int *p = new (a) int(3);\n}\n",
        (2, 12),
        "placement `new`",
    ),
    (
        "__global__ void k(int *a) {\n  int *p;\n  cudaMalloc(&p, 16);\n}\n",
        (3, 3),
        "the device runtime's `cudaMalloc`",
    ),
    // Tensor-core tiles autosync cannot size exactly (`lower/builtins/wmma.rs`).
    (
        "__global__ void k(float *c, bool t) {\n  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;\n  wmma::store_matrix_sync(c, acc, 16, t ? wmma::mem_col_major : wmma::mem_row_major);\n}\n",
        (3, 3),
        "a tensor-core tile whose shape, layout or element type",
    ),
    (
        "__global__ void k(const void *p) {\n  wmma::fragment<wmma::matrix_a, 8, 8, 32, wmma::experimental::precision::u4, wmma::row_major> f;\n  wmma::load_matrix_sync(f, p, 64);\n}\n",
        (3, 3),
        "a tensor-core tile whose shape, layout or element type",
    ),
    (
        "__global__ void k(const char *p) {\n  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;\n  wmma::load_matrix_sync(f, p, 16);\n}\n",
        (3, 3),
        "a tensor-core tile through a pointer to elements of another size",
    ),
    (
        "__global__ void child(int *a) { a[0] = 1; }\n__global__ void k(int *a) {\n  child<<<1, 1>>>(a);\n}\n",
        (3, 3),
        "launching a kernel from device code",
    ),
    (
        "int host_counter;\n__global__ void k(int *a) {\n  host_counter = 1;\n}\n",
        (3, 3),
        "host variable",
    ),
    (
        "surface<void, 2> surf;\n__global__ void k(int *a) {\n  surf2Dwrite(1, surf, 0);\n}\n",
        (3, 3),
        "`surf2Dwrite` with 3 arguments",
    ),
    (
        // The place returned depends on the path: writes through it cannot be followed.
        "__device__ int &pick(int *a, int *b, int c) {\n  if (c) return a[0];\n  return b[0];\n}\n__global__ void k(int *a, int *b) {\n  pick(a, b, threadIdx.x) = 1;\n}\n",
        (6, 3),
        "`pick` returns a reference from more than one `return`",
    ),
    (
        // A library call returning a reference: a copy would lose the write through `r`.
        "__global__ void k(int *a) {\n  int &r = lib_slot(a, threadIdx.x);\n  r = 1;\n}\n",
        (2, 12),
        "a reference bound to the result of a call whose target autosync does not know",
    ),
    (
        // The reference returned is one of two places.
        "struct V {\n  float *p, *q;\n  __device__ float &operator[](int i) { return i < 64 ? p[i] : q[i - 64]; }\n};\n__global__ void k(float *a, float *b) {\n  V v{a, b};\n  v[threadIdx.x] = 1.0f;\n}\n",
        (7, 3),
        "`operator[]` returns a reference to a place autosync does not follow",
    ),
    (
        // A struct operand and no operator autosync sees (a friend defined in the class).
        "struct Q {\n  int k;\n  friend __device__ bool operator==(const Q &a, const Q &b) { return a.k == b.k; }\n};\n__global__ void k(int *a) {\n  Q p{1}, q{2};\n  if (p == q) a[threadIdx.x] = 1;\n}\n",
        (7, 7),
        "`operator==` of a struct that no `operator==` of the file autosync sees takes",
    ),
    (
        // Two operators that may both take the operands.
        "template <class T> struct Acc { T *slot; };\n__device__ void operator+=(Acc<int> a, int v) { }\n__device__ void operator+=(Acc<float> a, float v) { *a.slot = v; }\n__global__ void k(float *s) {\n  Acc<float> a{s};\n  a += (int)threadIdx.x;\n}\n",
        (6, 3),
        "`operator+=` with several operators of the file that may take these operands",
    ),
    (
        "struct S { float v[]; };\n__global__ void k(S *a) {\n  S s = a[threadIdx.x];\n}\n",
        (3, 9),
        "array member has an unknown length",
    ),
    // Lambdas (`lower/call/lambda.rs`): a capture by copy holds the value at the
    // definition, which inlining at the call would not see.
    (
        "__global__ void k(float *a) {\n  float f = 2;\n  auto s = [=](float x) { return f * x; };\n  f = 3;\n  a[0] = s(1);\n}\n",
        (3, 13),
        "a lambda that captures by copy",
    ),
    (
        "__global__ void k(float *a) {\n  float f = 2;\n  auto s = [f](float x) { return f * x; };\n  a[0] = s(1);\n}\n",
        (3, 13),
        "a lambda that captures by copy",
    ),
    (
        "__global__ void k(float *a) {\n  auto s = [&](auto x) { return x; };\n  a[0] = s(1);\n}\n",
        (3, 10),
        "a generic lambda",
    ),
    (
        "__device__ float apply(float (*g)(float));\n__global__ void k(float *a) {\n  auto s = [](float x) { return x; };\n  a[0] = apply(s);\n}\n",
        (4, 16),
        "a lambda used other than by calling it",
    ),
    // `i` at the call is the loop's, not the `i` the lambda captured.
    (
        "__global__ void k(float *a) {\n  int i = 0;\n  auto s = [&]() { a[i] = 1; };\n  for (int i = 1; i < 4; i++)\n    s();\n}\n",
        (5, 5),
        "where `i` means something else",
    ),
    // A lambda, a function or a local type the body names, hidden at the call by a
    // lambda or a local type of the same name.
    (
        "__global__ void k(int *s) {\n  auto g = [&](int i) { s[0] = i; };\n  auto f = [&](int i) { g(i); };\n  {\n    auto g = [&](int i) { s[i] = i; };\n    f(threadIdx.x);\n  }\n}\n",
        (6, 5),
        "where `g` means something else",
    ),
    (
        "__device__ void h(int *s, int i) { s[0] = i; }\n__global__ void k(int *s) {\n  auto f = [&](int i) { h(s, i); };\n  {\n    auto h = [&](int *t, int i) { t[i] = i; };\n    f(threadIdx.x);\n  }\n}\n",
        (6, 5),
        "where `h` means something else",
    ),
    (
        "typedef int Elem;\n__global__ void k(int *s) {\n  auto f = [&](int i) { s[sizeof(Elem) == 4 ? 0 : i] = i; };\n  {\n    typedef char Elem;\n    f(threadIdx.x);\n  }\n}\n",
        (6, 5),
        "where `Elem` means something else",
    ),
    (
        "__global__ void k(float *a) {\n  a[0] = [](float x) { return x; }(1.0f);\n}\n",
        (2, 10),
        "lambda expressions",
    ),
];

#[test]
fn unsupported_constructs_say_what_and_where() {
    for (src, (line, col), what) in UNSUPPORTED {
        let e = error(src);
        assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
        assert!(e.message.contains(what), "{e}");
        assert_eq!((e.line, e.col), (*line, *col), "{e}");
        assert!(!e.construct.is_empty(), "{e}");
    }
}

/// What the lowering of asynchronous copies cannot follow is unsupported, never verified:
/// a copy in flight across a loop's iterations, at a jump, at the kernel's end; a split
/// barrier phase; the `__mbarrier` intrinsics; a group copy of an unknown group.
#[test]
fn asynchronous_copies_it_cannot_follow_are_unsupported() {
    let head = "namespace cg = cooperative_groups;\n";
    let cases: &[(&str, (u32, u32), &str)] = &[
        (
            // Three buffers: a copy is in flight two iterations after its call.
            "__global__ void k(const float *g, float *o, int n) {\n  __shared__ float t[3][64];\n  \
             auto b = cg::this_thread_block();\n  cg::memcpy_async(b, t[0], g, 256);\n  \
             for (int i = 1; i < n; i++) {\n    cg::memcpy_async(b, t[i % 3], g + i * 64, 256);\n    \
             cg::wait_prior<2>(b);\n    o[i] += t[(i - 2) % 3][threadIdx.x];\n    b.sync();\n  }\n  cg::wait(b);\n}\n",
            (6, 31),
            "a pipeline of more than two stages",
        ),
        (
            // The prefetch of the next tile is conditional: not followed across iterations.
            "__global__ void k(const float *g, float *o, int n) {\n  __shared__ float t[2][64];\n  \
             auto b = cg::this_thread_block();\n  cg::memcpy_async(b, t[0], g, 256);\n  \
             for (int i = 0; i < n; i++) {\n    if (i + 1 < n) cg::memcpy_async(b, t[(i + 1) % 2], g + i * 64, 256);\n    \
             cg::wait_prior<1>(b);\n    o[i] += t[i % 2][threadIdx.x];\n    b.sync();\n  }\n  cg::wait(b);\n}\n",
            (6, 31),
            "still in flight when the iteration ends",
        ),
        (
            // The copy is committed only in the next iteration, where it is the newest
            // batch: not carried (it would be completed too early).
            "__global__ void k(const int *g, int *o, int n) {\n  __shared__ int t[2][64];\n  int a = 0;\n  \
             for (int r = 0; r < n; ++r) {\n    __pipeline_commit();\n    __pipeline_wait_prior(1);\n    \
             __syncthreads();\n    a ^= t[(r + 1) % 2][63 - threadIdx.x];\n    __syncthreads();\n    \
             __pipeline_memcpy_async(&t[r % 2][threadIdx.x], &g[r * 64 + threadIdx.x], 4);\n  }\n  \
             __pipeline_commit();\n  __pipeline_wait_prior(0);\n  o[threadIdx.x] = a;\n}\n",
            (5, 31),
            "still in flight when the iteration ends",
        ),
        (
            // The buffer is declared in the body: the next attempt has no array for the
            // carried copy before the body makes it (no twin, never a crash).
            "__global__ void k(const float *g, float *o, int n) {\n  auto b = cg::this_thread_block();\n  \
             for (int i = 1; i < n; i++) {\n    __syncthreads();\n    __shared__ float t[2][64];\n    \
             cg::memcpy_async(b, t[i % 2], g + i * 64, 256);\n    cg::wait_prior<1>(b);\n    \
             o[i] += t[(i - 1) % 2][threadIdx.x];\n    b.sync();\n  }\n  cg::wait(b);\n}\n",
            (4, 31),
            "still in flight when the iteration ends",
        ),
        (
            "__global__ void k(const int *g, int *o) {\n  __shared__ int t[64];\n  \
             __pipeline_memcpy_async(&t[threadIdx.x], &g[threadIdx.x], 4);\n  __pipeline_commit();\n  \
             if (threadIdx.x > 10) return;\n  __pipeline_wait_prior(0);\n}\n",
            (6, 25),
            "`return` while an asynchronous copy may be in flight",
        ),
        (
            "__global__ void k(const int *g, int *o) {\n  __shared__ int t[64];\n  auto b = cg::this_thread_block();\n  \
             cg::memcpy_async(b, t, g, 256);\n  o[threadIdx.x] = 1;\n}\n",
            (2, 41),
            "in flight when the kernel ends",
        ),
        (
            "__global__ void k(const int *g, int *o) {\n  __shared__ int t[64];\n  \
             __shared__ cuda::barrier<cuda::thread_scope_block> bar;\n  if (threadIdx.x == 0) init(&bar, blockDim.x);\n  \
             __syncthreads();\n  auto tok = bar.arrive();\n  o[threadIdx.x] = t[threadIdx.x];\n  bar.wait(std::move(tok));\n}\n",
            (7, 14),
            "`arrive` of a `barrier<",
        ),
        (
            // Into a thread's variable (CUDA copies into shared memory): the source would
            // be read while the copy is in flight, which a variable does not follow.
            "__global__ void k(int *g, int *o) {\n  int x;\n  __pipeline_memcpy_async(&x, &g[threadIdx.x], 4);\n  \
             __pipeline_commit();\n  __pipeline_wait_prior(0);\n  o[threadIdx.x] = x;\n}\n",
            (4, 3),
            "an asynchronous copy into memory autosync cannot name",
        ),
        (
            "__global__ void k(unsigned long long *m) {\n  __mbarrier_arrive(m);\n}\n",
            (3, 3),
            "`__mbarrier_arrive` (a split-phase barrier operation)",
        ),
        (
            "__global__ void k(const int *g, int *o) {\n  __shared__ int t[64];\n  \
             auto c = cg::coalesced_threads();\n  cg::memcpy_async(c, t, g, 256);\n  cg::wait(c);\n}\n",
            (5, 3),
            "a group whose thread numbering autosync does not know",
        ),
    ];
    for (src, (line, col), what) in cases {
        let src = format!("{head}{src}");
        let e = error(&src);
        assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
        assert!(e.message.contains(what), "{e}");
        assert_eq!((e.line, e.col), (*line, *col), "{e}");
    }
}

#[test]
fn preprocessor_errors() {
    // (A header that is not found and `#error` are notes: `files.rs`.)
    let e = error("\n#if FOO > 1\n__global__ void k(int *a) {}\n");
    assert_eq!((e.kind, e.line), (ErrorKind::Preprocessor, 2));
    let e = error("#define F(a, b) a + b\n__global__ void k(int *a) { a[0] = F(1); }\n");
    assert_eq!((e.kind, e.line, e.col), (ErrorKind::Preprocessor, 2, 36));
    let e = error(
        "#define R(x) R(x) + R(x)\n#define S(x) R(R(R(R(x))))\n__global__ void k(int *a) { a[0] = S(S(S(S(S(1))))); }\n",
    );
    assert_eq!(e.kind, ErrorKind::Preprocessor, "{e}");
}

#[test]
fn errors_in_headers_name_the_header() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.h"), "#define OK 1\n#if\n#endif\n").unwrap();
    let main = dir.path().join("k.cu");
    let e = cuda::translate(
        &main,
        "#include \"bad.h\"\n__global__ void k(int *a) {}\n",
        &Default::default(),
    )
    .unwrap_err();
    assert!(e.file.ends_with("bad.h"), "{e}");
    assert_eq!(e.line, 2);
}

#[test]
fn writes_to_constant_memory_are_invalid_programs() {
    let e = error("__constant__ int c[16];\n__global__ void k(int *a) {\n    c[threadIdx.x] = a[0];\n}\n");
    assert_eq!((e.kind, e.line, e.col), (ErrorKind::Unsupported, 3, 5));
    assert!(e.message.contains("`__constant__` memory"), "{e}");
    // Reading it is fine.
    assert!(common::translate_text("__constant__ int c[16];\n__global__ void k(int *a) {\n    a[threadIdx.x] = c[threadIdx.x % 16];\n}\n").is_ok());
}
