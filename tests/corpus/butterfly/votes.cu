//pass
//expect: verified

// Full-warp votes and reductions give every lane one result: the ballot of the warp
// and its count (`__reduce_add_sync`) are stored by all lanes into the warp's slots.
__global__ void warp_votes(const int *in, unsigned *masks, int *counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int hit = in[i] > 0;
    unsigned m = __ballot_sync(0xffffffff, hit);
    int n = __reduce_add_sync(0xffffffff, hit);
    masks[i / 32] = m;
    counts[i / 32] = n;
}

int main()
{
    int *in, *counts;
    unsigned *masks;
    warp_votes<<<16, 256>>>(in, masks, counts);
    return 0;
}
