//--blockDim=64 --gridDim=1
//expect: verified

// Relaxation until no thread changes: `__syncthreads_or` gives every thread of the block
// the same answer, so the loop and the barrier inside it never diverge.
__global__ void relax(int *dist)
{
    __shared__ int d[64];
    unsigned t = threadIdx.x;
    d[t] = dist[t];
    int changed = 1;
    while (__syncthreads_or(changed)) {
        int candidate = d[(t + 63) % 64] + 1;
        __syncthreads();
        changed = candidate < d[t];
        if (changed)
            d[t] = candidate;
    }
    dist[t] = d[t];
}
