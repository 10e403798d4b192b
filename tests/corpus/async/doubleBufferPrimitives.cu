//pass
//expect: verified

// Double buffering with the pipeline primitives: each thread prefetches its element of
// the next row into the other buffer, waits for all but that newest batch, and a barrier
// makes the current row visible to the block; a second barrier ends the reads before
// the next prefetch.
#include <cuda_pipeline.h>

__global__ void rowsPrefetched(const int *rows, int *out, int count)
{
    __shared__ int row[2][64];
    int t = threadIdx.x;
    int acc = 0;
    __pipeline_memcpy_async(&row[0][t], &rows[blockIdx.x * count * 64 + t], sizeof(int));
    __pipeline_commit();
    for (int r = 1; r < count; ++r) {
        __pipeline_memcpy_async(&row[r % 2][t], &rows[(blockIdx.x * count + r) * 64 + t], sizeof(int));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc ^= row[(r - 1) % 2][63 - t];
        __syncthreads();
    }
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 64 + t] = acc ^ row[(count - 1) % 2][63 - t];
}

int main()
{
    int *rows, *out;
    rowsPrefetched<<<20, 64>>>(rows, out, 9);
    return 0;
}
