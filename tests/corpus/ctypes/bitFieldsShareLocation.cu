//--blockDim=32 --gridDim=1
//expect: race

// Adjacent bit-fields are one memory location (C++ [intro.memory]): threads 0 and 1
// writing `lo` and `hi` of one struct race.
struct Flags {
    unsigned lo : 4;
    unsigned hi : 4;
};

__global__ void bitFieldsShareLocation(Flags *p)
{
    unsigned tid = threadIdx.x;
    if (tid == 0)
        p[0].lo = 1;                  //~ race(p)
    if (tid == 1)
        p[0].hi = 2;                  //~ race(p)
}
