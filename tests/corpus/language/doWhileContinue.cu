//pass
//--blockDim=64 --gridDim=1
//expect: verified

// A do/while whose odd steps only synchronize: the counter is advanced on both
// the `continue` path and the normal path.
__global__ void oddEvenSteps(int *a)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = a[t];
    int it = 0;
    do {
        __syncthreads();
        if (it & 1) {
            it++;
            continue;
        }
        s[(t + it) % 64] += 1;
        it++;
    } while (it < 4);
    __syncthreads();
    a[t] = s[t];
}
