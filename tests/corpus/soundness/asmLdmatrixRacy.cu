//--blockDim=64 --gridDim=1
//expect: race

// The same collective load with the barrier forgotten: other lanes' rows are read
// while their owners may still be writing them.
__global__ void tileFragments(const unsigned short *in, unsigned *out)
{
    __shared__ unsigned short tile[64 * 8];
    unsigned t = threadIdx.x;
    for (int j = 0; j < 8; j++)
        tile[j * 64 + t] = in[j * 64 + t]; //~ race(tile)
    unsigned row = (unsigned)__cvta_generic_to_shared(&tile[(t % 8) * 8]);
    unsigned frag;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(frag) : "r"(row)); //~ race(tile)
    out[t] = frag;
}
