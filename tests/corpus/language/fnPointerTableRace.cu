//pass
//--blockDim=256 --gridDim=16
//expect: race

// Twin of fnPointerTable.cu: the entries write through the buffer they are
// given, and one of them writes the neighbour's element, which the owner of
// that element writes too.
typedef void (*writer)(float *, int);

__device__ void write_own(float *p, int i) { p[i] = 1.0f; }      //~ race(data)
__device__ void write_next(float *p, int i) { p[i + 1] = 2.0f; } //~ race(data)

__global__ void apply_writers(float *data, int which)
{
    writer table[2] = {write_own, write_next};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    table[which & 1](data, i);
}
