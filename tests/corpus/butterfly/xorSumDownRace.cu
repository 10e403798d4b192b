//pass
//expect: race

// Twin of xorSum.cu with `__shfl_down_sync`: only lane 0 ends with the warp's sum,
// the other lanes hold partial sums, and they all store into the warp's slot.
__device__ float warp_sum(float x)
{
    for (int o = 16; o > 0; o /= 2)
        x += __shfl_down_sync(0xffffffff, x, o);
    return x;
}

__global__ void warp_totals(const float *in, float *out)
{
    __shared__ float slot[4];
    float s = warp_sum(in[blockIdx.x * 128 + threadIdx.x]);
    slot[threadIdx.x / 32] = s; //~ race(slot)
    __syncthreads();
    if (threadIdx.x < 4)
        out[blockIdx.x * 4 + threadIdx.x] = slot[threadIdx.x];
}

int main()
{
    float *in, *out;
    warp_totals<<<32, 128>>>(in, out);
    return 0;
}
