//--blockDim=[32,4] --gridDim=[4,4]
// Kernels in the style of the gpgpu-sim ISPASS 2009 benchmarks: a 3-D Laplace stencil
// with a halo in shared memory (LPS), a Coulombic potential sum over atoms in constant
// memory (CP), and a byte-oriented hash over unsigned char buffers (STO).

#define BLOCK_X 32
#define BLOCK_Y 4
#define IOFF 1
#define JOFF (BLOCK_X + 2)
#define KOFF ((BLOCK_X + 2) * (BLOCK_Y + 2))
#define INDEX(i, j, j_off) ((i) + (j) * (j_off))

__global__ void GPU_laplace3d(int NX, int NY, int NZ, int pitch, float *d_u1, float *d_u2)
{
    int indg, indg_h, indg0;
    int i, j, k, ind, ind_h, halo, active;
    float u2, sixth = 1.0f / 6.0f;

    __shared__ float u1[3 * KOFF];

    // thread and block indices
    k = threadIdx.x + threadIdx.y * BLOCK_X;
    halo = k < 2 * (BLOCK_X + BLOCK_Y + 2);

    if (halo) {
        if (threadIdx.y < 2) {
            i = threadIdx.x;
            j = threadIdx.y * (BLOCK_Y + 1) - 1;
        } else {
            i = (k % 2) * (BLOCK_X + 1) - 1;
            j = k / 2 - BLOCK_X - 1;
        }
        ind_h = INDEX(i + 1, j + 1, JOFF) + KOFF;
        i = INDEX(i, blockIdx.x, BLOCK_X);
        j = INDEX(j, blockIdx.y, BLOCK_Y);
        indg_h = INDEX(i, j, pitch);
        halo = (i >= 0) && (i < NX) && (j >= 0) && (j < NY);
    }

    i = threadIdx.x;
    j = threadIdx.y;
    ind = INDEX(i + 1, j + 1, JOFF) + KOFF;
    i = INDEX(i, blockIdx.x, BLOCK_X);
    j = INDEX(j, blockIdx.y, BLOCK_Y);
    indg = INDEX(i, j, pitch);
    active = (i < NX) && (j < NY);

    if (active) u1[ind + KOFF] = d_u1[indg];
    if (halo) u1[ind_h + KOFF] = d_u1[indg_h];

    for (k = 0; k < NZ; k++) {
        if (active) {
            ind = ind - KOFF;
            indg0 = indg;
            indg = INDEX(indg, NY, pitch);
            u1[ind] = u1[ind + KOFF];
            u1[ind + KOFF] = u1[ind + 2 * KOFF];
            if (k < NZ - 1)
                u1[ind + 2 * KOFF] = d_u1[indg];
        }
        if (halo) {
            ind_h = ind_h - KOFF;
            indg_h = INDEX(indg_h, NY, pitch);
            u1[ind_h] = u1[ind_h + KOFF];
            u1[ind_h + KOFF] = u1[ind_h + 2 * KOFF];
            if (k < NZ - 1)
                u1[ind_h + 2 * KOFF] = d_u1[indg_h];
        }

        __syncthreads();

        if (active) {
            if (i == 0 || i == NX - 1 || j == 0 || j == NY - 1 || k == 0 || k == NZ - 1) {
                u2 = u1[ind + KOFF];
            } else {
                u2 = (u1[ind - IOFF + KOFF] + u1[ind + IOFF + KOFF]
                    + u1[ind - JOFF + KOFF] + u1[ind + JOFF + KOFF]
                    + u1[ind] + u1[ind + 2 * KOFF]) * sixth;
            }
            d_u2[indg0] = u2;
        }
        __syncthreads();
    }
}

#define MAXATOMS 4000
__constant__ float4 atominfo[MAXATOMS];

__global__ void cenergy(int numatoms, float gridspacing, float *energygrid)
{
    unsigned int xindex = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    unsigned int yindex = __umul24(blockIdx.y, blockDim.y) + threadIdx.y;
    unsigned int outaddr = __umul24(gridDim.x, blockDim.x) * yindex + xindex;

    float curenergy = energygrid[outaddr];
    float coorx = gridspacing * xindex;
    float coory = gridspacing * yindex;
    int atomid;
    float energyval = 0.0f;
    for (atomid = 0; atomid < numatoms; atomid++) {
        float dx = coorx - atominfo[atomid].x;
        float dy = coory - atominfo[atomid].y;
        energyval += atominfo[atomid].w * rsqrtf(dx * dx + dy * dy + atominfo[atomid].z);
    }
    energygrid[outaddr] = curenergy + energyval;
}

typedef unsigned char uchar;
#define CHUNK 64

__device__ unsigned int rotl(unsigned int x, int c) { return (x << c) | (x >> (32 - c)); }

__global__ void hash_chunks(uchar *d_input, unsigned int *d_output, int chunks)
{
    __shared__ uchar chunk[BLOCK_X * BLOCK_Y][CHUNK];
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    int c = blockIdx.x * (BLOCK_X * BLOCK_Y) + t;
    if (c >= chunks)
        return;
    // Copy the thread's chunk word by word.
    unsigned int *src = (unsigned int *)(d_input + c * CHUNK);
    unsigned int *dst = (unsigned int *)chunk[t];
    for (int w = 0; w < CHUNK / 4; w++)
        dst[w] = src[w];
    unsigned int h = 0x67452301;
    for (int b = 0; b < CHUNK; b++)
        h = rotl(h ^ chunk[t][b], 5);
    d_output[c] = h;
}
