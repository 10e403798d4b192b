//pass
//expect: race

// The twin of doubleBufferPrimitives.cu without the barrier between the wait and the
// reads: a thread's wait completes only its own copies, and the element it reads is
// another thread's, which may still be arriving.
#include <cuda_pipeline.h>

__global__ void rowsPrefetchedEarly(const int *rows, int *out, int count)
{
    __shared__ int row[2][64];
    int t = threadIdx.x;
    int acc = 0;
    __pipeline_memcpy_async(&row[0][t], &rows[blockIdx.x * count * 64 + t], sizeof(int)); //~ race(row)
    __pipeline_commit();
    for (int r = 1; r < count; ++r) {
        __pipeline_memcpy_async(&row[r % 2][t], &rows[(blockIdx.x * count + r) * 64 + t], sizeof(int)); //~ race(row)
        __pipeline_commit();
        __pipeline_wait_prior(1);
        acc ^= row[(r - 1) % 2][63 - t]; //~ race(row)
        __syncthreads();
    }
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 64 + t] = acc ^ row[(count - 1) % 2][63 - t];
}

int main()
{
    int *rows, *out;
    rowsPrefetchedEarly<<<20, 64>>>(rows, out, 9);
    return 0;
}
