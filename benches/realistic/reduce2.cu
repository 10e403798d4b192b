//--blockDim=256 --gridDim=64
// Tree sum of one block's slice, third step of the SDK reduction sample: sequential
// addressing. The upper half of the live range is folded onto the lower half, which
// halves every round; no bank conflicts.

template <class T>
__global__ void reduce2(T *in, T *out, unsigned int n)
{
    __requires(n == 16384);

    extern __shared__ unsigned char scratch[];
    T *partial = (T *)scratch;

    unsigned int me = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + me;

    partial[me] = (g < n) ? in[g] : 0;
    __syncthreads();

    for (unsigned int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (me < half) {
            partial[me] += partial[me + half];
        }
        __syncthreads();
    }

    if (me == 0)
        out[blockIdx.x] = partial[0];
}

template __global__ void reduce2<int>(int *in, int *out, unsigned int n);
