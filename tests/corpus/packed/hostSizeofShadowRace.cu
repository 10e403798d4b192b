//expect: race

// `sizeof(real)` names the local `char real`, 1 byte, not the file's typedef of
// `double`: 256 threads, and `o[t % 64]` is written by four threads each.
typedef double real;

__global__ void fold64(float *o)
{
    o[threadIdx.x % 64] = threadIdx.x;          //~ race(o)
}

void run(float *o)
{
    char real = 0;
    fold64<<<1, 256 / sizeof(real)>>>(o);
}
