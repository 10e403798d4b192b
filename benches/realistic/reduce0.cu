//--blockDim=256 --gridDim=64
// Tree sum of one block's slice of the input, first step of the SDK reduction sample's
// optimisation sequence: interleaved pairs, the active threads chosen with a modulo
// (divergent branches inside every warp). Written for autosync's realistic suite.

template <class T>
__global__ void reduce0(T *in, T *out, unsigned int n)
{
    __requires(n == 16384);

    extern __shared__ unsigned char scratch[];
    T *partial = (T *)scratch;

    unsigned int me = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + me;

    // each thread brings one element (or the neutral 0 past the end)
    partial[me] = (g < n) ? in[g] : 0;
    __syncthreads();

    // at distance d, the threads whose index is a multiple of 2d fold in their partner
    for (unsigned int d = 1; d < blockDim.x; d *= 2) {
        if (me % (2 * d) == 0) {
            partial[me] += partial[me + d];
        }
        __syncthreads();
    }

    if (me == 0)
        out[blockIdx.x] = partial[0];
}

template __global__ void reduce0<int>(int *in, int *out, unsigned int n);
