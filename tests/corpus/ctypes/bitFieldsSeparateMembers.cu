//--blockDim=32 --gridDim=1
//expect: verified

// Members that are not bit-fields are separate memory locations: threads 0 and 1
// writing `lo` and `hi` of one struct do not race.
struct Flags {
    unsigned lo;
    unsigned hi;
};

__global__ void bitFieldsSeparateMembers(Flags *p)
{
    unsigned tid = threadIdx.x;
    if (tid == 0)
        p[0].lo = 1;
    if (tid == 1)
        p[0].hi = 2;
}
