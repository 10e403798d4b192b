//--blockDim=8 --gridDim=1
// AutoSync micro-benchmark 1:1-main (paper Fig. 2): every thread reads its right
// neighbour's element, then overwrites its own. One race (thread t's write against
// thread t-1's read), fixed by one barrier between the read and the write.

__global__ void main_race(int *out) {
    __shared__ int s[9];
    unsigned int t = threadIdx.x;
    int x = s[t + 1];
    __syncthreads();
    x = x + 1;
    s[t] = x;
    out[t] = x;
}
