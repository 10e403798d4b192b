//fail
//--blockDim=64 --gridDim=1
//expect: race

// A scan left by `break` before anything is assigned in the iteration: after
// the loop `pos` is the head value of the last iteration (at most 64), not an
// arbitrary value; but rows of 64 cells leave no room for the "not found" 64.
__global__ void breakScanRacy(const int *keys, int *slot)
{
    unsigned int tid = threadIdx.x;
    int pos = 0;
    while (pos < 64) {
        if (keys[pos] == (int)tid)
            break;
        pos++;
    }
    slot[tid * 64 + pos] = tid; //~ race(slot)
}
