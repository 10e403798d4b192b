//--blockDim=64 --gridDim=4
//expect: race

// The vector store covers two cells but the stride is one: thread i's second cell is
// thread i + 1's first.
__global__ void pairs(const float *in, float *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[i];
    asm volatile("st.global.v2.f32 [%0], {%1, %2};" :: "l"(&out[i]), "f"(a), "f"(a + 1.0f) : "memory"); //~ race(out)
}
