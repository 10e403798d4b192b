//pass
//expect: race

// Twin of gridRank.cu: the rank in the block (`this_thread_block().thread_rank()`)
// is the same in every block, so the blocks write the same elements (their own values).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void fill(float *y, const float *x, unsigned long long n)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    for (unsigned long long i = block.thread_rank(); i < n; i += grid.num_threads()) {
        y[i] = x[i] + blockIdx.x; //~ race(y)
    }
}

int main()
{
    float *y, *x;
    dim3 threads(16, 8);
    fill<<<64, threads>>>(y, x, 1 << 20);
    return 0;
}
