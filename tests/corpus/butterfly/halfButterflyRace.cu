//pass
//expect: race

// Twin of xorSum.cu whose butterfly starts at offset 8: the two halves of a warp end
// with their own sums, and both store into the warp's slot.
__global__ void warp_totals(const float *in, float *out)
{
    __shared__ float slot[4];
    float x = in[blockIdx.x * 128 + threadIdx.x];
    for (int o = 8; o > 0; o /= 2)
        x += __shfl_xor_sync(0xffffffff, x, o);
    slot[threadIdx.x / 32] = x; //~ race(slot)
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
