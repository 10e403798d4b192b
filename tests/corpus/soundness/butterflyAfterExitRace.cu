//pass
//expect: race

// The lanes past `n` return before the butterfly: the survivors' shuffles from the
// exited lanes read undefined values, so the last warp's lanes need not agree.
__global__ void sums(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffff, v, o);
    out[i / 32] = v; //~ race(out)
}

int main()
{
    float *in, *out;
    sums<<<4, 128>>>(in, out, 500);
    return 0;
}
