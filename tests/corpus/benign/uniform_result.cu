//--blockDim=128 --gridDim=8
//expect: verified
// Every thread of the grid stores values computed from the parameters and the launch
// only, so all writers of one element agree: `res[0]` and `res[1]` are benign.
__global__ void setup(int *res, int n, int m)
{
    res[0] = n * 2;
    if (threadIdx.x % 3 == 0)
        res[1] = n + m * blockDim.x;
    else
        res[1] = m * blockDim.x + n;
}
