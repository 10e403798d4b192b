//expect: race

// `threadIdx` (a `uint3`) passed for a `dim3` parameter: `dim3` takes it, so the
// function is called, and every thread writes `cell[0]`.
__device__ unsigned cell[64];

__device__ void record(dim3 at) { cell[0] = at.x; } //~ race(cell)

__global__ void stamp(float *o)
{
    record(threadIdx);
}

void run(float *o) { stamp<<<1, 64>>>(o); }
