//pass
//expect: verified

// A down-shuffle reduction leaves the total in lane 0 only; `__shfl_sync(FULL, v, 0)`
// then gives every lane lane 0's value, and all lanes store it into the warp's slot.
__global__ void warp_max_slots(const int *in, int *slots)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o /= 2)
        v = max(v, __shfl_down_sync(0xffffffff, v, o));
    v = __shfl_sync(0xffffffff, v, 0);
    slots[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

int main()
{
    int *in, *slots;
    warp_max_slots<<<16, 128>>>(in, slots);
    return 0;
}
