//pass
//--blockDim=128 --gridDim=8
//expect: verified
//expect-tool: race (false alarm: the stated invariant is true but not inductive alone)

// `pos` advances by `step`, which grows by one or two pairs depending on the thread:
// `pos % 2 == 0` holds at every round, but only because `step` is even too, which the
// file does not state. An iteration does not preserve the invariant on its own, so
// autosync reports it as not proved, ignores it, and the read may touch a neighbour's
// write. invPairWalkTwoInvariants.cu states both and verifies.
__global__ void pairWalkNotInductive(float *out, int rounds)
{
    __shared__ float s[260];
    unsigned int tid = threadIdx.x;
    int pos = 0;
    int step = 0;
    int r = 0;
    while (__invariant(pos % 2 == 0), r < rounds) {
        pos += step;
        if (tid < r)
            step += 2;
        else
            step += 4;
        r++;
    }
    s[2 * tid] = 1.0f; //~? race(s)
    out[blockIdx.x * 128 + tid] = s[2 * tid + 1 + pos % 2]; //~? race(s)
}
