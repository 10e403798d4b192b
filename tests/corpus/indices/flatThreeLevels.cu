//expect: verified

// A flat thread number taken apart into (batch, token, vocabulary) by `/` and `%` with
// extents that are parameters, and put together again in the same order: every thread
// owns the cell `i` itself. The extents are unknown (no host code), so the index is a
// nonlinear function of them; the digit lemmas prove it one thread's own.
#include <cuda_runtime.h>

__global__ void softmax_grad(float *dlogits, const float *probs, const float *dloss,
                             int B, int T, int V)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T * V) {
        int b = i / (T * V);
        int t = (i / V) % T;
        int v = i % V;
        float *row = dlogits + b * T * V + t * V;
        const float *prow = probs + b * T * V + t * V;
        row[v] += prow[v] * dloss[b * T + t];
    }
}
