//expect: race

// `operator[]` returns a proxy by value, and the proxy's `operator=` (defined out of
// its class) writes the shared element: `v[(t + 1) % 64] = 1` writes the neighbour's
// cell, which the neighbour reads.
struct Cell {
    int i;
    __device__ Cell &operator=(float x);
};

__shared__ float s[64];

__device__ Cell &Cell::operator=(float x) { s[i] = x; return *this; } //~ race(s)

struct View {
    __device__ Cell operator[](int i) { return Cell{i}; }
};

__global__ void shiftWrite(float *o)
{
    View v;
    int t = threadIdx.x;
    v[(t + 1) % 64] = 1.0f;
    o[t] = s[t];                                //~ race(s)
}

void run(float *o) { shiftWrite<<<1, 64>>>(o); }
