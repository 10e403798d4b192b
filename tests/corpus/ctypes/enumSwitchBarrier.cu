//--blockDim=128 --gridDim=4
//expect: verified

enum Phase { Init, Run, Done };

// A barrier under a switch on a parameter: every thread takes the same case.
__global__ void enumSwitchBarrier(float *A, Phase ph)
{
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = A[blockIdx.x * 128 + t];
    switch (ph) {
    case Run:
        __syncthreads();
        A[blockIdx.x * 128 + t] = s[127 - t];
        break;
    default:
        break;
    }
}
