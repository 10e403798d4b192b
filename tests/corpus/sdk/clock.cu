//pass
//--blockDim=256 --gridDim=64
//expect: verified

// Times a shared-memory min reduction with the SM clock.
__global__ static void timedReduction(const float *input, float *output, clock_t *timer)
{
    extern __shared__ float shared[];
    const int tid = threadIdx.x;
    const int bid = blockIdx.x;

    if (tid == 0) timer[bid] = clock();

    shared[tid] = input[tid];
    shared[tid + blockDim.x] = input[tid + blockDim.x];

    for (int d = blockDim.x; d > 0; d /= 2) {
        __syncthreads();
        if (tid < d) {
            float f0 = shared[tid];
            float f1 = shared[tid + d];
            if (f1 < f0) shared[tid] = f1;
        }
    }

    if (tid == 0) output[bid] = shared[0];
    __syncthreads();
    if (tid == 0) timer[bid + gridDim.x] = clock();
}
