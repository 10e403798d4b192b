//pass
//--blockDim=128 --gridDim=4
//expect: verified

// A pointer that points into one of two pointer parameters (of unknown size) on
// different paths and after reassignment: each thread writes its own element of each.
__global__ void splitWrite(float *even, float *odd, int parity)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float *p = even;
    p[g] = 0.0f;
    p = odd;
    p[g] = 1.0f;
    float *q = (parity & 1) ? odd : even;
    q[g] += 2.0f;
}
