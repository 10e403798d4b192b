//pass
//--blockDim=64 --gridDim=4
//expect: verified

// Backtracking with a depth that goes up (push while below 8) and down (pop,
// or stop at the root): `0 <= d` and `d + 1 <= 8` hold at every iteration, so
// the pushes stay in the thread's own 8 stack cells.
__global__ void backtrackDepth(const int *choices, int *found)
{
    __shared__ int stack[64 * 8];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + tid;
    int d = 0;
    int steps = 0;
    while (steps < 100) {
        steps++;
        int v = choices[g * 100 + steps];
        if (v > 0 && d + 1 < 8) {
            stack[tid * 8 + d + 1] = v;
            d++;
        } else if (d > 0) {
            d--;
        } else {
            break;
        }
    }
    found[g] = stack[tid * 8 + d];
}
