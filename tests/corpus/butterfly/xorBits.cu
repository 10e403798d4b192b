//pass
//expect: verified

// An integer butterfly written with a shift and the shuffle on the left
// (`v = __shfl_xor_sync(~0u, v, o) | v`): every lane ends with the warp's bits, and
// all lanes of a warp store them into the warp's global slot.
__global__ void warp_bits(const unsigned *flags, unsigned *per_warp)
{
    unsigned v = flags[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o >= 1; o >>= 1) {
        v = __shfl_xor_sync(~0u, v, o) | v;
    }
    per_warp[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

int main()
{
    unsigned *flags, *per_warp;
    warp_bits<<<64, 256>>>(flags, per_warp);
    return 0;
}
