//pass
//--blockDim=256 --gridDim=16
//expect: verified
//expect-tool: race (false alarm: `rank` comes from the block scan the kernel computes itself, a permutation of the thread ids in every execution; the verifier reads shared memory as arbitrary values)

#define CTA_SIZE 256
#define WARP_SIZE 32

typedef unsigned int uint;

// Block-wide exclusive scan built from per-warp scans (with a barrier between
// every step, so no warp-synchronous assumption) and a scan of warp totals.
__device__ uint scanBlock(uint val, uint *s_data)
{
    uint idx = threadIdx.x;
    s_data[idx] = val;
    __syncthreads();
    for (uint offset = 1; offset < CTA_SIZE; offset <<= 1) {
        uint t = (idx >= offset) ? s_data[idx - offset] : 0;
        __syncthreads();
        s_data[idx] += t;
        __syncthreads();
    }
    uint res = s_data[idx] - val;
    __syncthreads();
    return res;
}

// Split step of radix sort on one bit: keys whose bit is 0 go first.
__global__ void radixSortBlocks(uint4 *keysOut, uint4 *keysIn, uint nbits, uint startbit)
{
    __requires(nbits == 4);
    __requires(startbit == 0);
    __shared__ uint sMem[4 * CTA_SIZE];
    __shared__ uint numtrue;

    uint4 key = keysIn[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();

    for (uint shift = startbit; shift < (startbit + nbits); ++shift) {
        uint lsb = !((key.x >> shift) & 0x1);
        uint r = scanBlock(lsb, sMem);
        if (threadIdx.x == CTA_SIZE - 1) numtrue = r + lsb;
        __syncthreads();
        uint rank = lsb ? r : numtrue + threadIdx.x - r;
        sMem[rank] = key.x; //~? race(sMem)
        __syncthreads();
        key.x = sMem[threadIdx.x];
        __syncthreads();
    }
    keysOut[blockIdx.x * blockDim.x + threadIdx.x] = key;
}
