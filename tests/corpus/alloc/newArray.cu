//pass
//expect: verified

// `new float[n]` per thread for a running prefix of its row, `delete[]` after: private
// memory. Each thread writes only its own row of the output.
struct Stats {
    float sum;
    float max;
};

__global__ void rowPrefix(const float *x, float *y, Stats *stats, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float *acc = new float[cols];
    Stats *s = new Stats;
    s->sum = 0.0f;
    s->max = x[row * cols];
    for (int c = 0; c < cols; ++c) {
        s->sum += x[row * cols + c];
        s->max = fmaxf(s->max, x[row * cols + c]);
        acc[c] = s->sum;
    }
    for (int c = 0; c < cols; ++c)
        y[row * cols + c] = acc[c];
    stats[row] = *s;
    delete s;
    delete[] acc;
}

int main()
{
    const float *x;
    float *y;
    Stats *stats;
    rowPrefix<<<8, 64>>>(x, y, stats, 32);
    return 0;
}
