//--blockDim=256 --gridDim=64
// Tree sum, fourth step of the SDK reduction sample: every block covers twice its size
// of input and adds the two halves while loading, so half as many blocks are needed.
// The running sum stays in a register and is written back each round.

template <class T>
__global__ void reduce3(T *in, T *out, unsigned int n)
{
    __requires(n == 32768);

    extern __shared__ unsigned char scratch[];
    T *partial = (T *)scratch;

    unsigned int me = threadIdx.x;
    unsigned int g = blockIdx.x * (2 * blockDim.x) + me;

    T acc = (g < n) ? in[g] : 0;
    if (g + blockDim.x < n)
        acc += in[g + blockDim.x];

    partial[me] = acc;
    __syncthreads();

    for (unsigned int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (me < half) {
            acc = acc + partial[me + half];
            partial[me] = acc;
        }
        __syncthreads();
    }

    if (me == 0)
        out[blockIdx.x] = partial[0];
}

template __global__ void reduce3<float>(float *in, float *out, unsigned int n);
