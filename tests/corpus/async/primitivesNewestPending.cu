//pass
//expect: race

// __pipeline_wait_prior(1) leaves the newest batch in flight: here that is the batch of
// the copy, so the barrier after it does not order the copy before the reads.
#include <cuda_pipeline.h>

__global__ void newestInFlight(const int *in, int *out)
{
    __shared__ int cells[256];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&cells[t], &in[blockIdx.x * 256 + t], sizeof(int)); //~ race(cells)
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    int v = cells[255 - t];                                                     //~ race(cells)
    __pipeline_wait_prior(0);
    out[blockIdx.x * 256 + t] = v;
}

int main()
{
    int *in, *out;
    newestInFlight<<<4, 256>>>(in, out);
    return 0;
}
