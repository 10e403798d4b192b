//expect: verified

// Causal softmax in place, one thread per (batch, head, query) row: the first loop
// writes the exponentials of the keys up to the query, the second scales them and
// clears the rest of the row. The two loops index the row with different counters, so
// a write of one thread in the first loop and a write of another in the second have
// different index terms with the same digits. Launched from the host code.
__global__ void causal_normalize(float *att, int batch, int seq, int heads)
{
    int flat = blockIdx.x * blockDim.x + threadIdx.x;
    if (flat >= batch * heads * seq) {
        return;
    }
    int head = flat % heads;
    int q = (flat / heads) % seq;
    int b = flat / (heads * seq);
    float *row = att + (b * heads + head) * seq * seq + q * seq;
    float total = 0.0f;
    for (int k = 0; k <= q; k++) {
        float e = expf(row[k]);
        row[k] = e;
        total += e;
    }
    float inv = 1.0f / total;
    for (int k2 = 0; k2 < seq; k2++) {
        if (k2 <= q) {
            row[k2] = row[k2] * inv;
        } else {
            row[k2] = 0.0f;
        }
    }
}

int main()
{
    float *att;
    int batch = 2;
    int seq = 256;
    int heads = 4;
    int threads = 64;
    int rows = batch * heads * seq;
    causal_normalize<<<(rows + threads - 1) / threads, threads>>>(att, batch, seq, heads);
    return 0;
}
