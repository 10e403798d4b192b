//--blockDim=64 --gridDim=1
//expect: race

enum Pass { First, Second, Third };

// 3 is no enumerator of Pass but is one of its values (a 2-bit field): a race then.
__global__ void enumUnnamedValue(float *A, Pass p)
{
    __shared__ float s[64];
    s[threadIdx.x] = A[threadIdx.x]; //~ race(s)
    if (p == 3)
        s[0] = 0.0f; //~ race(s)
    __syncthreads();
    A[threadIdx.x] = s[63 - threadIdx.x];
}
