//--blockDim=64 --gridDim=4
//expect: verified

// Each thread stores a float2 of its own with one vector store: the two cells it covers
// are its own.
__global__ void pairs(const float *in, float *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[i];
    asm volatile("st.global.v2.f32 [%0], {%1, %2};" :: "l"(&out[2 * i]), "f"(a), "f"(a + 1.0f) : "memory");
}
