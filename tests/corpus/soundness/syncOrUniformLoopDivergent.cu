//--blockDim=64 --gridDim=1
//expect: divergence

// The same loop on the thread's own flag: threads leave it at different times, and the
// barrier inside is reached by some of them only.
__global__ void relax(int *dist)
{
    __shared__ int d[64];
    unsigned t = threadIdx.x;
    d[t] = dist[t]; //~ race(d)
    int changed = 1;
    while (__syncthreads_or(changed) && changed) { //~ divergence
        int candidate = d[(t + 63) % 64] + 1; //~ race(d)
        __syncthreads(); //~ divergence
        changed = candidate < d[t];
        if (changed)
            d[t] = candidate; //~ race(d)
    }
    dist[t] = d[t];
}
