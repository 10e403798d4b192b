//pass
//--blockDim=256 --gridDim=16
//expect: verified

// Radix digits through a union view of a key: the key is written as a word and
// read back as bytes; every thread owns one slot of the shared staging array.
union KeyBits {
    unsigned int word;
    unsigned char bytes[4];
};

__global__ void digitHistogram(unsigned int *counts, const unsigned int *keys, int pass)
{
    __requires(pass >= 0 & pass < 4);
    __shared__ KeyBits staged[256];
    __shared__ unsigned int hist[256];
    unsigned int tid = threadIdx.x;
    hist[tid] = 0;
    staged[tid].word = keys[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    KeyBits k = staged[tid];
    atomicAdd(&hist[k.bytes[pass]], 1u);
    __syncthreads();
    counts[blockIdx.x * 256 + tid] = hist[tid];
}
