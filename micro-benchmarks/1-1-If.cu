//--blockDim=8 --gridDim=1
// AutoSync micro-benchmark 1:1-If (paper Fig. 6): the racing read and write sit in
// conditionals whose guards depend on the thread id, so a barrier inside either one
// would diverge. One race, fixed by one barrier between the two conditionals.

__global__ void if_race(int *A) {
    __shared__ int s[10];
    unsigned int t = threadIdx.x;
    int x = 0;
    if (t % 2 == 0) {
        x = s[t + 2];
    }
    __syncthreads();
    if (t % 6 == 0) {
        s[t] = x;
    }
    A[t] = x;
}
