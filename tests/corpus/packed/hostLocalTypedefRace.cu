//expect: race

// The launch's `pk` is the function's own typedef (`Pack<float>`, 16 per pack), not the
// file's (`Pack<char>`, 64): 64 threads, and `o[t % 16]` is written by four each.
template <class T> struct Pack { static constexpr int size = 64 / sizeof(T); };
typedef Pack<char> pk;

__global__ void fold16(float *o)
{
    o[threadIdx.x % 16] = threadIdx.x;          //~ race(o)
}

void run(float *o)
{
    typedef Pack<float> pk;
    fold16<<<1, 1024 / pk::size>>>(o);
}
