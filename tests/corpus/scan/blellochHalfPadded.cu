//fail
//--blockDim=128 --gridDim=16
//expect: race
//note: the up-sweep pads the read index but not the written one: thread t writes slot 2t+1 while thread t-1 reads it (2(t-1) + 3 for t-1 in 24..31).

#define LOG_BANKS 4
#define PAD(n) ((n) >> LOG_BANKS)
#define N 256

// Work-efficient exclusive scan of 256 elements per block (two per thread), with the
// shared array padded by one slot per 16 against bank conflicts.
__global__ void prescanHalfPadded(float *out, const float *in)
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
            tmp[bi] += tmp[ai]; //~ race(tmp)
        }
        offset <<= 1;
    }

    if (t == 0)
        tmp[N - 1 + PAD(N - 1)] = 0;

    for (unsigned int d = 1; d < N; d <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            unsigned int ai = offset * (2 * t + 1) - 1;
            unsigned int bi = offset * (2 * t + 2) - 1;
            ai += PAD(ai);
            bi += PAD(bi);
            float x = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += x;
        }
    }
    __syncthreads();
    out[base + a] = tmp[a + PAD(a)];
    out[base + b] = tmp[b + PAD(b)];
}
