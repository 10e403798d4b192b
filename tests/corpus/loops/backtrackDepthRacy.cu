//fail
//--blockDim=64 --gridDim=4
//expect: race

// Backtracking with a depth that goes up (push while below 8) and down (pop,
// or stop at the root): `0 <= d` and `d + 1 <= 8` hold at every iteration, so
// a push at depth 8 writes the next thread's first cell (the test is off by one).
__global__ void backtrackDepthRacy(const int *choices, int *found)
{
    __shared__ int stack[64 * 8];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * blockDim.x + tid;
    int d = 0;
    int steps = 0;
    while (steps < 100) {
        steps++;
        int v = choices[g * 100 + steps];
        if (v > 0 && d < 8) {
            stack[tid * 8 + d + 1] = v; //~ race(stack)
            d++;
        } else if (d > 0) {
            d--;
        } else {
            break;
        }
    }
    found[g] = stack[tid * 8 + d]; //~ race(stack)
}
