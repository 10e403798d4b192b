//pass
//expect: race

// The loop's initializer declares its own `v`: the butterfly reduces that one, and
// the `v` stored afterwards is each thread's own.
__global__ void sums(const float *in, float *out)
{
    float v = in[blockIdx.x * 32 + threadIdx.x] + threadIdx.x;
    for (int o = 16, v = 1; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffff, v, o);
    out[blockIdx.x] = v; //~ race(out)
}

int main()
{
    float *in, *out;
    sums<<<4, 32>>>(in, out);
    return 0;
}
