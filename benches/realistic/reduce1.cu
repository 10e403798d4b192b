//--blockDim=256 --gridDim=64
// Tree sum of one block's slice, second step of the SDK reduction sample: interleaved
// pairs again, but the working threads are the first ones (a strided index instead of
// the modulo test), at the price of shared-memory bank conflicts.

template <class T>
__global__ void reduce1(T *in, T *out, unsigned int n)
{
    __requires(n == 16384);

    extern __shared__ unsigned char scratch[];
    T *partial = (T *)scratch;

    unsigned int me = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + me;

    partial[me] = (g < n) ? in[g] : 0;
    __syncthreads();

    for (unsigned int d = 1; d < blockDim.x; d *= 2) {
        // thread t works on the pair starting at 2*d*t
        unsigned int left = 2 * d * me;
        if (left < blockDim.x) {
            partial[left] += partial[left + d];
        }
        __syncthreads();
    }

    if (me == 0)
        out[blockIdx.x] = partial[0];
}

template __global__ void reduce1<int>(int *in, int *out, unsigned int n);
