//pass
//--blockDim=256 --gridDim=16
//expect: race

// templateFnReduce without the barrier inside the tree: a thread reads its partner's
// partial result while the partner may still be writing it.
__device__ int maxOf(int a, int b) { return a > b ? a : b; }

template <typename T, T (*combine)(T, T)>
__global__ void reduce(const T *in, T *out)
{
    __shared__ T part[256];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (t < s)
            part[t] = combine(part[t], part[t + s]); //~ race(part)
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}

void run(const int *iin, int *iout)
{
    reduce<int, &maxOf><<<16, 256>>>(iin, iout);
}
