//pass
//--blockDim=64 --gridDim=1
//expect: verified

__device__ int find(const int *s, int v)
{
    for (int i = 0; i < 64; i++) {
        if (s[i] == v) return i;
    }
    return -1;
}

// A uniform switch with an early `break` inside a case: the lookup is skipped
// when the key is negative, otherwise every thread rewrites its slot after a barrier.
__global__ void lookupEarly(int *a, int mode, int key)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int j = t;
    s[t] = a[t];
    __syncthreads();
    switch (mode) {
    case 1:
        if (key < 0) break;
        j = find(s, key);
        __syncthreads();
        s[t] = j;
        break;
    default:
        break;
    }
    __syncthreads();
    s[t] = j;
    __syncthreads();
    a[t] = s[63 - t];
}
