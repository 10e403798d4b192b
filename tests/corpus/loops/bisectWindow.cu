//pass
//--blockDim=128 --gridDim=1
//expect: verified

// A bisection window `[lo, hi)` inside the thread's own 8 cells, narrowed by
// `if (..) lo = mid; else hi = mid;` while `lo + 1 < hi`: the mark at `lo`
// stays in the thread's cells.
__global__ void bisectWindow(const int *data, int key)
{
    __shared__ int mark[1024];
    unsigned int tid = threadIdx.x;
    unsigned int lo = tid * 8;
    unsigned int hi = tid * 8 + 8;
    while (lo + 1 < hi) {
        unsigned int mid = (lo + hi) / 2;
        if (data[mid] <= key)
            lo = mid;
        else
            hi = mid;
        mark[lo] = tid;
    }
}
