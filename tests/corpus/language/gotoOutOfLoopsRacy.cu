//fail
//--blockDim=128 --gridDim=1
//expect: race

// Like gotoOutOfLoops, but a thread that finds a match writes the shared slot of the
// next thread from inside the loops, with no barrier before that thread reads it.
__global__ void firstMatchRacy(int *pos, const int *table, int rows, int cols)
{
    __shared__ int hit[128];
    int t = threadIdx.x;
    hit[t] = -1;
    __syncthreads();
    int r = 0;
    while (r < rows) {
        for (int c = 0; c < cols; c++) {
            if (table[r * cols + c] == t) {
                hit[(t + 1) % 128] = r; //~ race(hit)
                goto out;
            }
        }
        r++;
    }
out:
    pos[t] = hit[t]; //~ race(hit)
}
