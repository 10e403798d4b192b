//pass
//--blockDim=[8,8] --gridDim=[16,16]
//expect: verified

#define NKR 33
#define ITS 1
#define ITE 128
#define JTS 1
#define JTE 128

__constant__ float xl[NKR];
__constant__ float rlec[NKR];

// Warm-rain microphysics column loop: each thread owns one (i,j) column and
// updates its levels in place; neighbours only read coefficients.
__global__ void coal_bott_new(float *ff1r, float *tt, int kts, int kte, int ims, int ime, int jms, int jme)
{
    __requires(kts == 1);
    __requires(kte == 32);
    __requires(ims == 0);
    __requires(ime == 128);
    __requires(jms == 0);
    __requires(jme == 128);
    int i = blockIdx.x * blockDim.x + threadIdx.x + ITS;
    int j = blockIdx.y * blockDim.y + threadIdx.y + JTS;
    if (i > ITE - 1 || j > JTE - 1) return;
    int ncol = (ime - ims) * (jme - jms);
    int col = (j - jms) * (ime - ims) + (i - ims);

    for (int k = kts; k <= kte; k++) {
        float t = tt[col + k * ncol];
        if (t < 213.0f) continue;
        float g[NKR];
        for (int kr = 0; kr < NKR; kr++) g[kr] = ff1r[(col + k * ncol) * NKR + kr] * xl[kr] * xl[kr] * 3.0f;
        for (int kr = NKR - 2; kr >= 0; kr--) {
            float gain = g[kr] * rlec[kr];
            g[kr + 1] += gain;
            g[kr] -= gain;
        }
        for (int kr = 0; kr < NKR; kr++) ff1r[(col + k * ncol) * NKR + kr] = g[kr] / (3.0f * xl[kr] * xl[kr]);
    }
}
