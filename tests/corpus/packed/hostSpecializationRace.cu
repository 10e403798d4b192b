//expect: race

// The host sizes the block with `Pack<float>::size`, which the explicit specialization
// makes 1 (the primary template says 4): 64 threads, and `o[t % 16]` is written by four
// threads each. Reading the primary template's 4 checked 16 threads only.
template <class T> struct Pack { static constexpr int size = 4; };
template <> struct Pack<float> { static constexpr int size = 1; };

__global__ void fold16(float *o)
{
    o[threadIdx.x % 16] = threadIdx.x;          //~ race(o)
}

void run(float *o) { fold16<<<1, 64 / Pack<float>::size>>>(o); }
