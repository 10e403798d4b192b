//pass
//--blockDim=128 --gridDim=8
//expect: verified

// Interleaved (re, im) pairs: every thread writes the real part of its own pair, then
// reads the imaginary part of the pair `pos` points to. `pos` advances by one or two
// whole pairs per round depending on the thread and the round, so it has no closed
// form; the read stays on an imaginary slot only because `pos` stays even, which the
// author states with `__invariant`. autosync proves it (base case and inductive step)
// and then uses it.
__global__ void pairWalk(float *out, int rounds)
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
    s[2 * tid] = 1.0f;
    out[blockIdx.x * 128 + tid] = s[2 * tid + 1 + pos % 2];
}
