//fail
//--blockDim=128 --gridDim=16
//expect: race
//note: the down-sweep has no barrier between its steps: a step reads what the previous one writes.

#define LOG_BANKS 4
#define PAD(n) ((n) >> LOG_BANKS)
#define N 256

// Work-efficient exclusive scan of 256 elements per block (two per thread), with the
// shared array padded by one slot per 16 against bank conflicts.
__global__ void prescanDownNoBarrier(float *out, const float *in)
{
    __shared__ float tmp[N + N / 16];
    unsigned int t = threadIdx.x;
    unsigned int base = blockIdx.x * N;
    unsigned int a = t;
    unsigned int b = t + N / 2;
    tmp[a + PAD(a)] = in[base + a];
    tmp[b + PAD(b)] = in[base + b];

    unsigned int offset = 1;
    for (unsigned int d = N >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            unsigned int ai = offset * (2 * t + 1) - 1;
            unsigned int bi = offset * (2 * t + 2) - 1;
            ai += PAD(ai);
            bi += PAD(bi);
            tmp[bi] += tmp[ai];
        }
        offset <<= 1;
    }

    __syncthreads();
    if (t == 0)
        tmp[N - 1 + PAD(N - 1)] = 0;
    __syncthreads();

    for (unsigned int d = 1; d < N; d <<= 1) {
        offset >>= 1;
        if (t < d) {
            unsigned int ai = offset * (2 * t + 1) - 1;
            unsigned int bi = offset * (2 * t + 2) - 1;
            ai += PAD(ai);
            bi += PAD(bi);
            float x = tmp[ai]; //~ race(tmp)
            tmp[ai] = tmp[bi]; //~ race(tmp)
            tmp[bi] += x; //~ race(tmp)
        }
    }
    __syncthreads();
    out[base + a] = tmp[a + PAD(a)];
    out[base + b] = tmp[b + PAD(b)];
}
