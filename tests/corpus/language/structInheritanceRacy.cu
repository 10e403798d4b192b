//fail
//--blockDim=64 --gridDim=1
//expect: race

// Like structInheritance, but the base method maps two threads to each slot, and
// they store different values.
struct Shape {
    int offset;
    __device__ int slot(int t) const { return offset + t / 2; }
};

struct Circle : Shape {
    float radius;
};

__global__ void placeShapesRacy(float *area, Circle c)
{
    int t = threadIdx.x;
    area[c.slot(t)] = c.radius * t; //~ race(area)
}
