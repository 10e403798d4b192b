//--blockDim=128 --gridDim=16
//expect: race
//note: the barrier after the bisection step is missing: thread 0 counts open intervals while the other threads still move their bounds.

// (Racy twin of bisectIntervals.cu.) Eigenvalues of a symmetric tridiagonal matrix by bisection, one interval per thread:
// each round halves every interval with a Sturm count (a loop over the matrix), a
// thread-0 pass counts the intervals still wider than eps, and the rounds go on while
// any is open. The trip count of the round loop depends on the data, but every thread
// reads the same `s_open`, so the barriers in it are reached by all threads.

#define BLOCK 128

__global__ void bisectIntervalsRacy(const float *diag, const float *offsq, float *lo_out, float *hi_out,
                                int n, float eps)
{
    __shared__ float s_lo[BLOCK];
    __shared__ float s_hi[BLOCK];
    __shared__ unsigned int s_below[BLOCK];
    __shared__ int s_open;
    const unsigned int t = threadIdx.x;
    const unsigned int g = blockIdx.x * BLOCK + t;
    s_lo[t] = lo_out[g];
    s_hi[t] = hi_out[g];
    if (t == 0) {
        s_open = 1;
    }
    __syncthreads();
    while (s_open > 0) {
        float mid = 0.5f * (s_lo[t] + s_hi[t]);
        unsigned int below = 0;
        float d = 1.0f;
        for (int i = 0; i < n; ++i) {
            d = diag[i] - mid - offsq[i] / d;
            if (d < 0.0f) {
                ++below;
            }
        }
        s_below[t] = below;
        __syncthreads();
        if (s_below[t] > t) {
            s_hi[t] = mid; //~ race(s_hi)
        } else {
            s_lo[t] = mid; //~ race(s_lo)
        }
        if (t == 0) {
            int open = 0;
            for (int j = 0; j < BLOCK; ++j) {
                if (s_hi[j] - s_lo[j] > eps) { //~ race(s_hi) race(s_lo)
                    ++open;
                }
            }
            s_open = open;
        }
        __syncthreads();
    }
    lo_out[g] = s_lo[t];
    hi_out[g] = s_hi[t];
}
