//expect: race

// A struct whose member is an array, copied whole out of shared memory: the copy reads
// every element of the member array. Before, the copy read nothing (the member array
// decayed to a pointer), so this race between the neighbour's writes and the copy was
// not seen. (The tag is never written: only the member array races.)
struct Sample { float ch[4]; int tag; };

__global__ void shiftSamples(Sample *out)
{
    __shared__ Sample tile[64];
    int t = threadIdx.x;
    tile[t].ch[0] = 1.0f;                      //~ race(tile)
    tile[t].ch[3] = 2.0f;                      //~ race(tile)
    Sample s = tile[(t + 1) % 64];             //~ race(tile)
    out[t].tag = s.tag;
}

void run(Sample *o) { shiftSamples<<<1, 64>>>(o); }
