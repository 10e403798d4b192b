//pass
//--blockDim=128 --gridDim=4
//expect: race

// One launch names its tile width, the other passes the host template's own
// parameter through: the host code's call `run<16>` binds it, so the kernel is also
// checked as `stage<16>`, which has the race of narrow tiles. (A host template
// that no call in the file instantiates leaves the kernel's `TILE` symbolic.)
template <int TILE>
__global__ void stage(float *out, const float *in)
{
    __shared__ float s[128];
    s[threadIdx.x % TILE] = in[blockIdx.x * 128 + threadIdx.x]; //~ race(s)
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = s[threadIdx.x % TILE];
}

template <int W>
void run(float *o, const float *i)
{
    stage<W><<<4, 128>>>(o, i);
}

void host(float *o, const float *i)
{
    stage<128><<<4, 128>>>(o, i);
    run<16>(o, i);
}
