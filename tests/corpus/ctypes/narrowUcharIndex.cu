//--blockDim=512 --gridDim=1
//expect: race

// An `unsigned char` index wraps at 256: threads t and t+256 share a slot.
__global__ void narrowUcharIndex(float *A)
{
    __shared__ float s[512];
    unsigned char c = threadIdx.x;
    s[c] = A[threadIdx.x]; //~ race(s)
    __syncthreads();
    A[threadIdx.x] = s[511 - threadIdx.x];
}
