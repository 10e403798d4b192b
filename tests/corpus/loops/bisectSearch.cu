//pass
//--blockDim=64 --gridDim=8
//expect: verified

// Each thread bisects its own sorted segment of 16 keys (`lo = mid + 1` or
// `hi = mid` under a data-dependent test) and marks the insertion point in its
// own row of 17 cells: `0 <= lo <= hi <= 16` is proved from the loop guard.
__global__ void bisectSearch(const int *keys, const int *queries, int *rows)
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
    rows[t * 17 + lo] = key;
}
