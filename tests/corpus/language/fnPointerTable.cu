//pass
//--blockDim=256 --gridDim=16
//expect: verified

// The operation is picked from a table of device functions by a kernel
// parameter; every entry updates only the calling thread's own element.
typedef float (*unary_op)(float);

__device__ float negate(float v) { return -v; }
__device__ float square(float v) { return v * v; }
__device__ float halve(float v) { return 0.5f * v; }

__global__ void apply_table(float *data, int which, int n)
{
    unary_op ops[3] = {negate, square, halve};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = ops[which % 3](data[i]);
    }
}
