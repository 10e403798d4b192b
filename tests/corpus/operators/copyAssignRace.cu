//expect: race

// `tile[0] = b` copies the struct (C++'s implicit copy assignment), not the file's
// `operator=(float)` reached through the conversion to float: every thread writes
// `tile[0].v`.
struct Sample {
    float v;
    __device__ operator float() const { return v; }
    __device__ Sample &operator=(float x) { return *this; }
};

__global__ void overwrite(float *o)
{
    __shared__ Sample tile[1];
    Sample b;
    b.v = threadIdx.x;
    tile[0] = b;                                         //~ race(tile)
    o[threadIdx.x] = 0.0f;
}

void run(float *o) { overwrite<<<1, 64>>>(o); }
