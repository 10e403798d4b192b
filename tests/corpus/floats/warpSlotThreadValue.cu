//--blockDim=256 --gridDim=4
//expect: race
// warpSlotConstant with each thread storing its own index: the writers of one slot
// store different values.
__global__ void markWarps(float *out)
{
    __shared__ float seen[8];
    seen[threadIdx.x / 32] = (float)threadIdx.x; //~ race(seen)
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < 8; ++w)
            total += seen[w];
        out[blockIdx.x] = total;
    }
}
