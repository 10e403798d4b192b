//pass
//expect: race

// The twin of compilerGuard.cu that reads its neighbour's element before the barrier.
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
    buf[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];           //~ race(buf)
    if (threadIdx.x % 2 == 0)
        out[blockIdx.x * 128 + threadIdx.x / 2] = buf[threadIdx.x] + buf[threadIdx.x + 1]; //~ race(buf)
}

int main()
{
    int *in, *out;
    pairSums<<<64, 256>>>(in, out);
    return 0;
}
