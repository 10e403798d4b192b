//--blockDim=256 --gridDim=4
//expect: race
// sumOfSharedWeights where each thread sums its own row: the sums differ.
__global__ void weightSum(const float *w, float *total, int n)
{
    float acc = 0.0f;
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < n; ++i)
        acc += w[row * n + i];
    total[0] = acc; //~ race(total)
}
