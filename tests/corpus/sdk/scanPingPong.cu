//pass
//--blockDim=256 --gridDim=1
//expect: verified
//expect-tool: race (false alarm: the buffers become one array and `in`/`out` offsets that swap every iteration; the verifier havocs them and does not keep in != out)

// Hillis-Steele scan with two shared buffers whose roles swap every step.
__global__ void scan_pingpong(float *g_odata, const float *g_idata)
{
    __shared__ float bufA[256];
    __shared__ float bufB[256];
    float *in = bufA;
    float *out = bufB;
    unsigned int tid = threadIdx.x;

    bufA[tid] = (tid > 0) ? g_idata[tid - 1] : 0.0f;
    __syncthreads();

    for (unsigned int offset = 1; offset < 256; offset <<= 1) {
        if (tid >= offset)
            out[tid] = in[tid] + in[tid - offset]; //~? race(bufA) race(bufB)
        else
            out[tid] = in[tid]; //~? race(bufA) race(bufB)
        __syncthreads();
        float *tmp = in;
        in = out;
        out = tmp;
    }
    g_odata[tid] = in[tid];
}
