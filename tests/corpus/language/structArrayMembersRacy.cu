//fail
//--blockDim=64 --gridDim=1
//expect: race

struct Vertex { float x, y, z; };

// A `float *` into an array of vertices that steps past the thread's own vertex:
// `v[3]` is the next thread's `x`.
__global__ void gatherRowsRacy(float *out, Vertex *verts)
{
    int e = threadIdx.x;
    float *v = &verts[e].x;
    v[3] = out[e]; //~ race(verts)
    out[e] = v[0]; //~ race(verts)
}
