//--blockDim=128 --gridDim=1
//expect: race

// A race inside a __device__ function of this file: `rotate` reads its neighbour's
// cell and writes its own with no barrier between. The accesses are reported at the
// function's lines, with the call that reaches them ("in `rotate`, called at line 18").
__device__ void rotate(int *s, int t)
{
    int right = s[(t + 1) % 128]; //~ race(s)
    s[t] = right; //~ race(s)
}

__global__ void rotateAll(int *g)
{
    __shared__ int s[128];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    rotate(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
