//expect: race
#include <cuda_runtime.h>
// Missing col < V guard: col may reach past V and spill into the next b.
// B=2, T=1, V=1, blockDim=(2,2), grid=(1,1): thread (x=1,y=0): b=0 -> out[0*1+1]=out[1];
// thread (x=0,y=1): b=1 -> out[1*1+0]=out[1]. Both in-bounds (size B*T*V=2): a real race.
__global__ void swap_bt(float* out, const float* in, int B, int T, int V) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= B * T) return;
    int b = row / T;
    int t = row % T;
    out[t * B * V + b * V + col] = in[row * V + col]; //~ race(out)
}
