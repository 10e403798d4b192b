//--blockDim=64 --gridDim=4
//expect: verified

// A file's `double` atomicAdd for old architectures overloads CUDA's; the `int` call
// is still CUDA's atomic.
__device__ double atomicAdd(double *address, double val)
{
    unsigned long long *bits = (unsigned long long *)address;
    unsigned long long old = *bits, seen;
    do {
        seen = old;
        old = atomicCAS(bits, seen, __double_as_longlong(val + __longlong_as_double(seen)));
    } while (seen != old);
    return __longlong_as_double(old);
}

__global__ void count(int *total, int *out)
{
    atomicAdd(&total[0], 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
