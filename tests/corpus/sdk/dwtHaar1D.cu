//pass
//--blockDim=256 --gridDim=4
//expect: verified

// One-dimensional Haar wavelet: each block decomposes 512 signal values over
// several levels in shared memory; thread 0 writes the approximation.
__global__ void dwtHaar1D(float *id, float *od, float *approx_final, const unsigned int dlevels,
                          const unsigned int slength_step_half, const int bdim)
{
    __requires(dlevels == 9);
    __requires(slength_step_half == 1024);
    __requires(bdim == 256);
    extern __shared__ float shared[];
    const int gdim = gridDim.x;
    const int bid = blockIdx.x;
    const int tid = threadIdx.x;
    const int tid_global = (bid * bdim) + tid;
    unsigned int idata = (bid * (2 * bdim)) + tid;

    shared[tid] = id[idata];
    shared[tid + bdim] = id[idata + bdim];
    __syncthreads();

    float data0 = shared[2 * tid];
    float data1 = shared[(2 * tid) + 1];
    __syncthreads();

    od[tid_global + slength_step_half] = (data0 - data1) * 0.7071067811865475f;

    unsigned int atid = tid + (tid >> 4);
    shared[atid] = (data0 + data1) * 0.7071067811865475f;
    __syncthreads();

    if (dlevels > 1) {
        unsigned int offset_neighbor = 1;
        unsigned int num_threads = bdim >> 1;
        unsigned int idata0 = tid * 2;
        for (unsigned int i = 1; i < dlevels; ++i) {
            if (tid < num_threads) {
                unsigned int idata1 = idata0 + offset_neighbor;
                unsigned int g_wpos = (num_threads * gdim) + (bid * num_threads) + tid;
                unsigned int c_idata0 = idata0 + (idata0 >> 4);
                unsigned int c_idata1 = idata1 + (idata1 >> 4);
                od[g_wpos] = (shared[c_idata0] - shared[c_idata1]) * 0.7071067811865475f;
                shared[c_idata0] = (shared[c_idata0] + shared[c_idata1]) * 0.7071067811865475f;
                num_threads = num_threads >> 1;
                offset_neighbor <<= 1;
                idata0 = idata0 << 1;
            }
            __syncthreads();
        }
        if (0 == tid) approx_final[bid] = shared[0];
    }
}
