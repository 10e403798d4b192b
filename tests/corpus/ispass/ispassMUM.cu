//pass
//--blockDim=256 --gridDim=64
//expect: verified

typedef struct PixelOfNode {
    union {
        ulong4 bits;
        struct {
            unsigned char parent[3];
            unsigned char suffix[3];
            unsigned char start[3];
            unsigned char end[3];
            unsigned char depth[2];
            unsigned char pad[2];
        };
    };
} PixelOfNode;

typedef struct MatchCoord {
    int node;
    int edge_match_length;
} MatchCoord;

#define GETCHILD(c) tex2D(childrentex, (float)(c), 0.0f)
#define CHECKQUERY(c) if ((c) == 0) break

texture<uint4, 2, cudaReadModeElementType> nodetex;
texture<uint4, 2, cudaReadModeElementType> childrentex;
texture<char, 1, cudaReadModeElementType> reftex;

__device__ int addr2id(unsigned int addr) { return (int)(addr & 0xFFFF) | ((addr >> 16) << 16); }

// Walks the suffix tree (read through textures) for one query per thread and
// records the deepest match.
__global__ void mummergpuKernel(MatchCoord *match_coords, char *queries, const int *queryAddrs,
                                const int *queryLengths, const int numQueries, const int min_match_len)
{
    int qryid = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (qryid >= numQueries) return;

    int qlen = queryLengths[qryid];
    const char *qrystart = queries + queryAddrs[qryid];
    int cur = 1;
    int mlen = 0;
    PixelOfNode node;

    for (int qry_match_len = 0; qry_match_len < qlen; qry_match_len++) {
        char c = qrystart[qry_match_len];
        CHECKQUERY(c);
        uint4 child = GETCHILD(cur);
        node.bits = make_ulong4(child.x, child.y, child.z, child.w);
        int depth = node.depth[0] | (node.depth[1] << 8);
        cur = addr2id(node.start[0] | (node.start[1] << 8) | (node.start[2] << 16));
        if (cur == 0) break;
        mlen = depth;
    }

    if (mlen >= min_match_len) {
        match_coords[qryid].node = cur;
        match_coords[qryid].edge_match_length = mlen;
    }
}
