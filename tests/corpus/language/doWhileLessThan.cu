//pass
//--blockDim=64 --gridDim=1
//expect: verified

// Loop conditions with a `<` comparison that a C++ parser could take for a template
// argument list (`i < n && s[...] >= 0`, `a < b && c > (d)`).
__global__ void scanRing(int *s, int *out, int n)
{
    __shared__ int ring[8];
    int t = threadIdx.x;
    if (t < 8) ring[t] = s[t];
    __syncthreads();
    int i = 0;
    do {
        i++;
    } while (i < n && ring[(t + i) % 8] >= 0);
    int lo = t, hi = n;
    if (lo < hi && ring[t % 8] > (lo - 1)) i += 1;
    out[t] = i;
}
