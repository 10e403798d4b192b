//pass
//--blockDim=[8,8,4] --gridDim=[4,4]
//expect: verified

// A 3-D surface and a layered one: each thread owns one (x, y, z) texel of
// uchar4 (4 bytes), and writes its layer of the layered surface.
__global__ void fill_volume(cudaSurfaceObject_t vol, cudaSurfaceObject_t layers)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = threadIdx.z;
    uchar4 c = make_uchar4(x, y, z, 255);
    surf3Dwrite(c, vol, x * 4, y, z);
    surf2DLayeredwrite(c, layers, x * 4, y, z);
    uchar4 back = surf3Dread<uchar4>(vol, x * 4, y, z);
    surf2DLayeredwrite(back, layers, x * 4, y, z);
}
