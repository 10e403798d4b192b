//pass
//expect: race

// A tile of a coalesced group: its threads are numbered among the group's active
// threads, which the type does not say (the rank is taken as unknown). Here each of
// the two warps numbers its 16 active threads 0 to 15, so both warps write slots 0
// to 15.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void odd_slots(int *out)
{
    __shared__ int s[64];
    if (threadIdx.x % 2 == 1) {
        cg::coalesced_group active = cg::coalesced_threads();
        auto quad = cg::tiled_partition<4>(active);
        s[quad.meta_group_rank() * 4 + quad.thread_rank()] = threadIdx.x; //~ race(s)
    }
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
}

int main()
{
    int *out;
    odd_slots<<<8, 64>>>(out);
    return 0;
}
