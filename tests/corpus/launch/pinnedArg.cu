//expect: verified

// Race-free only because of its launch: `push_ring<<<1, 256>>>(ring, 256, head)`
// passes the constant 256 for `cap`, so the 256 threads of the one block write 256
// distinct slots `(head + t) % cap`. With `--launch symbolic` the ring can be smaller
// than the block (two threads wrap onto one slot) and there can be several blocks.
#include <cuda_runtime.h>

__global__ void push_ring(int *ring, int cap, int head)
{
    int t = threadIdx.x;
    ring[(head + t) % cap] = t * 2 + 1;
}

int main(int argc, char **argv)
{
    int head = argc > 1 ? atoi(argv[1]) : 0;
    int *d_ring;
    cudaMalloc(&d_ring, 256 * sizeof(int));
    push_ring<<<1, 256>>>(d_ring, 256, head);
    cudaDeviceSynchronize();
    return 0;
}
