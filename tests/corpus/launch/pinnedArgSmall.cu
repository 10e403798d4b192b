//expect: race

// Twin of pinnedArg.cu: the ring has 200 slots for 256 threads, so threads t and
// t + 200 write the same slot.
#include <cuda_runtime.h>

#define RING_SLOTS 200

__global__ void push_ring(int *ring, int cap, int head)
{
    int t = threadIdx.x;
    ring[(head + t) % cap] = t * 2 + 1;         //~ race(ring)
}

int main(int argc, char **argv)
{
    int head = argc > 1 ? atoi(argv[1]) : 0;
    int *d_ring;
    cudaMalloc(&d_ring, RING_SLOTS * sizeof(int));
    push_ring<<<1, 256>>>(d_ring, RING_SLOTS, head);
    cudaDeviceSynchronize();
    return 0;
}
