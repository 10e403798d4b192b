//fail
//--blockDim=128 --gridDim=8
//expect: race

// invPairWalk starting from an odd position: the stated invariant `pos % 2 == 0` is
// false before the first round, so autosync reports it as not proved and ignores it.
// Trusting it would hide the race: `pos` stays odd and every thread reads the real
// part the next thread writes.
__global__ void pairWalkWrongStart(float *out, int rounds)
{
    __shared__ float s[260];
    unsigned int tid = threadIdx.x;
    int pos = 1;
    for (int r = 0; __invariant(pos % 2 == 0), r < rounds; r++) {
        if (tid < r)
            pos += 2;
        else
            pos += 4;
    }
    s[2 * tid] = 1.0f; //~ race(s)
    out[blockIdx.x * 128 + tid] = s[2 * tid + 1 + pos % 2]; //~ race(s)
}
