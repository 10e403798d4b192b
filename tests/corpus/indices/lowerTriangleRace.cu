//expect: race

// Twin of lowerTriangle.cu: the keys run to `col + V`, past the thread's own block of
// V cells and into the next column's.
__global__ void lower_triangle(float *out, const float *w, int V)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    if (col >= V) {
        return;
    }
    float acc = 0.0f;
    for (int j = 0; j < col + V; j++) {
        acc += w[j];
        out[(row * V + col) * V + j] = acc; //~ race(out)
    }
}
