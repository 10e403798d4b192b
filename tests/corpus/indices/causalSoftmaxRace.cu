//expect: race

// Twin of causalSoftmax.cu: the second loop writes one key too many, so the last query
// of a head writes past its row, into the first cell of the next head's first row.
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
        for (int k = 0; k <= q + 1; k++) {
            row[k] = expf(in[k] - peak); //~ race(scores)
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
