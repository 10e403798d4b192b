//expect: race
//expect-unfixable

// A global whose *name* contains "const" is not a constant: `const_blocks` starts at 1
// but `configure` may change it, so `tally` may run with many blocks, and the blocks all
// write `bins[0..64)`. Reading the name as a qualifier took the grid as one block.
#include <cuda_runtime.h>

int const_blocks = 1;

__global__ void tally(const int *vals, int *bins)
{
    int t = threadIdx.x;
    bins[t] = vals[blockIdx.x * 64 + t];        //~ race(bins)
}

void configure(int blocks) { const_blocks = blocks; }

void run(const int *d_vals, int *d_bins)
{
    tally<<<const_blocks, 64>>>(d_vals, d_bins);
}
