//fail
//--blockDim=32 --gridDim=4
//expect: race

// Like memsetSlices, but the slices are `width` ints apart while each `memset` clears
// `width + 1` of them: neighbouring threads clear a common int.
__global__ void clearSlicesRacy(int *hist, int width)
{
    __requires(width > 0);
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    memset(&hist[g * width], 0, (width + 1) * sizeof(int)); //~ race(hist)
}
