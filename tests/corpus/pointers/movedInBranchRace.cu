//--blockDim=64 --gridDim=1
//expect: race
// A pointer moved under a condition points into either buffer afterwards: the two are
// checked as one memory, and the unsynchronised neighbour read of `bufB` is caught.
__global__ void maybeMove(float *out, int flag)
{
    __shared__ float bufA[64];
    __shared__ float bufB[64];
    float *p = bufA;
    bufB[threadIdx.x] = (float)threadIdx.x; //~ race(bufB)
    if (flag)
        p = bufB;
    out[threadIdx.x] = p[(threadIdx.x + 1) % 64]; //~ race(bufB)
}
