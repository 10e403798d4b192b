//expect: verified

// Operators with effects on memory: `acc += v` and `acc << v` are the file's
// operators on a struct holding a pointer, and they write through it. Each thread's
// accumulator points at its own slot.
struct Accum { float *slot; };

__device__ void operator+=(Accum a, float v) { *a.slot += v; }
__device__ Accum operator<<(Accum a, float v) { a.slot[0] = v; return a; }

__global__ void accumulate(float *sums, const float *vals)
{
    int t = threadIdx.x;
    Accum acc{sums + t};
    acc << 0.0f;
    for (int k = 0; k < 8; k++) acc += vals[t * 8 + k];
}

void run(float *s, const float *v) { accumulate<<<1, 64>>>(s, v); }
