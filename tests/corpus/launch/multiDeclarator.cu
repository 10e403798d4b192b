//expect: verified

// Each declarator of a declaration has its own initializer: `threads` is 32 here, not
// the 64 declared first. One warp of 32 threads writes 32 distinct cells.
__global__ void fold(int *slots)
{
    slots[threadIdx.x % 32] = threadIdx.x;
}

int main()
{
    int *slots;
    int cells = 64, threads = 32;
    fold<<<1, threads>>>(slots);
    return 0;
}
