//pass
//--blockDim=64 --gridDim=4
//expect: race

// A `__device__` function pointer the host may re-point (cudaMemcpyToSymbol)
// and a local pointer chosen per thread: the tool calls every function whose
// address the file takes. `scatter` makes a thread write into the next
// thread's slot, and the choice between the two differs between threads.
__device__ void gather(int *s, int t) { s[t] = t; }            //~ race(s)
__device__ void scatter(int *s, int t) { s[(t + 1) & 63] = t; } //~ race(s)

__device__ void (*d_step)(int *, int) = gather;

__global__ void step_kernel(int *out)
{
    __shared__ int s[64];
    void (*step)(int *, int) = (threadIdx.x & 1) ? gather : scatter;
    step(s, threadIdx.x);
    __syncthreads();
    d_step(s, threadIdx.x);
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
}
