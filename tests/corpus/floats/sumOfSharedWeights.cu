//--blockDim=256 --gridDim=4
//expect: verified
// Every thread sums the same read-only weights in the same order and stores the sum:
// all writers of total[0] (in every block) agree.
__global__ void weightSum(const float *w, float *total, int n)
{
    float acc = 0.0f;
    for (int i = 0; i < n; ++i)
        acc += w[i];
    total[0] = acc;
}
