//--blockDim=512 --gridDim=1
//expect: verified

// Twin of narrowUcharIndex: an `unsigned short` holds every thread index.
__global__ void narrowUshortIndex(float *A)
{
    __shared__ float s[512];
    unsigned short c = threadIdx.x;
    s[c] = A[threadIdx.x];
    __syncthreads();
    A[threadIdx.x] = s[511 - threadIdx.x];
}
