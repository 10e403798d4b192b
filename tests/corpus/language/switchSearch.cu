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

// A uniform switch whose search case falls through to the store case: every
// thread looks a key up in the shared table, then all overwrite their slot
// after a barrier.
__global__ void lookup(int *a, int mode)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int j = t;
    s[t] = a[t];
    __syncthreads();
    switch (mode) {
    case 1:
        j = find(s, 3);
    case 2:
        __syncthreads();
        s[t] = j;
        break;
    default:
        break;
    }
    __syncthreads();
    a[t] = s[63 - t];
}
