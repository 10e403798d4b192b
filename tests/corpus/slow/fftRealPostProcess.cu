//--blockDim=256 --gridDim=64
//expect: verified

// Post-processing of a real-input FFT computed as a half-length complex FFT: bin k and
// bin N - k of the half-length result combine, with a twiddle factor, into bins k and
// N - k of the real signal's spectrum. Thread k (1 <= k < N/2) owns the pair (k, N - k);
// thread 0 owns bins 0 and N/2. Real and imaginary parts live in separate arrays.

#define N 512

__constant__ float twr[N];
__constant__ float twi[N];

__global__ void fftRealPostProcess(const float *in_re, const float *in_im, float *out_re, float *out_im)
{
    __shared__ float re[N];
    __shared__ float im[N];
    const unsigned int k = threadIdx.x;
    const unsigned int base = blockIdx.x * N;
    re[k] = in_re[base + k];
    im[k] = in_im[base + k];
    re[k + N / 2] = in_re[base + k + N / 2];
    im[k + N / 2] = in_im[base + k + N / 2];
    __syncthreads();
    if (k == 0) {
        float r0 = re[0];
        float i0 = im[0];
        float rh = re[N / 2];
        float ih = im[N / 2];
        re[0] = r0 + i0;
        im[0] = 0.0f;
        re[N / 2] = rh;
        im[N / 2] = -ih;
    } else {
        float ar = re[k];
        float ai = im[k];
        float br = re[N - k];
        float bi = im[N - k];
        float sr = 0.5f * (ar + br);
        float si = 0.5f * (ai - bi);
        float dr = 0.5f * (ai + bi);
        float di = -0.5f * (ar - br);
        float tr = twr[k] * dr - twi[k] * di;
        float ti = twr[k] * di + twi[k] * dr;
        re[k] = sr + tr;
        im[k] = si + ti;
        re[N - k] = sr - tr;
        im[N - k] = -(si - ti);
    }
    __syncthreads();
    out_re[base + k] = re[k];
    out_im[base + k] = im[k];
    out_re[base + k + N / 2] = re[k + N / 2];
    out_im[base + k + N / 2] = im[k + N / 2];
}
