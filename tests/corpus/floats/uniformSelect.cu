//--blockDim=32 --gridDim=64
//expect: verified
// A flag chosen by a launch-uniform condition, as a double and a float: every writer
// stores the same one.
__global__ void setFlags(const int *count, double *dflag, float *fflag, int limit)
{
    dflag[0] = (limit > 16) ? 0.5 : 0.25;
    fflag[0] = limit > 16 ? 1.0f : -1.0f;
}
