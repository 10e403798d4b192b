//pass
//--blockDim=64 --gridDim=256
//expect: verified

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define F(x, y, z) (((x) & (y)) | ((~(x)) & (z)))
#define STEP(a, b, c, d, x, s) { (a) += F((b), (c), (d)) + (x); (a) = ROTL((a), (s)); (a) += (b); }

// MD5-like digest of one 64-byte chunk per thread, staged through shared memory.
__global__ void md5_chunks(const unsigned int *data, unsigned int *digests, int chunkWords)
{
    __requires(chunkWords == 16);
    __shared__ unsigned int chunk[64 * 16];
    const int tid = threadIdx.x;
    const unsigned int base = (blockIdx.x * blockDim.x + tid) * chunkWords;

    for (int w = 0; w < 16; w++)
        chunk[tid * 16 + w] = data[base + w];

    unsigned int a = 0x67452301, b = 0xefcdab89, c = 0x98badcfe, d = 0x10325476;
    for (int r = 0; r < 16; r += 4) {
        STEP(a, b, c, d, chunk[tid * 16 + r + 0], 7);
        STEP(d, a, b, c, chunk[tid * 16 + r + 1], 12);
        STEP(c, d, a, b, chunk[tid * 16 + r + 2], 17);
        STEP(b, c, d, a, chunk[tid * 16 + r + 3], 22);
    }
    digests[4 * (blockIdx.x * blockDim.x + tid) + 0] = a;
    digests[4 * (blockIdx.x * blockDim.x + tid) + 1] = b;
    digests[4 * (blockIdx.x * blockDim.x + tid) + 2] = c;
    digests[4 * (blockIdx.x * blockDim.x + tid) + 3] = d;
}
