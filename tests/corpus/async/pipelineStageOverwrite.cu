//pass
//expect: race

// The twin of pipelineStage.cu that starts a second stage into the same buffer before
// the block is done reading the first: the second copy may overwrite elements other
// threads are still reading (no barrier between the reads and the new copy).
#include <cuda/pipeline>

__global__ void stageTwice(const double *in, double *out)
{
    __shared__ double stage[128];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int t = threadIdx.x;
    pipe.producer_acquire();
    cuda::memcpy_async(&stage[t], &in[blockIdx.x * 256 + t], sizeof(double), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();
    double first = stage[(t + 64) % 128];                                              //~ race(stage)
    pipe.consumer_release();
    pipe.producer_acquire();
    cuda::memcpy_async(&stage[t], &in[blockIdx.x * 256 + 128 + t], sizeof(double), pipe); //~ race(stage)
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();
    out[blockIdx.x * 128 + t] = first + stage[(t + 64) % 128];
    pipe.consumer_release();
}

int main()
{
    double *in, *out;
    stageTwice<<<10, 128>>>(in, out);
    return 0;
}
