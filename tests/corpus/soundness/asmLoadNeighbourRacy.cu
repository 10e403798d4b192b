//--blockDim=128 --gridDim=1
//expect: race

// The barrier replaced by a fence: a fence orders this thread's own accesses, it does
// not wait for the neighbour's store.
__global__ void shiftLeft(const float *in, float *out)
{
    __shared__ float buf[128];
    unsigned t = threadIdx.x;
    buf[t] = in[t]; //~ race(buf)
    asm volatile("membar.cta;" ::: "memory");
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(&buf[(t + 1) % 128])); //~ race(buf)
    out[t] = v;
}
