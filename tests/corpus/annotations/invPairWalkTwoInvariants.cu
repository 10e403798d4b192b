//pass
//--blockDim=128 --gridDim=8
//expect: verified

// invPairWalkNotInductive with the second invariant stated, `step % 2 == 0`: together
// the two are inductive, autosync proves both and the kernel verifies.
__global__ void pairWalkTwoInvariants(float *out, int rounds)
{
    __shared__ float s[260];
    unsigned int tid = threadIdx.x;
    int pos = 0;
    int step = 0;
    int r = 0;
    while (__invariant(pos % 2 == 0), __invariant(step % 2 == 0), r < rounds) {
        pos += step;
        if (tid < r)
            step += 2;
        else
            step += 4;
        r++;
    }
    s[2 * tid] = 1.0f;
    out[blockIdx.x * 128 + tid] = s[2 * tid + 1 + pos % 2];
}
