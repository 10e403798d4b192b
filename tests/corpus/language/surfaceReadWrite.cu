//pass
//--blockDim=256 --gridDim=4
//expect: race

// An in-place 1-D blur on a surface: each thread reads its right neighbour's
// texel and writes its own, with no ordering between the two.
__global__ void blur_in_place(cudaSurfaceObject_t surf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1 < n) {
        float here, right;
        surf1Dread(&here, surf, i * 4);
        surf1Dread(&right, surf, (i + 1) * 4); //~ race(surface)
        surf1Dwrite(0.5f * (here + right), surf, i * 4); //~ race(surface)
    }
}
