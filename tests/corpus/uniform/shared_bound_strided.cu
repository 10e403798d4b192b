//fail
//--blockDim=256 --gridDim=64
//expect: divergence

// The same segment loop written per element: a thread stops when its own next
// element is past the end, so when the length is not a multiple of the block
// size some threads skip the last barriers.

#define SEG 4096

__global__ void segmentSumsStrided(const int *lens, const int *data, int *sums)
{
    __shared__ int len;
    __shared__ int chunk[256];
    unsigned int tid = threadIdx.x;

    if (tid == 0)
        len = min(lens[blockIdx.x], SEG);
    __syncthreads();
    int mine = 0;
    for (int i = tid; i < len; i += blockDim.x) {
        chunk[tid] = data[blockIdx.x * SEG + i]; //~ race(chunk)
        __syncthreads(); //~ divergence
        mine += chunk[(tid + 1) % 256]; //~ race(chunk)
        __syncthreads(); //~ divergence
    }
    sums[blockIdx.x * 256 + tid] = mine;
}
