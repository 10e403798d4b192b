//pass
//--blockDim=128 --gridDim=8
//expect: verified
//expect-tool: race (false alarm: the invariant stands before the loop, not at its head)

// invPairWalk with the invariant written as a statement just before the loop. GPUVerify
// takes loop invariants at the head of a loop only (in its condition, or first in its
// body); autosync does the same, and reports this one as misplaced and ignored rather
// than guess which loop it was meant for.
__global__ void pairWalkBeforeLoop(float *out, int rounds)
{
    __shared__ float s[260];
    unsigned int tid = threadIdx.x;
    int pos = 0;
    __invariant(pos % 2 == 0);
    for (int r = 0; r < rounds; r++) {
        if (tid < r)
            pos += 2;
        else
            pos += 4;
    }
    s[2 * tid] = 1.0f; //~? race(s)
    out[blockIdx.x * 128 + tid] = s[2 * tid + 1 + pos % 2]; //~? race(s)
}
