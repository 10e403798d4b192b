//expect: race

// A block size stored in an `unsigned char` is the literal modulo 256: `288` launches
// 32 threads, which all write cell 0. Taking the literal (288 threads, each its own
// cell) would hide that race; the size is kept unknown instead.
__global__ void pick(int *slots)
{
    if (blockDim.x == 32) {
        slots[0] = threadIdx.x; //~ race(slots)
    } else {
        slots[threadIdx.x] = 0;
    }
}

int main()
{
    int *slots;
    unsigned char threads = 288;
    pick<<<1, threads>>>(slots);
    return 0;
}
