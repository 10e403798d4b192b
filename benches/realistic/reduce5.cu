//--blockDim=256 --gridDim=64 --warp-sync=32
// Tree sum, sixth step of the SDK reduction sample: the block size is a template
// constant, so every round of the tree is unrolled by hand and the rounds that do not
// apply to this size vanish at compile time. The last 32 partial sums are folded by a
// single warp without barriers, relying on the lock step of a warp (volatile shared
// memory so that every step re-reads what the other lanes wrote).

template <class T, unsigned int kBlock>
__global__ void reduce5(T *in, T *out, unsigned int n)
{
    __requires(n == 32768);

    extern __shared__ unsigned char scratch[];
    T *partial = (T *)scratch;

    unsigned int me = threadIdx.x;
    unsigned int g = blockIdx.x * (2 * kBlock) + me;

    T acc = (g < n) ? in[g] : 0;
    if (g + kBlock < n)
        acc += in[g + kBlock];
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

    // one warp finishes: lanes run in lock step, no barrier between the steps
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

template __global__ void reduce5<int, 256>(int *in, int *out, unsigned int n);
