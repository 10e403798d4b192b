//fail
//--blockDim=[32,4] --gridDim=[4,25]
//expect: race
//note: the shift of the three k-planes is missing a barrier after the stencil reads: a neighbour may already have overwritten a plane.

#define BLOCK_X 32
#define BLOCK_Y 4
#define IOFF 1
#define JOFF (BLOCK_X + 2)
#define KOFF ((BLOCK_X + 2) * (BLOCK_Y + 2))

// Jacobi step of the 3-D Laplace equation: a 2-D tile with a one-cell halo,
// marching in k; threads load the halo with a second index space.
__global__ void GPU_laplace3d(int NX, int NY, int NZ, int pitch, float *d_u1, float *d_u2)
{
    __requires(NX == 100);
    __requires(NY == 100);
    __requires(NZ == 100);
    __requires(pitch == 128);
    int indg, indg_h, indg0;
    int i, j, k, ind, ind_h, halo, active;
    float u2, sixth = 1.0f / 6.0f;
    int NXM1 = NX - 1;
    int NYM1 = NY - 1;
    int NZM1 = NZ - 1;
    int KOFFG = pitch * NY;

    __shared__ float u1[3 * KOFF];

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
        ind_h = i + 1 + (j + 1) * JOFF + KOFF;
        i = i + blockIdx.x * BLOCK_X;
        j = j + blockIdx.y * BLOCK_Y;
        indg_h = i + j * pitch;
        halo = (i >= 0) && (i < NX) && (j >= 0) && (j < NY);
    }

    i = threadIdx.x;
    j = threadIdx.y;
    ind = i + 1 + (j + 1) * JOFF + KOFF;
    i = i + blockIdx.x * BLOCK_X;
    j = j + blockIdx.y * BLOCK_Y;
    indg = i + j * pitch;
    indg0 = indg;
    active = (i < NX) && (j < NY);

    if (active) u1[ind + KOFF] = d_u1[indg];
    if (halo) u1[ind_h + KOFF] = d_u1[indg_h];

    for (k = 0; k < NZ; k++) {
        if (active) {
            indg_h = indg;
            indg = indg0 + k * KOFFG;
            if (k < NZM1) u1[ind + KOFF] = d_u1[indg + KOFFG];
        }
        if (halo && k < NZM1) u1[ind_h + KOFF] = d_u1[indg_h + KOFFG];
        __syncthreads();

        if (active) {
            if (i == 0 || i == NXM1 || j == 0 || j == NYM1 || k == 0 || k == NZM1) {
                u2 = u1[ind];
            } else {
                u2 = (u1[ind - IOFF] + u1[ind + IOFF] + u1[ind - JOFF] + u1[ind + JOFF] + u1[ind - KOFF] + u1[ind + KOFF]) * sixth; //~ race(u1)
            }
            d_u2[indg] = u2;
            u1[ind - KOFF] = u1[ind];
            u1[ind] = u1[ind + KOFF]; //~ race(u1)
        }
        if (halo) {
            u1[ind_h - KOFF] = u1[ind_h];
            u1[ind_h] = u1[ind_h + KOFF]; //~ race(u1)
        }
        __syncthreads();
    }
}
