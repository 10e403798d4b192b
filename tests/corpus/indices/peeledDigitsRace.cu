//expect: race
#include <cuda_runtime.h>
// Last radix D1 instead of D2. D0=D1=D3=1, D2=D4=2: index = i4 + i2.
// idx=1 (i4=1,i2=0) and idx=2 (i4=0,i2=1) both write out[1].
__global__ void permute5(float* out, const float* in, size_t D0, size_t D1, size_t D2, size_t D3, size_t D4) {
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= D0 * D1 * D2 * D3 * D4) return;
    size_t r = idx;
    size_t i4 = r % D4; r /= D4;
    size_t i3 = r % D3; r /= D3;
    size_t i2 = r % D2; r /= D2;
    size_t i1 = r % D1;
    size_t i0 = r / D1;
    out[(((i3 * D0 + i0) * D4 + i4) * D1 + i1) * D1 + i2] = in[idx]; //~ race(out)
}
