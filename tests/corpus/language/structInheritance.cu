//pass
//--blockDim=64 --gridDim=1
//expect: verified

// Fields and methods of a base struct, through a derived one passed by value and
// one declared locally; `float3(0)` and `int(x)` are constructor-style casts.
struct Shape {
    int offset;
    __device__ int slot(int t) const { return offset + t; }
};

struct Circle : public Shape {
    float radius;
};

__global__ void placeShapes(float *area, Circle c)
{
    __requires(c.offset >= 0);
    int t = threadIdx.x;
    Circle mine;
    mine.offset = c.offset;
    mine.radius = c.radius * float(t);
    float3 origin = make_float3(0.0f, 0.0f, 0.0f);
    int r = int(mine.radius);
    area[mine.slot(t)] = mine.radius * mine.radius + origin.x + r;
}
