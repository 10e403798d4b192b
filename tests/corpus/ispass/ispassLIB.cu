//pass
//--blockDim=64 --gridDim=64
//expect: verified

#define NN 80
#define NMAT 40
#define NOPT 15

__constant__ int maturities[NOPT];
__constant__ float delta;
__constant__ float swaprates[NOPT];
__constant__ float lambda[NN];

// LIBOR market model path: per-thread rate and discount arrays in local memory.
__device__ void path_calc(int N, float *L, float *z)
{
    for (int n = 0; n < N; n++) {
        float sqez = sqrtf(delta) * z[n];
        float v = 0.0f;
        for (int i = n + 1; i < NN; i++) {
            float lam = lambda[i - n - 1];
            float con1 = delta * lam;
            v += (con1 * L[i]) / (1.0f + delta * L[i]);
            float vrat = __expf(con1 * v + lam * (sqez - 0.5f * con1));
            L[i] = L[i] * vrat;
        }
    }
}

__device__ float portfolio(float *L)
{
    float B = 1.0f, S = 0.0f, v = 0.0f;
    for (int n = NMAT; n < NN; n++) {
        B = B / (1.0f + delta * L[n]);
        S = S + delta * B;
        for (int m = 0; m < NOPT; m++)
            if (n + 1 == maturities[m]) v += fmaxf(swaprates[m] * S - 1.0f + B, 0.0f);
    }
    return v;
}

__global__ void Pathcalc_Portfolio_KernelGPU(float *d_v, float *d_Lb, const float *d_z, int npath)
{
    const int tid = blockDim.x * blockIdx.x + threadIdx.x;
    const int threadN = blockDim.x * gridDim.x;
    float L[NN], z[NN];

    for (int path = tid; path < npath; path += threadN) {
        for (int i = 0; i < NN; i++) {
            z[i] = d_z[path + i * npath];
            L[i] = 0.05f;
        }
        path_calc(NMAT, L, z);
        d_v[path] = portfolio(L);
        d_Lb[path] = L[NN - 1];
    }
}
