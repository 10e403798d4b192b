//pass
//--blockDim=64 --gridDim=1
//expect: verified

// A scan left by `break` before anything is assigned in the iteration: after
// the loop `pos` is the head value of the last iteration (at most 64), not an
// arbitrary value, so each thread's slot row of 65 cells is its own.
__global__ void breakScan(const int *keys, int *slot)
{
    unsigned int tid = threadIdx.x;
    int pos = 0;
    while (pos < 64) {
        if (keys[pos] == (int)tid)
            break;
        pos++;
    }
    slot[tid * 65 + pos] = tid;
}
