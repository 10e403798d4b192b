//--blockDim=64 --gridDim=1
//expect: race

// The PTX string's `//` comment runs into the next literal (C joins adjacent literals
// with nothing between them), so the barrier is commented out: the store is not
// published before the neighbour's read.
__global__ void publish(int *out)
{
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    asm volatile("st.shared.u32 [%0], %1;   // store, then wait for everyone " //~ race(s)
                 "bar.sync 0;"
                 :: "l"(&s[t]), "r"(t));
    out[t] = s[(t + 1) % 64]; //~ race(s)
}
