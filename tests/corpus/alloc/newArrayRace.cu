//pass
//expect: race

// The twin of newArray.cu whose threads all store their statistics into `stats[0]`:
// private buffers do not hide the race on global memory.
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
    stats[0] = *s;                                                   //~ race(stats)
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
