//--blockDim=64 --gridDim=1
//expect: race

// `bump` is defined in another file and takes its argument by reference: it may write
// the neighbour's cell, which the neighbour reads.
__device__ void bump(int &counter);

__global__ void histogramStep(int *out)
{
    __shared__ int cells[65];
    unsigned t = threadIdx.x;
    cells[t] = 0;
    __syncthreads();
    bump(cells[t + 1]); //~ race(cells)
    out[t] = cells[t]; //~ race(cells)
}
