//expect: race

// Twin of causalNormalize.cu: the clearing loop runs one key past the row, into the
// first key of the next row, which another thread writes in its first loop.
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
        float e = expf(row[k]); //~ race(att)
        row[k] = e; //~ race(att)
        total += e;
    }
    float inv = 1.0f / total;
    for (int k2 = 0; k2 <= seq; k2++) {
        if (k2 <= q) {
            row[k2] = row[k2] * inv; //~ race(att)
        } else {
            row[k2] = 0.0f; //~ race(att)
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
