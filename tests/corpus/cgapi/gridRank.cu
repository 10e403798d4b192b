//pass
//expect: verified

// The grid's rank of a thread is distinct across blocks; a 2-d block is ranked x
// first. Each thread writes its own element and `num_threads()` strides the loop.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void fill(float *y, const float *x, unsigned long long n)
{
    cg::grid_group grid = cg::this_grid();
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.num_threads()) {
        y[i] = x[i] + 1.0f;
    }
}

int main()
{
    float *y, *x;
    dim3 threads(16, 8);
    fill<<<64, threads>>>(y, x, 1 << 20);
    return 0;
}
