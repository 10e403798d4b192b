//--blockDim=128 --gridDim=1
//expect: race
// Twin of loop_value.cu without barriers: a thread in round r + 1 and a thread still
// in round r store different round numbers (and thread 0 reads `round` meanwhile).
__global__ void rounds(int *last, int n)
{
    __shared__ int round;
    for (int r = 0; r < n; r++) {
        round = r; //~ race(round)
        if (threadIdx.x == 0)
            last[r] = round; //~ race(round)
    }
}
