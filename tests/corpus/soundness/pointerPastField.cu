//--blockDim=64 --gridDim=1
//expect: race
// `p` points at v.x; p[1] is v.y, which each thread sets to its index: the variable is
// taken as changed when a pointer reaches past the field it points at.
__global__ void k(float *out)
{
    float2 v = make_float2(0.0f, 0.0f);
    float *p = &v.x;
    p[1] = threadIdx.x;
    out[0] = v.y; //~ race(out)
}
