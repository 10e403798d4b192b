//--blockDim=256 --gridDim=64 --warp-sync=32
// Tree sum, last step of the SDK reduction sample: each thread first accumulates many
// elements by walking the input with a grid-sized stride (two per step, the second one
// unchecked when n is a power of two), then the block folds the per-thread sums with
// the unrolled tree and a warp-synchronous tail as in reduce5.

template <class T, unsigned int kBlock, bool kPow2>
__global__ void reduce6(T *in, T *out, unsigned int n)
{
    __requires(n == 1048576);

    extern __shared__ unsigned char scratch[];
    T *partial = (T *)scratch;

    unsigned int me = threadIdx.x;
    unsigned int g = blockIdx.x * (2 * kBlock) + me;
    unsigned int step = 2 * kBlock * gridDim.x;

    T acc = 0;
    while (g < n) {
        acc += in[g];
        if (kPow2 || g + kBlock < n)
            acc += in[g + kBlock];
        g += step;
    }
    partial[me] = acc;
    __syncthreads();

    if (kBlock >= 512) {
        if (me < 256) {
            acc = acc + partial[me + 256];
            partial[me] = acc;
        }
        __syncthreads();
    }
    if (kBlock >= 256) {
        if (me < 128) {
            acc = acc + partial[me + 128];
            partial[me] = acc;
        }
        __syncthreads();
    }
    if (kBlock >= 128) {
        if (me < 64) {
            acc = acc + partial[me + 64];
            partial[me] = acc;
        }
        __syncthreads();
    }

    if (me < 32) {
        volatile T *lane = partial;
        if (kBlock >= 64) { acc = acc + lane[me + 32]; lane[me] = acc; }
        if (kBlock >= 32) { acc = acc + lane[me + 16]; lane[me] = acc; }
        if (kBlock >= 16) { acc = acc + lane[me + 8]; lane[me] = acc; }
        if (kBlock >= 8) { acc = acc + lane[me + 4]; lane[me] = acc; }
        if (kBlock >= 4) { acc = acc + lane[me + 2]; lane[me] = acc; }
        if (kBlock >= 2) { acc = acc + lane[me + 1]; lane[me] = acc; }
    }

    if (me == 0)
        out[blockIdx.x] = partial[0];
}

template __global__ void reduce6<int, 256, true>(int *in, int *out, unsigned int n);
