//expect: race
//expect-unfixable

// Storing a struct with a member array writes every element of it: two blocks store
// their sample into the same `out[t]` (before, the store of the member array was
// rejected as an assignment to an array).
struct Sample { float ch[4]; int tag; };

__global__ void storeSamples(Sample *out, const float *in)
{
    Sample s;
    for (int i = 0; i < 4; i++) s.ch[i] = in[blockIdx.x * 256 + threadIdx.x * 4 + i];
    s.tag = blockIdx.x;
    out[threadIdx.x] = s;                      //~ race(out)
}

void run(Sample *o, const float *in) { storeSamples<<<4, 64>>>(o, in); }
