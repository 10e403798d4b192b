//pass
//--blockDim=256 --gridDim=64
//expect: verified

// Each block handles a segment whose length thread 0 loads into shared memory;
// every thread runs the same number of chunks (the loop counts chunks, not
// elements), so the barriers in the loop are uniform.

#define SEG 4096

__global__ void segmentSums(const int *lens, const int *data, int *sums)
{
    __shared__ int len;
    __shared__ int chunk[256];
    __shared__ int acc;
    unsigned int tid = threadIdx.x;

    if (tid == 0) {
        len = min(lens[blockIdx.x], SEG);
        acc = 0;
    }
    __syncthreads();
    for (int base = 0; base < len; base += blockDim.x) {
        int i = base + tid;
        chunk[tid] = i < len ? data[blockIdx.x * SEG + i] : 0;
        __syncthreads();
        if (tid == 0) {
            int s = 0;
            for (int j = 0; j < 256; j++)
                s += chunk[j];
            acc += s;
        }
        __syncthreads();
    }
    if (tid == 0)
        sums[blockIdx.x] = acc;
}
