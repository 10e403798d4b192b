//pass
//--blockDim=128 --gridDim=1
//expect: verified

// Each thread owns a distinct slot; the assertions use GPUVerify's two-thread view.
__global__ void distinctSlots(int *A, unsigned int offset)
{
    __requires(offset < 128);
    __requires(__uniform_int(offset));
    unsigned int slot = (threadIdx.x + offset) % blockDim.x;
    __assert(__implies(__same_group, __other_int(slot) != slot || __other_int(threadIdx.x) == threadIdx.x));
    __assert(__distinct_int(threadIdx.x));
    A[slot] = threadIdx.x;
    __syncthreads();
    __assert(__no_read(A));
    __assert(__enabled());
    A[(slot + 1) % blockDim.x] += 1;
}
