//expect: verified

// Causal attention rows: one thread per (batch, head, query) row, taken apart from the
// flat thread number by `/` and `%`; the row writes the keys up to its own query
// (`t2 <= t`), so the key digit is bounded by the query digit, itself below the
// sequence length. The host code launches it with constant extents.
__global__ void causal_rows(float *scores, const float *logits, int batch, int seq, int heads)
{
    int flat = blockIdx.x * blockDim.x + threadIdx.x;
    if (flat < batch * seq * heads) {
        int head = flat % heads;
        int q = (flat / heads) % seq;
        int b = flat / (heads * seq);
        const float *in = logits + b * heads * seq * seq + head * seq * seq + q * seq;
        float *row = scores + b * heads * seq * seq + head * seq * seq + q * seq;
        float peak = -1e30f;
        for (int k = 0; k <= q; k++) {
            peak = fmaxf(peak, in[k]);
        }
        for (int k = 0; k <= q; k++) {
            row[k] = expf(in[k] - peak);
        }
    }
}

int main()
{
    float *scores, *logits;
    int batch = 4;
    int seq = 512;
    int heads = 6;
    int threads = 128;
    int total = batch * seq * heads;
    causal_rows<<<(total + threads - 1) / threads, threads>>>(scores, logits, batch, seq, heads);
    return 0;
}
