//--blockDim=128 --gridDim=1
//expect: verified

// A PTX load of the neighbour's element through a pointer operand, after a barrier
// written in PTX as well.
__global__ void shiftLeft(const float *in, float *out)
{
    __shared__ float buf[128];
    unsigned t = threadIdx.x;
    buf[t] = in[t];
    asm volatile("bar.sync 0;" ::: "memory");
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(&buf[(t + 1) % 128]));
    out[t] = v;
}
