//expect: race
#include <cuda_runtime.h>
// No guard and the top digit wraps (b = ... % B). B=T=V=1, blockDim=2:
// threads 0 and 1 both get b=t=v=0 and write out[0].
__global__ void copy_btv(float* out, const float* in, int B, int T, int V) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int b = (idx / (T * V)) % B;
    int t = (idx / V) % T;
    int v = idx % V;
    out[b * T * V + t * V + v] = in[idx]; //~ race(out)
}
