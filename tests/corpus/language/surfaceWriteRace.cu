//pass
//--blockDim=[16,16] --gridDim=[8,8]
//expect: race

// Twin of surfaceWrite.cu with a classic bug: the x coordinate of a surface
// write is in bytes, so neighbouring threads' 4-byte writes overlap.
__global__ void invert(cudaTextureObject_t in, cudaSurfaceObject_t out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float v = tex2D<float>(in, x + 0.5f, y + 0.5f);
        surf2Dwrite(1.0f - v, out, x, y); //~ race(surface)
    }
}
