//expect: race

// Twin of operatorEffects.cu: every thread's accumulator points at slot 0, so the
// writes the operators make race. Before, an operator on a struct was not called and
// its writes were lost (the kernel verified).
struct Accum { float *slot; };

__device__ void operator+=(Accum a, float v) { *a.slot += v; }    //~ race(sums)
__device__ Accum operator<<(Accum a, float v) { a.slot[0] = v; return a; } //~ race(sums)

__global__ void accumulate(float *sums, const float *vals)
{
    int t = threadIdx.x;
    Accum acc{sums};
    acc << 0.0f;
    for (int k = 0; k < 8; k++) acc += vals[t * 8 + k];
}

void run(float *s, const float *v) { accumulate<<<1, 64>>>(s, v); }
