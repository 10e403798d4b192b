//--blockDim=64 --gridDim=1
//expect: race
// `keep` copies the pointer before it moves to the other buffer: it still points into
// `bufA`, whose neighbouring element another thread writes unsynchronised.
__global__ void keepOld(float *out)
{
    __shared__ float bufA[64];
    __shared__ float bufB[64];
    float *p = bufA;
    float *keep = p;
    p = bufB;
    p[threadIdx.x] = 1.0f;
    bufA[threadIdx.x] = (float)threadIdx.x; //~ race(bufA)
    out[threadIdx.x] = keep[(threadIdx.x + 1) % 64] + p[threadIdx.x]; //~ race(bufA)
}
