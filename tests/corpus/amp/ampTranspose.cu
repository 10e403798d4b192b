//fail
//--blockDim=[16,16] --gridDim=[4,4]
//expect: race

// C++ AMP simple transpose ported with an off-by-one in the destination row:
// neighbouring threads of different rows write the same element.
__global__ void transpose_simple(const float *in, float *out, int n)
{
    __requires(n == 64);
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int r = x * n + y;
    if (y > 0) r = x * n + y - 1;
    out[r] = in[y * n + x]; //~ race(out)
}
