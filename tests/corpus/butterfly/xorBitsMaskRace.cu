//pass
//expect: race

// Twin of xorBits.cu whose shuffles name only the low 16 lanes: not a butterfly of
// the whole warp (and undefined for the other lanes), so the lanes are not known to
// agree.
__global__ void warp_bits(const unsigned *flags, unsigned *per_warp)
{
    unsigned v = flags[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o >= 1; o >>= 1) {
        v = __shfl_xor_sync(0xffffu, v, o) | v;
    }
    per_warp[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v; //~ race(per_warp)
}

int main()
{
    unsigned *flags, *per_warp;
    warp_bits<<<64, 256>>>(flags, per_warp);
    return 0;
}
