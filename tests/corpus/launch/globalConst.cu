//expect: verified

// Twin of globalNamedConstRace.cu: with a `const` global the grid is one block, and the
// 64 threads of that block write disjoint bins.
#include <cuda_runtime.h>

static const int kBlocks = 1;
constexpr int kThreads = 64;

__global__ void tally(const int *vals, int *bins)
{
    int t = threadIdx.x;
    bins[t] = vals[blockIdx.x * 64 + t];
}

void run(const int *d_vals, int *d_bins)
{
    tally<<<kBlocks, kThreads>>>(d_vals, d_bins);
}
