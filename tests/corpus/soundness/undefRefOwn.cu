//--blockDim=64 --gridDim=1
//expect: verified

// The same call on the thread's own cell.
__device__ void bump(int &counter);

__global__ void histogramStep(int *out)
{
    __shared__ int cells[64];
    unsigned t = threadIdx.x;
    cells[t] = 0;
    bump(cells[t]);
    out[t] = cells[t];
}
