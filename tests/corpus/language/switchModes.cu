//pass
//--blockDim=128 --gridDim=32
//expect: verified

#define OP_COPY 0
#define OP_SHIFT 1
#define OP_REVERSE 2

// A block-wide permutation selected by a uniform mode; each mode stages the
// data in shared memory and reads it back permuted after a barrier.
__global__ void permute(float *out, const float *in, int mode)
{
    __shared__ float buf[128];
    unsigned int t = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + t;
    buf[t] = in[g];
    __syncthreads();
    float v;
    switch (mode) {
    case OP_COPY:
        v = buf[t];
        break;
    case OP_SHIFT: {
        unsigned int src = (t + 1) % 128;
        v = buf[src];
        break;
    }
    case OP_REVERSE: {
        v = buf[127 - t];
        __syncthreads();
        buf[t] = v;
        __syncthreads();
        v = buf[t] + buf[127 - t];
        break;
    }
    default:
        v = 0.0f;
    }
    out[g] = v;
}
