// A small CUDA shim for `g++ -fsyntax-only -x c++ -include tests/cuda_shim.h`: just
// enough of CUDA's declarations (qualifiers, built-in variables, vector types,
// intrinsics, atomics, cooperative groups, cuRAND, surfaces and textures, GPUVerify's
// annotations, the host runtime calls of launches: cudaMalloc, cudaLaunchKernel,
// cudaLaunchCooperativeKernel, cudaLaunchKernelEx) that a .cu file of the corpus
// parses and type-checks as C++. It checks that what `autosync fix` writes is still
// a program, not what it computes: every function here is a declaration or a trivial
// definition. Used by tests/compile.rs;
// `#include <cuda_runtime.h>` and friends resolve to the empty headers in
// tests/cuda_shim/ (kernel launches `k<<<g, b>>>(...)` are rewritten to `k(...)` by the
// test before compiling, the one thing a header cannot do).
#pragma once

#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// ---- qualifiers ------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __managed__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __builtin_align__(n) alignas(n)
#define __CUDACC__ 1
#define __CUDA_ARCH__ 700
#define CUDART_PI_F 3.141592654f

// ---- vector types ----------------------------------------------------------------
#define AUTOSYNC_VEC(T, N)                                                                 \
    struct N##1 { T x; };                                                                  \
    struct N##2 { T x, y; };                                                               \
    struct N##3 { T x, y, z; };                                                            \
    struct __attribute__((aligned(4 * sizeof(T)))) N##4 { T x, y, z, w; };                \
    inline N##1 make_##N##1(T x) { return N##1{x}; }                                       \
    inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                               \
    inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                       \
    inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
AUTOSYNC_VEC(float, float)
AUTOSYNC_VEC(double, double)
AUTOSYNC_VEC(int, int)
AUTOSYNC_VEC(unsigned int, uint)
AUTOSYNC_VEC(signed char, char)
AUTOSYNC_VEC(unsigned char, uchar)
AUTOSYNC_VEC(short, short)
AUTOSYNC_VEC(unsigned short, ushort)
AUTOSYNC_VEC(long, long)
AUTOSYNC_VEC(unsigned long, ulong)
AUTOSYNC_VEC(long long, longlong)
AUTOSYNC_VEC(unsigned long long, ulonglong)
#undef AUTOSYNC_VEC

struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1) : x(x), y(y), z(z) {}
    dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    operator uint3() const { return uint3{x, y, z}; }
};

// The vector arithmetic of cutil_math.h / helper_math.h.
#define AUTOSYNC_OPS(V, S)                                                                  \
    V operator+(V, V); V operator-(V, V); V operator*(V, V); V operator/(V, V);             \
    V operator*(V, S); V operator*(S, V); V operator/(V, S); V operator+(V, S);             \
    V operator-(V, S); V operator-(V);                                                     \
    V &operator+=(V &, V); V &operator-=(V &, V); V &operator*=(V &, V);                   \
    V &operator*=(V &, S); V &operator/=(V &, S); V &operator+=(V &, S);                   \
    S dot(V, V); V fminf(V, V); V fmaxf(V, V); V min(V, V); V max(V, V);
AUTOSYNC_OPS(float2, float)
AUTOSYNC_OPS(float3, float)
AUTOSYNC_OPS(float4, float)
AUTOSYNC_OPS(int2, int)
AUTOSYNC_OPS(int3, int)
AUTOSYNC_OPS(int4, int)
AUTOSYNC_OPS(uint2, unsigned)
AUTOSYNC_OPS(uint3, unsigned)
AUTOSYNC_OPS(uint4, unsigned)
#undef AUTOSYNC_OPS
float length(float2);
float length(float3);
float length(float4);
float2 normalize(float2);
float3 normalize(float3);
float4 normalize(float4);
float3 cross(float3, float3);
float lerp(float, float, float);
float3 lerp(float3, float3, float);
float4 lerp(float4, float4, float);
float clamp(float, float, float);
int clamp(int, int, int);
float3 clamp(float3, float, float);
float3 make_float3(float4);
float3 make_float3(float);
float4 make_float4(float3, float);
float4 make_float4(float);
float2 make_float2(float);
int3 make_int3(int);
uint3 make_uint3(unsigned);

extern const uint3 threadIdx;
extern const uint3 blockIdx;
extern const dim3 blockDim;
extern const dim3 gridDim;
extern const int warpSize;

typedef unsigned short __half;
typedef __half half;
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
typedef int cudaError_t;
typedef void *cudaStream_t;
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero, cudaBoundaryModeClamp, cudaBoundaryModeTrap };
enum cudaTextureReadMode { cudaReadModeElementType, cudaReadModeNormalizedFloat };
#define cudaSuccess 0

// ---- synchronisation, warps ------------------------------------------------------
void __syncthreads();
int __syncthreads_count(int);
int __syncthreads_and(int);
int __syncthreads_or(int);
void __syncwarp(unsigned mask = 0xffffffffu);
void __threadfence();
void __threadfence_block();
void __threadfence_system();
unsigned __ballot_sync(unsigned, int);
template <class T> T __reduce_add_sync(unsigned, T v) { return v; }
template <class T> T __reduce_min_sync(unsigned, T v) { return v; }
template <class T> T __reduce_max_sync(unsigned, T v) { return v; }
template <class T> T __reduce_and_sync(unsigned, T v) { return v; }
template <class T> T __reduce_or_sync(unsigned, T v) { return v; }
template <class T> T __reduce_xor_sync(unsigned, T v) { return v; }
unsigned __ballot(int);
int __any_sync(unsigned, int);
int __all_sync(unsigned, int);
int __any(int);
int __all(int);
unsigned __activemask();
template <class T> T __shfl_sync(unsigned, T v, int, int = 32) { return v; }
template <class T> T __shfl_up_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <class T> T __shfl_down_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <class T> T __shfl_xor_sync(unsigned, T v, int, int = 32) { return v; }
template <class T> T __shfl(T v, int, int = 32) { return v; }
template <class T> T __shfl_up(T v, unsigned, int = 32) { return v; }
template <class T> T __shfl_down(T v, unsigned, int = 32) { return v; }
template <class T> T __shfl_xor(T v, int, int = 32) { return v; }
template <class T> T __ldg(const T *p) { return *p; }
template <class T> T __ldcg(const T *p) { return *p; }
template <class T> T __ldca(const T *p) { return *p; }
template <class T> T __ldcs(const T *p) { return *p; }
template <class T> T __ldlu(const T *p) { return *p; }
template <class T> T __ldcv(const T *p) { return *p; }
template <class T> void __stcg(T *p, T v) { *p = v; }
template <class T> void __stcs(T *p, T v) { *p = v; }
template <class T> void __stwb(T *p, T v) { *p = v; }
template <class T> void __stwt(T *p, T v) { *p = v; }
// Address conversions (inline PTX operands).
inline size_t __cvta_generic_to_shared(const void *p) { return (size_t)p; }
inline size_t __cvta_generic_to_global(const void *p) { return (size_t)p; }

// ---- atomics ---------------------------------------------------------------------
template <class T, class U> T atomicAdd(T *p, U v) { return *p; }
template <class T, class U> T atomicSub(T *p, U v) { return *p; }
template <class T, class U> T atomicExch(T *p, U v) { return *p; }
template <class T, class U> T atomicMin(T *p, U v) { return *p; }
template <class T, class U> T atomicMax(T *p, U v) { return *p; }
template <class T, class U> T atomicInc(T *p, U v) { return *p; }
template <class T, class U> T atomicInc_block(T *p, U v) { return *p; }
template <class T, class U> T atomicDec(T *p, U v) { return *p; }
template <class T, class U> T atomicAnd(T *p, U v) { return *p; }
template <class T, class U> T atomicOr(T *p, U v) { return *p; }
template <class T, class U> T atomicXor(T *p, U v) { return *p; }
template <class T, class U, class V> T atomicCAS(T *p, U c, V v) { return *p; }

// ---- integer and float intrinsics ------------------------------------------------
template <class A, class B> auto min(A a, B b) -> decltype(a + b) { return a < b ? a : b; }
template <class A, class B> auto max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }
inline int umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline int umax(unsigned a, unsigned b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
int __mul24(int, int);
unsigned __umul24(unsigned, unsigned);
int __mulhi(int, int);
unsigned __umulhi(unsigned, unsigned);
int __popc(unsigned);
int __popcll(unsigned long long);
int __clz(int);
int __clzll(long long);
int __ffs(int);
int __ffsll(long long);
unsigned __brev(unsigned);
unsigned __byte_perm(unsigned, unsigned, unsigned);
int __float2int_rn(float);
int __float2int_rz(float);
int __float2int_rd(float);
int __float2int_ru(float);
unsigned __float2uint_rn(float);
unsigned __float2uint_rz(float);
float __int2float_rn(int);
float __uint2float_rn(unsigned);
int __float_as_int(float);
unsigned __float_as_uint(float);
float __int_as_float(int);
float __uint_as_float(unsigned);
long long __double_as_longlong(double);
double __longlong_as_double(long long);
float __saturatef(float);
float __fdividef(float, float);
float __expf(float);
float __exp10f(float);
float __logf(float);
float __log2f(float);
float __log10f(float);
float __sinf(float);
float __cosf(float);
float __tanf(float);
float __powf(float, float);
float __fsqrt_rn(float);
float __frcp_rn(float);
float __fmul_rn(float, float);
float __fadd_rn(float, float);
float __fmaf_rn(float, float, float);
float rsqrtf(float);
double rsqrt(double);
float exp10f(float);
float saturate(float);
void __sincosf(float, float *, float *);
void sincosf(float, float *, float *);
float __half2float(__half);
__half __float2half(float);
long long clock64();
int clock();

// ---- textures and surfaces -------------------------------------------------------
template <class T, int dim = 1, enum cudaTextureReadMode = cudaReadModeElementType> struct texture {
    int normalized, filterMode, addressMode[3];
};
template <class T, int dim = 1> struct surface {};
template <class T, enum cudaTextureReadMode m> struct tex_result {
    typedef T type;
};
template <> struct tex_result<unsigned char, cudaReadModeNormalizedFloat> {
    typedef float type;
};
template <> struct tex_result<uchar2, cudaReadModeNormalizedFloat> {
    typedef float2 type;
};
template <> struct tex_result<uchar4, cudaReadModeNormalizedFloat> {
    typedef float4 type;
};
template <> struct tex_result<unsigned short, cudaReadModeNormalizedFloat> {
    typedef float type;
};
#define AUTOSYNC_TEX(R) typename tex_result<T, m>::type
template <class T> T tex1Dfetch(cudaTextureObject_t, int) { return T(); }
template <class T> T tex1D(cudaTextureObject_t, float) { return T(); }
template <class T> T tex2D(cudaTextureObject_t, float, float) { return T(); }
template <class T> T tex3D(cudaTextureObject_t, float, float, float) { return T(); }
template <class T, int d, enum cudaTextureReadMode m> AUTOSYNC_TEX(T) tex1Dfetch(texture<T, d, m>, int) { return {}; }
template <class T, int d, enum cudaTextureReadMode m> AUTOSYNC_TEX(T) tex1D(texture<T, d, m>, float) { return {}; }
template <class T, int d, enum cudaTextureReadMode m> AUTOSYNC_TEX(T) tex2D(texture<T, d, m>, float, float) {
    return {};
}
template <class T, int d, enum cudaTextureReadMode m>
AUTOSYNC_TEX(T) tex3D(texture<T, d, m>, float, float, float) {
    return {};
}
#undef AUTOSYNC_TEX
template <class T, class S> void surf1Dwrite(T, S, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {}
template <class T, class S> void surf2Dwrite(T, S, int, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {}
template <class T, class S> void surf3Dwrite(T, S, int, int, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {}
template <class T, class S>
void surf2DLayeredwrite(T, S, int, int, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {}
template <class T, class S> void surf1Dread(T *, S, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {}
template <class T, class S> void surf2Dread(T *, S, int, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {}
template <class T, class S> void surf3Dread(T *, S, int, int, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {}
template <class T> T surf1Dread(cudaSurfaceObject_t, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) { return T(); }
template <class T> T surf2Dread(cudaSurfaceObject_t, int, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {
    return T();
}
template <class T> T surf3Dread(cudaSurfaceObject_t, int, int, int, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {
    return T();
}

// ---- cooperative groups ----------------------------------------------------------
namespace cuda {
template <size_t A> struct aligned_size_t;
}
namespace cooperative_groups {
struct thread_group {
    void sync() const {}
    unsigned size() const { return 0; }
    unsigned num_threads() const { return 0; }
    unsigned thread_rank() const { return 0; }
};
struct thread_block : thread_group {
    dim3 group_index() const { return dim3(); }
    dim3 thread_index() const { return dim3(); }
    dim3 group_dim() const { return dim3(); }
    dim3 dim_threads() const { return dim3(); }
};
struct grid_group : thread_group {
    bool is_valid() const { return true; }
};
struct coalesced_group : thread_group {};
template <unsigned N> struct thread_block_tile : thread_group {
    unsigned meta_group_rank() const { return 0; }
    unsigned meta_group_size() const { return 0; }
    template <class T> T shfl(T v, int) const { return v; }
    template <class T> T shfl_down(T v, unsigned) const { return v; }
    template <class T> T shfl_up(T v, unsigned) const { return v; }
    template <class T> T shfl_xor(T v, unsigned) const { return v; }
    int any(int) const { return 0; }
    int all(int) const { return 0; }
    unsigned ballot(int) const { return 0; }
};
inline thread_block this_thread_block() { return thread_block(); }
inline grid_group this_grid() { return grid_group(); }
inline coalesced_group coalesced_threads() { return coalesced_group(); }
template <unsigned N, class G> thread_block_tile<N> tiled_partition(const G &) { return thread_block_tile<N>(); }
template <class G> thread_group tiled_partition(const G &, unsigned) { return thread_group(); }
template <class G> void sync(const G &) {}
template <class G, class T, class Op> T reduce(const G &, T v, Op) { return v; }
template <class T> struct plus {
    T operator()(T a, T b) const { return a + b; }
};
template <class G> void memcpy_async(const G &, void *, const void *, size_t) {}
template <class G, size_t A> void memcpy_async(const G &, void *, const void *, cuda::aligned_size_t<A>) {}
template <class G, class T> void memcpy_async(const G &, T *, size_t, const T *, size_t) {}
template <class G> void wait(const G &) {}
template <unsigned N, class G> void wait_prior(const G &) {}
} // namespace cooperative_groups

// ---- asynchronous copies: libcu++'s pipelines and barriers, the pipeline primitives ----
namespace cuda {
enum thread_scope { thread_scope_system, thread_scope_device, thread_scope_block, thread_scope_thread };
template <size_t A> struct aligned_size_t {
    size_t value;
    explicit aligned_size_t(size_t v) : value(v) {}
};
template <thread_scope S> struct pipeline {
    void producer_acquire() {}
    void producer_commit() {}
    void consumer_wait() {}
    void consumer_release() {}
};
template <thread_scope S, size_t N = 1> struct pipeline_shared_state {};
inline pipeline<thread_scope_thread> make_pipeline() { return pipeline<thread_scope_thread>(); }
template <class G, thread_scope S, size_t N>
pipeline<S> make_pipeline(const G &, pipeline_shared_state<S, N> *) { return pipeline<S>(); }
template <unsigned N, thread_scope S> void pipeline_consumer_wait_prior(pipeline<S> &) {}
template <thread_scope S> struct barrier {
    struct arrival_token {};
    arrival_token arrive() { return arrival_token(); }
    void wait(arrival_token &&) {}
    void arrive_and_wait() {}
};
template <thread_scope S> void init(barrier<S> *, ptrdiff_t) {}
template <class Sync> void memcpy_async(void *, const void *, size_t, Sync &) {}
template <class Sync, size_t A> void memcpy_async(void *, const void *, aligned_size_t<A>, Sync &) {}
template <class G, class Sync> void memcpy_async(const G &, void *, const void *, size_t, Sync &) {}
template <class G, class Sync, size_t A> void memcpy_async(const G &, void *, const void *, aligned_size_t<A>, Sync &) {}
} // namespace cuda
inline void __pipeline_memcpy_async(void *, const void *, size_t, size_t = 0) {}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(size_t) {}

// ---- host runtime API (the host code of files whose launches the front end reads) ----
enum cudaMemcpyKind {
    cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice,
    cudaMemcpyDefault
};
template <class T> cudaError_t cudaMalloc(T **, size_t) { return cudaSuccess; }
cudaError_t cudaFree(void *);
template <class K>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, K kernel, size_t smem = 0,
                                               int limit = 0) {
    return cudaSuccess;
}
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMultiProcessorCount = 16 };
cudaError_t cudaDeviceGetAttribute(int *, cudaDeviceAttr, int);
cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaDeviceSynchronize();
#define CUDART_CB
typedef void (*cudaStreamCallback_t)(cudaStream_t, cudaError_t, void *);
cudaError_t cudaStreamAddCallback(cudaStream_t, cudaStreamCallback_t, void *, unsigned int);
cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t = 0, cudaStream_t = 0);
cudaError_t cudaLaunchCooperativeKernel(const void *, dim3, dim3, void **, size_t = 0, cudaStream_t = 0);
enum cudaLaunchAttributeID { cudaLaunchAttributeCooperative = 2 };
union cudaLaunchAttributeValue {
    int cooperative;
};
struct cudaLaunchAttribute {
    int id;
    cudaLaunchAttributeValue val;
};
struct cudaLaunchConfig_t {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
};
template <class... Expected, class... Actual>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *, void (*)(Expected...), Actual &&...) {
    return cudaSuccess;
}

// ---- cuRAND ----------------------------------------------------------------------
struct curandState {
    unsigned d, v[5];
};
typedef curandState curandState_t;
typedef curandState curandStateXORWOW_t;
inline void curand_init(unsigned long long, unsigned long long, unsigned long long, curandState *) {}
inline unsigned curand(curandState *) { return 0; }
inline float curand_uniform(curandState *) { return 0; }
inline float curand_normal(curandState *) { return 0; }
inline double curand_uniform_double(curandState *) { return 0; }
inline double curand_normal_double(curandState *) { return 0; }

// ---- GPUVerify's annotations (what they say is not checked here) -----------------
#define __requires(...) ((void)0)
#define __ensures(...) ((void)0)
#define __assume(...) ((void)0)
#define __assert(...) ((void)0)
#define __global_assert(...) ((void)0)
#define __invariant(...) ((void)0)
#define __global_invariant(...) ((void)0)
#define __function_wide_invariant(...) ((void)0)
#define __barrier_invariant(...) ((void)0)
#define __barrier_invariant_binary(...) ((void)0)
#define __global_requires(...) ((void)0)
#define __global_ensures(...) ((void)0)
#define __reads_from(...) ((void)0)
#define __writes_to(...) ((void)0)
#define __non_temporal(...) (__VA_ARGS__)
#define __candidate_invariant(...) ((void)0)
#define __candidate_global_invariant(...) ((void)0)
template <class... A> bool __implies(A...) { return true; }
template <class... A> bool __enabled(A...) { return true; }
template <class... A> bool __no_read(A...) { return true; }
template <class... A> bool __no_write(A...) { return true; }
template <class... A> bool __read_implies(A...) { return true; }
template <class... A> bool __write_implies(A...) { return true; }
template <class... A> bool __is_pow2(A...) { return true; }
template <class... A> bool __distinct_int(A...) { return true; }
template <class... A> bool __uniform_int(A...) { return true; }
template <class... A> bool __add_noovfl(A...) { return true; }
template <class... A> int __other_int(A...) { return 0; }
template <class... A> int __return_val_int(A...) { return 0; }
template <class... A> int __read_offset_bytes(A...) { return 0; }
template <class... A> int __write_offset_bytes(A...) { return 0; }
template <class... A> int __ptr_base(A...) { return 0; }
template <class... A> int __ptr_offset_bytes(A...) { return 0; }

using namespace std;
