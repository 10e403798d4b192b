//fail
//--blockDim=128 --gridDim=8
//expect: race

// invPairWalk with the read moved one slot up: the invariant `pos % 2 == 0` is still
// proved, and with it the read lands on the next thread's real part, which that
// thread writes with no barrier in between.
__global__ void pairWalkRacy(float *out, int rounds)
{
    __shared__ float s[260];
    unsigned int tid = threadIdx.x;
    int pos = 0;
    for (int r = 0; __invariant(pos % 2 == 0), r < rounds; r++) {
        if (tid < r)
            pos += 2;
        else
            pos += 4;
    }
    s[2 * tid] = 1.0f; //~ race(s)
    out[blockIdx.x * 128 + tid] = s[2 * tid + 2 - pos % 2]; //~ race(s)
}
