//pass
//expect: race

// A __syncthreads() does not wait for an asynchronous copy: the copy may still be writing
// the row after the barrier, while other threads read it. The wait comes too late.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void rowShift(const int *rows, int *shifted, int width)
{
    __shared__ int row[128];
    cg::thread_block block = cg::this_thread_block();
    int t = threadIdx.x;
    cg::memcpy_async(block, row, rows + blockIdx.x * 128, 128 * sizeof(int)); //~ race(row)
    __syncthreads();
    int left = row[(t + 127) % 128]; //~ race(row)
    cg::wait(block);
    shifted[blockIdx.x * 128 + t] = left;
}

int main()
{
    int *rows, *shifted;
    rowShift<<<16, 128>>>(rows, shifted, 128);
    return 0;
}
