//--blockDim=64 --gridDim=1
//expect: race

// `Warp::sync()` is the struct's static method (a warp barrier), not the free `sync()`
// of the same name (a block barrier).
__device__ void sync() { __syncthreads(); }

struct Warp {
    static __device__ void sync() { __syncwarp(); }
};

__global__ void halves(int *out)
{
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    s[t] = t; //~ race(s)
    Warp::sync();
    out[t] = s[(t + 32) % 64]; //~ race(s)
}
