//pass
//expect: verified

// A compiler check that autosync's macros do not pass (it does not predefine the host
// compiler's `__GNUC__`): the `#error` is a note, and the kernel is checked anyway. It
// uses none of the macros the skipped branches define (`HOST_INLINE`), or it would be
// unsupported (one of them might be a barrier); so would a syntax error anywhere.
#if defined(_MSC_VER)
#define HOST_INLINE __forceinline
#elif defined(__GNUC__)
#define HOST_INLINE inline __attribute__((always_inline))
#else
#error "unsupported host compiler"
#endif

__global__ void __launch_bounds__(256) pairSums(const int *in, int *out)
{
    __shared__ int buf[256];
    buf[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x % 2 == 0)
        out[blockIdx.x * 128 + threadIdx.x / 2] = buf[threadIdx.x] + buf[threadIdx.x + 1];
}

int main()
{
    int *in, *out;
    pairSums<<<64, 256>>>(in, out);
    return 0;
}
