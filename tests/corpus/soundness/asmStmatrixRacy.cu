//--blockDim=64 --gridDim=1
//expect: race

// A collective store into a staging buffer that the threads then read back, with no
// barrier in between.
__global__ void stage(const unsigned *in, unsigned short *out)
{
    __shared__ unsigned short staging[512];
    unsigned t = threadIdx.x;
    unsigned v = in[t];
    unsigned dst = (unsigned)__cvta_generic_to_shared(&staging[(t % 8) * 8]);
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(dst), "r"(v) : "memory"); //~ race(staging)
    out[t] = staging[t * 8]; //~ race(staging)
}
