//fail
//--blockDim=32 --gridDim=4
//expect: race

// Like memsetSlices, but the slices are `width` ints apart while each `memset` fills
// `width + 1` of them with the thread's own byte: neighbouring threads write a common
// int with different values.
__global__ void clearSlicesRacy(int *hist, int width)
{
    __requires(width > 0);
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    memset(&hist[g * width], g & 0x7f, (width + 1) * sizeof(int)); //~ race(hist)
}
