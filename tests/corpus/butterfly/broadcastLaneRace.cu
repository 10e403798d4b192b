//pass
//expect: race

// Twin of broadcastLane0.cu: each lane takes the value of the lane after it
// (`threadIdx.x + 1`, not a constant lane), so the lanes store different values.
__global__ void warp_max_slots(const int *in, int *slots)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o /= 2)
        v = max(v, __shfl_down_sync(0xffffffff, v, o));
    v = __shfl_sync(0xffffffff, v, threadIdx.x + 1);
    slots[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v; //~ race(slots)
}

int main()
{
    int *in, *slots;
    warp_max_slots<<<16, 128>>>(in, slots);
    return 0;
}
