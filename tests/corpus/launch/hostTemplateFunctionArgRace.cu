//expect: race

// hostTemplateFunctionArg.cu with a second instantiation of the launcher, with
// `first_cell`: `apply<first_cell>` has every thread write cell 0 (`apply<own_cell>`
// still verifies).
#include <cuda_runtime.h>

typedef void (*cell_op)(float *, int);

__device__ void own_cell(float *p, int i) { p[i] = 2.0f * p[i]; }
__device__ void first_cell(float *p, int i) { p[0] = (float)i; } //~ race(p)

template <cell_op Op>
__global__ void apply(float *p)
{
    Op(p, blockIdx.x * blockDim.x + threadIdx.x);
}

template <cell_op Op>
void launch_apply(float *p, int blocks)
{
    apply<Op><<<blocks, 256>>>(p);
}

int main()
{
    float *p;
    cudaMalloc(&p, 1024 * sizeof(float));
    launch_apply<own_cell>(p, 4);
    launch_apply<first_cell>(p, 2);
    cudaDeviceSynchronize();
    return 0;
}
