//pass
//--blockDim=128 --gridDim=1
//expect: verified

#define MAX_THREADS_BLOCK 128

// Bisection step of the eigenvalue sample: every thread splits its interval and
// stores the half that still contains eigenvalues into the left or the right
// list, chosen through a pointer.
__global__ void bisectStep(float *g_left, float *g_right, const float *g_d, unsigned int n, float lg, float ug)
{
    __requires(n == 128);
    __shared__ float s_left[MAX_THREADS_BLOCK];
    __shared__ float s_right[MAX_THREADS_BLOCK];
    __shared__ unsigned int s_count[MAX_THREADS_BLOCK];
    unsigned int tid = threadIdx.x;

    s_left[tid] = lg;
    s_right[tid] = ug;
    s_count[tid] = 0;
    __syncthreads();

    float mid = 0.5f * (s_left[tid] + s_right[tid]);
    unsigned int cnt = 0;
    for (unsigned int k = 0; k < n; ++k)
        if (g_d[k] < mid) ++cnt;

    float *target = (cnt > tid) ? s_right : s_left;
    __syncthreads();
    target[tid] = mid;
    s_count[tid] = cnt;
    __syncthreads();

    g_left[tid] = s_left[tid];
    g_right[tid] = s_right[tid];
}
