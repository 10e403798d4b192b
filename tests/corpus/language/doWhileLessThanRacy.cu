//fail
//--blockDim=64 --gridDim=1
//expect: race

// Like doWhileLessThan, but the ring is written inside the loop while others read it.
__global__ void scanRingRacy(int *s, int *out, int n)
{
    __shared__ int ring[8];
    int t = threadIdx.x;
    int i = 0;
    do {
        if (t < 8) ring[t] = s[t] + i; //~ race(ring)
        i++;
    } while (i < n && ring[(t + 1) % 8] >= 0); //~ race(ring)
    out[t] = i;
}
