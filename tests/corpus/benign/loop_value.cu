//--blockDim=128 --gridDim=1
//expect: verified
// All threads store the round number each round, with a barrier between rounds: the
// writers of one round agree on the value (a benign race), and rounds are ordered.
__global__ void rounds(int *last, int n)
{
    __shared__ int round;
    for (int r = 0; r < n; r++) {
        round = r;
        __syncthreads();
        if (threadIdx.x == 0)
            last[r] = round;
        __syncthreads();
    }
}
