//pass
//--blockDim=[16,16] --gridDim=[8,8]
//expect: verified

// Each thread reads one texel through a texture object and writes its own
// texel of the output surface (x in bytes: 4 per float).
__global__ void invert(cudaTextureObject_t in, cudaSurfaceObject_t out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float v = tex2D<float>(in, x + 0.5f, y + 0.5f);
        surf2Dwrite(1.0f - v, out, x * sizeof(float), y);
    }
}
