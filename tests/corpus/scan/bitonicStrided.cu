//pass
//--blockDim=256 --gridDim=8
//expect: verified

#define LEN 512U

// Bitonic sort of 512 keys per block, two per thread: merge stages of growing size,
// each a sequence of compare-exchange steps with halving stride.
__global__ void sortBlock(unsigned int *keys, unsigned int up)
{
    __shared__ unsigned int s[LEN];
    unsigned int me = threadIdx.x;
    keys += blockIdx.x * LEN;
    s[me] = keys[me];
    s[me + LEN / 2] = keys[me + LEN / 2];

    for (unsigned int width = 2; width <= LEN; width <<= 1) {
        unsigned int ascending = up ^ ((me & (width / 2)) != 0);
        for (unsigned int step = width / 2; step > 0; step >>= 1) {
            __syncthreads();
            unsigned int lo = 2 * me - (me & (step - 1));
            unsigned int x = s[lo];
            unsigned int y = s[lo + step];
            if ((x > y) == ascending) {
                s[lo] = y;
                s[lo + step] = x;
            }
        }
    }
    __syncthreads();
    keys[me] = s[me];
    keys[me + LEN / 2] = s[me + LEN / 2];
}
