//pass
//--blockDim=32 --gridDim=8
//expect: verified

__device__ int twice(int x)
{
    __requires(x >= 0);
    __ensures(__return_val_int() == 2 * x);
    return 2 * x;
}

__device__ void store(float *p, int i, float v)
{
    __requires(__ptr_base(p) == __ptr_base(p));
    __writes_to(p);
    p[i] = v;
}

// Helper functions carrying pre- and postconditions.
__global__ void useContracts(float *data)
{
    __function_wide_invariant(__write_implies(data, __write_offset_bytes(data) / sizeof(float) >= 0));
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int j = twice(gid);
    store(data, j, 1.0f);
    store(data, j + 1, 2.0f);
    __global_assert(true);
}
