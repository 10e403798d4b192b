//--blockDim=128 --gridDim=16
//expect: verified
// Every thread of the grid clears the accumulator with an integer literal converted
// to float, then adds its own element atomically.
__global__ void clearThenAccumulate(float *y, const float *x, int n)
{
    y[0] = 0;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[1 + i] = x[i] * 0.5;
}
