//expect: verified

// Each thread owns a (row, col) pair and fills the lower triangle of its own V-cell
// block of `out`: keys `j < col`, where `col` is bounded by the guard. The key digit is
// bounded by another digit, not by a parameter. Any launch (no host code).
__global__ void lower_triangle(float *out, const float *w, int V)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    if (col >= V) {
        return;
    }
    float acc = 0.0f;
    for (int j = 0; j < col; j++) {
        acc += w[j];
        out[(row * V + col) * V + j] = acc;
    }
}
