//expect: verified

// The launcher is a host template over a function pointer (`template <cell_op Op>`);
// main instantiates it with `own_cell`, and the launcher passes its parameter on to
// the kernel template (`apply<Op>`). The kernel is checked as `apply<own_cell>`: each
// thread writes only its own cell. Without following the host template's argument,
// `Op` would be any function, and the kernel racy.
#include <cuda_runtime.h>

typedef void (*cell_op)(float *, int);

__device__ void own_cell(float *p, int i) { p[i] = 2.0f * p[i]; }
__device__ void first_cell(float *p, int i) { p[0] = (float)i; }

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
    cudaDeviceSynchronize();
    return 0;
}
