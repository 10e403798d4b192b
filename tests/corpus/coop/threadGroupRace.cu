//pass
//--blockDim=64 --gridDim=2
//expect: race

// A `thread_group` from the run-time `tiled_partition(block, 4)`: its sync
// orders only the 4 threads of one group, not the neighbour `t + 4` whose
// element is read after it (the type does not say the size, so it is no
// synchronization, never a block barrier).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void quads(int *data)
{
    __shared__ int s[64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group quad = cg::tiled_partition(block, 4);
    unsigned t = threadIdx.x;
    s[t] = data[blockIdx.x * 64 + t];     //~ race(s)
    quad.sync();
    int v = s[(t + 4) % 64];              //~ race(s)
    block.sync();
    data[blockIdx.x * 64 + t] = v;
}
