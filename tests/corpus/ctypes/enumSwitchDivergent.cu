//--blockDim=128 --gridDim=4
//expect: divergence

enum Phase { Init, Run, Done };

// Twin of enumSwitchBarrier switching on a per-thread Phase: only a third of the threads
// reach the barrier (which then orders nothing).
__global__ void enumSwitchDivergent(float *A)
{
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = A[blockIdx.x * 128 + t]; //~ race(s)
    switch ((Phase)(t % 3)) {
    case Run:
        __syncthreads(); //~ divergence
        A[blockIdx.x * 128 + t] = s[127 - t]; //~ race(s)
        break;
    default:
        break;
    }
}
