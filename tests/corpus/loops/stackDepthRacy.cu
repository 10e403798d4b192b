//fail
//--blockDim=32 --gridDim=4
//expect: race

// A per-thread stack of 4 entries driven by data: push while `top < 4`, pop
// while `top > 0`; the proved bounds `0 <= top <= 4` keep every access in the
// thread's own entries, but `top <= 4` lets a fifth push into the next thread's.
__global__ void stackDepthRacy(const int *ops, int *res)
{
    __shared__ int stk[32 * 4];
    unsigned int tid = threadIdx.x;
    unsigned int g = blockIdx.x * 32 + tid;
    int top = 0;
    for (int step = 0; step < 32; step++) {
        int op = ops[g * 32 + step];
        if (op > 0) {
            if (top <= 4) {
                stk[tid * 4 + top] = op; //~ race(stk)
                top++;
            }
        } else {
            if (top > 0) {
                top--;
                res[g * 4 + top] = stk[tid * 4 + top]; //~ race(res) race(stk)
            }
        }
    }
}
