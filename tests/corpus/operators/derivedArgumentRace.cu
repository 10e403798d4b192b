//expect: race

// A derived struct passed where the base is taken: C++ calls `put(Base, float)`, which
// writes the `__device__` cell every thread writes. The file's structs are never ruled
// out of a call by their names (bases, constructors and conversions let them in).
__device__ float cell[64];

struct Base { int i; };
struct Derived : Base { int j; };

__device__ void put(Base b, float v) { cell[0] = v; } //~ race(cell)

__global__ void spread(float *o)
{
    Derived d;
    d.i = 0;
    d.j = 1;
    put(d, (float)threadIdx.x);
}

void run(float *o) { spread<<<1, 64>>>(o); }
