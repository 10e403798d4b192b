//pass
//--blockDim=[16,8] --gridDim=[32,64]
//expect: verified

#define MAXATOMS 4000
#define UNROLLX 8

__constant__ float4 atominfo[MAXATOMS];

// Coulombic potential on a 2-D lattice slice; each thread computes UNROLLX points.
__global__ void cenergy(int numatoms, float gridspacing, float *energygrid)
{
    __requires(numatoms <= MAXATOMS);
    unsigned int xindex = __umul24(blockIdx.x, blockDim.x) * UNROLLX + threadIdx.x;
    unsigned int yindex = __umul24(blockIdx.y, blockDim.y) + threadIdx.y;
    unsigned int outaddr = (__umul24(gridDim.x, blockDim.x) * UNROLLX) * yindex + xindex;

    float coory = gridspacing * yindex;
    float coorx = gridspacing * xindex;
    float energyvalx1 = 0.0f, energyvalx2 = 0.0f, energyvalx3 = 0.0f, energyvalx4 = 0.0f;
    float energyvalx5 = 0.0f, energyvalx6 = 0.0f, energyvalx7 = 0.0f, energyvalx8 = 0.0f;
    float gridspacing_u = gridspacing * blockDim.x;

    for (int atomid = 0; atomid < numatoms; atomid++) {
        float dy = coory - atominfo[atomid].y;
        float dyz2 = (dy * dy) + atominfo[atomid].z;
        float dx1 = coorx - atominfo[atomid].x;
        float dx2 = dx1 + gridspacing_u;
        float dx3 = dx2 + gridspacing_u;
        float dx4 = dx3 + gridspacing_u;
        float dx5 = dx4 + gridspacing_u;
        float dx6 = dx5 + gridspacing_u;
        float dx7 = dx6 + gridspacing_u;
        float dx8 = dx7 + gridspacing_u;
        energyvalx1 += atominfo[atomid].w * rsqrtf(dx1 * dx1 + dyz2);
        energyvalx2 += atominfo[atomid].w * rsqrtf(dx2 * dx2 + dyz2);
        energyvalx3 += atominfo[atomid].w * rsqrtf(dx3 * dx3 + dyz2);
        energyvalx4 += atominfo[atomid].w * rsqrtf(dx4 * dx4 + dyz2);
        energyvalx5 += atominfo[atomid].w * rsqrtf(dx5 * dx5 + dyz2);
        energyvalx6 += atominfo[atomid].w * rsqrtf(dx6 * dx6 + dyz2);
        energyvalx7 += atominfo[atomid].w * rsqrtf(dx7 * dx7 + dyz2);
        energyvalx8 += atominfo[atomid].w * rsqrtf(dx8 * dx8 + dyz2);
    }

    energygrid[outaddr] += energyvalx1;
    energygrid[outaddr + 1 * blockDim.x] += energyvalx2;
    energygrid[outaddr + 2 * blockDim.x] += energyvalx3;
    energygrid[outaddr + 3 * blockDim.x] += energyvalx4;
    energygrid[outaddr + 4 * blockDim.x] += energyvalx5;
    energygrid[outaddr + 5 * blockDim.x] += energyvalx6;
    energygrid[outaddr + 6 * blockDim.x] += energyvalx7;
    energygrid[outaddr + 7 * blockDim.x] += energyvalx8;
}
