//--blockDim=256 --gridDim=1
//expect: race
// Twin of compact_shared.cu where the counter is reset after the slots are taken (in
// a loop of rounds): a later round hands out the same slots again while threads may
// still write the previous round's.
__global__ void rounds(const float *in, float *out, float limit)
{
    __shared__ unsigned int n;
    for (int r = 0; r < 4; r++) {
        float v = in[r * blockDim.x + threadIdx.x];
        if (v > limit)
            out[atomicAdd(&n, 1)] = v; //~ race(n) race(out)
        if (threadIdx.x == 0)
            n = 0; //~ race(n)
    }
}
