//expect: race

// An `unsigned char` member initialized with 257 holds 1: thread t writes s[t] and
// reads s[t + 1], its neighbour's.
struct Step { static constexpr unsigned char stride = 257; };

__global__ void shiftRead(float *o)
{
    __shared__ float s[1024];
    int t = threadIdx.x;
    s[t * Step::stride] = 1.0f;                 //~ race(s)
    o[t] = s[t * Step::stride + 1];             //~ race(s)
}

void run(float *o) { shiftRead<<<1, 64>>>(o); }
