//pass
//expect: race

// Twin of votes.cu: a ballot over half the warp (mask 0xffff) is not one value for
// the whole warp, and all 32 lanes store it.
__global__ void warp_votes(const int *in, unsigned *masks, int *counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int hit = in[i] > 0;
    unsigned m = __ballot_sync(0xffff, hit);
    int n = __reduce_add_sync(0xffffffff, hit);
    masks[i / 32] = m; //~ race(masks)
    counts[i / 32] = n;
}

int main()
{
    int *in, *counts;
    unsigned *masks;
    warp_votes<<<16, 256>>>(in, masks, counts);
    return 0;
}
