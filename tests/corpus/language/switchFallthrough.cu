//pass
//--blockDim=64 --gridDim=1
//expect: verified

// A uniform switch with a fallthrough: case 1 does case 2's work too.
__global__ void stages(int *a, int level)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int v;
    s[t] = a[t];
    __syncthreads();
    switch (level) {
    case 1:
        v = s[63 - t];
        __syncthreads();
        s[t] += v;
        __syncthreads();
    case 2:
        a[t] = s[(t + 1) % 64];
        break;
    default:
        a[t] = 0;
    }
}
