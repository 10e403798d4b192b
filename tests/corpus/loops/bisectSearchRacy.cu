//fail
//--blockDim=64 --gridDim=8
//expect: race

// Each thread bisects its own sorted segment of 16 keys (`lo = mid + 1` or
// `hi = mid` under a data-dependent test) and marks the insertion point in its
// row of 16 cells: an insertion point of 16 is the next thread's first cell.
__global__ void bisectSearchRacy(const int *keys, const int *queries, int *rows)
{
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    int key = queries[t];
    int lo = 0;
    int hi = 16;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (keys[t * 16 + mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    rows[t * 16 + lo] = key; //~ race(rows)
}
