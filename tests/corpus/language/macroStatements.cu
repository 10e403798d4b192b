//pass
//--blockDim=64 --gridDim=8
//expect: verified

// A message schedule written with function-like macros whose bodies call other
// macros and expand to several statements (`STEP4`), a `do { } while (0)`
// store, and a macro that ends in a barrier.
#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define SIGMA(x) (ROTL(x, 7) ^ ROTL(x, 18) ^ ((x) >> 3))
#define STEP(t) W[t] = SIGMA(W[(t) - 2]) + W[(t) - 7] + SIGMA(W[(t) - 15]) + W[(t) - 16]
#define STEP4(t) STEP(t); STEP((t) + 1); STEP((t) + 2); STEP((t) + 3)
#define STORE(i, v) do { out[(i)] = (v); } while (0)
#define PUBLISH(i, v) shared_w[i] = (v); __syncthreads()

__global__ void schedule(const unsigned *in, unsigned *out)
{
    __shared__ unsigned shared_w[64];
    unsigned W[24];
    unsigned g = blockIdx.x * 64 + threadIdx.x;
    for (int i = 0; i < 16; i++) W[i] = in[g * 16 + i];
    STEP4(16);
    STEP4(20);
    PUBLISH(threadIdx.x, W[23]);
    STORE(g, W[23] ^ shared_w[63 - threadIdx.x]);
}
