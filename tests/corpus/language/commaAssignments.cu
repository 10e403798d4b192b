//pass
//--blockDim=64 --gridDim=1
//expect: verified

// The comma operator with assignments inside: in a subscript, in a loop condition,
// on the right of an assignment; and assignments and increments used as values.
__global__ void commaMix(int *x, int *y, int n)
{
    __shared__ int s[64];
    int i = threadIdx.x;
    int j = 0, b = 0, c = 3, a;
    s[(j = i + 1, i)] = j;
    a = (b++, c);
    for (j = 1; x[0], j < n; j++) { b += j; }
    int k = (j = i, s[j]);
    __syncthreads();
    y[i] = (s[(i + 1) % 64] += 0, a + b + k);
}
