//expect: verified

// Twin of wholeStructCopyRace.cu with the barrier: the whole-struct copy reads the
// neighbour's sample after it was written, and the store of the copy writes each
// thread's own `out[t]` (every element of its member array).
struct Sample { float ch[4]; int tag; };

__global__ void shiftSamples(Sample *out)
{
    __shared__ Sample tile[64];
    int t = threadIdx.x;
    tile[t].ch[0] = 1.0f;
    tile[t].ch[3] = 2.0f;
    tile[t].tag = t;
    __syncthreads();
    Sample s = tile[(t + 1) % 64];
    out[t] = s;
}

void run(Sample *o) { shiftSamples<<<1, 64>>>(o); }
