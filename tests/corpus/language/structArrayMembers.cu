//pass
//--blockDim=64 --gridDim=1
//expect: verified

// Array members of structs: a 2-D table in a struct passed by value, a matrix in
// `__constant__` memory, and pointers to a smaller element type into arrays of
// vectors and structs.
struct Table { int p[8][64]; };
struct Mat { float m[4]; };
struct Vertex { float x, y, z; };

__constant__ Mat M;

__global__ void gatherRows(float *out, Table q, float3 *vertlist, Vertex *verts)
{
    int e = threadIdx.x;
    float *v = &vertlist[e].x;
    Vertex *v0 = &verts[e];
    float s = q.p[4][e] + q.p[e % 8][0] + M.m[0] + M.m[e % 4];
    v[2] = s;
    v0->y = v[0] + v0->x;
    out[e] = v[1];
}
