//pass
//expect: verified

// A thread-scope cuda::pipeline: each thread acquires a stage, copies its element,
// commits, waits for the stage and then the block's barrier makes every element visible.
// The stage is released after the last read.
#include <cuda/pipeline>

__global__ void stageAndSum(const double *in, double *out, int n)
{
    __shared__ double stage[128];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int t = threadIdx.x;
    pipe.producer_acquire();
    cuda::memcpy_async(&stage[t], &in[blockIdx.x * 128 + t], sizeof(double), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();
    out[blockIdx.x * 128 + t] = stage[t] + stage[(t + 64) % 128];
    pipe.consumer_release();
}

int main()
{
    double *in, *out;
    stageAndSum<<<10, 128>>>(in, out, 1280);
    return 0;
}
