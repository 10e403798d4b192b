//pass
//--blockDim=256 --gridDim=128
//expect: verified

typedef unsigned int u32;

__constant__ u32 Te0[256];
__constant__ u32 Te1[256];
__constant__ u32 Te2[256];
__constant__ u32 Te3[256];

#define BYTE0(x) ((x) & 0xff)
#define BYTE1(x) (((x) >> 8) & 0xff)
#define BYTE2(x) (((x) >> 16) & 0xff)
#define BYTE3(x) ((x) >> 24)

// AES rounds with the T-tables copied to shared memory by the block.
__global__ void aesEncrypt128(uint4 *states, const u32 *rk)
{
    __shared__ u32 t0[256], t1[256], t2[256], t3[256];
    __shared__ u32 key[44];
    const int tid = threadIdx.x;

    t0[tid] = Te0[tid];
    t1[tid] = Te1[tid];
    t2[tid] = Te2[tid];
    t3[tid] = Te3[tid];
    if (tid < 44) key[tid] = rk[tid];
    __syncthreads();

    uint4 st = states[blockIdx.x * blockDim.x + tid];
    u32 s0 = st.x ^ key[0];
    u32 s1 = st.y ^ key[1];
    u32 s2 = st.z ^ key[2];
    u32 s3 = st.w ^ key[3];

    for (int r = 1; r < 10; r++) {
        u32 u0 = t0[BYTE3(s0)] ^ t1[BYTE2(s1)] ^ t2[BYTE1(s2)] ^ t3[BYTE0(s3)] ^ key[4 * r + 0];
        u32 u1 = t0[BYTE3(s1)] ^ t1[BYTE2(s2)] ^ t2[BYTE1(s3)] ^ t3[BYTE0(s0)] ^ key[4 * r + 1];
        u32 u2 = t0[BYTE3(s2)] ^ t1[BYTE2(s3)] ^ t2[BYTE1(s0)] ^ t3[BYTE0(s1)] ^ key[4 * r + 2];
        u32 u3 = t0[BYTE3(s3)] ^ t1[BYTE2(s0)] ^ t2[BYTE1(s1)] ^ t3[BYTE0(s2)] ^ key[4 * r + 3];
        s0 = u0; s1 = u1; s2 = u2; s3 = u3;
    }

    states[blockIdx.x * blockDim.x + tid] = make_uint4(s0 ^ key[40], s1 ^ key[41], s2 ^ key[42], s3 ^ key[43]);
}
