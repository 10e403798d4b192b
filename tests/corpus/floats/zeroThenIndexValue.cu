//--blockDim=128 --gridDim=16
//expect: race
// zeroThroughIntLiteral with the thread's index converted to float: threads store
// different values into y[0].
__global__ void clearThenAccumulate(float *y, const float *x, int n)
{
    y[0] = threadIdx.x; //~ race(y)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[1 + i] = x[i] * 0.5;
}
