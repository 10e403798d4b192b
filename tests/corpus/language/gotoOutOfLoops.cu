//pass
//--blockDim=128 --gridDim=1
//expect: verified

// A search that leaves two nested loops with `goto found` and writes its own slot;
// a barrier after the label orders the writes before the neighbours read them.
__global__ void firstMatch(int *pos, const int *table, int rows, int cols)
{
    __shared__ int hit[128];
    int t = threadIdx.x;
    int where = -1;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            if (table[r * cols + c] == t) {
                where = r * cols + c;
                goto found;
            }
        }
    }
found:
    hit[t] = where;
    __syncthreads();
    pos[t] = hit[(t + 1) % 128];
}
