//pass
//expect: verified

// A xor butterfly over offsets 16..1 leaves the warp's sum in every lane, and every
// lane stores it into the warp's slot (equal values: a benign race).
__device__ float warp_sum(float x)
{
    for (int o = 16; o > 0; o /= 2)
        x += __shfl_xor_sync(0xffffffff, x, o);
    return x;
}

__global__ void warp_totals(const float *in, float *out)
{
    __shared__ float slot[4];
    float s = warp_sum(in[blockIdx.x * 128 + threadIdx.x]);
    slot[threadIdx.x / 32] = s;
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
