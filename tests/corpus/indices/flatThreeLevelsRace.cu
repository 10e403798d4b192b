//expect: race

// Twin of flatThreeLevels.cu with the token stride written as `T` instead of `V`: the
// rows overlap whenever T < V. With T = 2, V = 3 (B = 1), thread 3 (b 0, t 1, v 0)
// writes cell 2, and so does thread 2 (t 0, v 2).
#include <cuda_runtime.h>

__global__ void softmax_grad(float *dlogits, const float *probs, const float *dloss,
                             int B, int T, int V)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * T * V) {
        int b = i / (T * V);
        int t = (i / V) % T;
        int v = i % V;
        float *row = dlogits + b * T * V + t * T;
        row[v] += probs[i] * dloss[b * T + t];  //~ race(dlogits)
    }
}
