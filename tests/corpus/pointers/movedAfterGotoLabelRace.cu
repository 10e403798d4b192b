//--blockDim=64 --gridDim=1
//expect: race
// `p` is declared in the statements a forward `goto` may skip; after the label a loop
// moves it to `b`, so from the second iteration on the loop writes `b`, racing with the
// neighbour's store after the loop. (The goto is never taken: threadIdx.x < 64.)
__global__ void k(float *a, float *b, int n)
{
    if (threadIdx.x >= 1000)
        goto L;
    float *p;
    p = a;
L:
    for (int i = 0; i < n; i++) {
        p[threadIdx.x] = 2.0f; //~ race(b)
        p = b;
    }
    b[(threadIdx.x + 1) % 64] = 1.0f; //~ race(b)
}
