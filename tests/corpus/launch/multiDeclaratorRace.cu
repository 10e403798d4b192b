//expect: race

// Twin of multiDeclarator.cu: `threads` is 64 (not the 32 declared first), and threads
// `t` and `t + 32` write the same cell.
__global__ void fold(int *slots)
{
    slots[threadIdx.x % 32] = threadIdx.x; //~ race(slots)
}

int main()
{
    int *slots;
    int cells = 32, threads = 64;
    fold<<<1, threads>>>(slots);
    return 0;
}
