//expect: verified
#include <cuda_runtime.h>
// No range guard (only T, V > 0 so the divisions are defined). b = idx/(T*V)
// is NOT reduced mod B, so b*T*V + t*V + v == idx for every idx: threads
// beyond the data write out of bounds (a bug, not a race) but never share a cell.
__global__ void copy_btv(float* out, const float* in, int T, int V) {
    if (T <= 0 || V <= 0) return;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int b = idx / (T * V);
    int t = (idx / V) % T;
    int v = idx % V;
    out[b * T * V + t * V + v] = in[idx];
}
