//--blockDim=[8,8] --gridDim=[16,16]
//expect: verified

// Eight 8x8 tiles per block (one per threadIdx.y), transformed in place with every
// 8-term sum of the separable DCT written out: thread tx does row tx of its tile, then
// column tx. Rows are padded to 9 floats against bank conflicts. The image is 128 wide.

#define PITCH 128
#define K(k, n) basis[(k) * 8 + (n)]

__constant__ float basis[64];

__global__ void dct8x8RowsColumns(const float *src, float *dst)
{
    __shared__ float blk[64 * 9];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int col = blockIdx.x * 8 + tx;
    const int row0 = (blockIdx.y * 8 + ty) * 8;
    blk[(ty * 8 + 0) * 9 + tx] = src[(row0 + 0) * PITCH + col];
    blk[(ty * 8 + 1) * 9 + tx] = src[(row0 + 1) * PITCH + col];
    blk[(ty * 8 + 2) * 9 + tx] = src[(row0 + 2) * PITCH + col];
    blk[(ty * 8 + 3) * 9 + tx] = src[(row0 + 3) * PITCH + col];
    blk[(ty * 8 + 4) * 9 + tx] = src[(row0 + 4) * PITCH + col];
    blk[(ty * 8 + 5) * 9 + tx] = src[(row0 + 5) * PITCH + col];
    blk[(ty * 8 + 6) * 9 + tx] = src[(row0 + 6) * PITCH + col];
    blk[(ty * 8 + 7) * 9 + tx] = src[(row0 + 7) * PITCH + col];
    __syncthreads();
    float r0 = blk[(ty * 8 + tx) * 9 + 0];
    float r1 = blk[(ty * 8 + tx) * 9 + 1];
    float r2 = blk[(ty * 8 + tx) * 9 + 2];
    float r3 = blk[(ty * 8 + tx) * 9 + 3];
    float r4 = blk[(ty * 8 + tx) * 9 + 4];
    float r5 = blk[(ty * 8 + tx) * 9 + 5];
    float r6 = blk[(ty * 8 + tx) * 9 + 6];
    float r7 = blk[(ty * 8 + tx) * 9 + 7];
    blk[(ty * 8 + tx) * 9 + 0] = K(0,0) * r0 + K(0,1) * r1 + K(0,2) * r2 + K(0,3) * r3 + K(0,4) * r4 + K(0,5) * r5 + K(0,6) * r6 + K(0,7) * r7;
    blk[(ty * 8 + tx) * 9 + 1] = K(1,0) * r0 + K(1,1) * r1 + K(1,2) * r2 + K(1,3) * r3 + K(1,4) * r4 + K(1,5) * r5 + K(1,6) * r6 + K(1,7) * r7;
    blk[(ty * 8 + tx) * 9 + 2] = K(2,0) * r0 + K(2,1) * r1 + K(2,2) * r2 + K(2,3) * r3 + K(2,4) * r4 + K(2,5) * r5 + K(2,6) * r6 + K(2,7) * r7;
    blk[(ty * 8 + tx) * 9 + 3] = K(3,0) * r0 + K(3,1) * r1 + K(3,2) * r2 + K(3,3) * r3 + K(3,4) * r4 + K(3,5) * r5 + K(3,6) * r6 + K(3,7) * r7;
    blk[(ty * 8 + tx) * 9 + 4] = K(4,0) * r0 + K(4,1) * r1 + K(4,2) * r2 + K(4,3) * r3 + K(4,4) * r4 + K(4,5) * r5 + K(4,6) * r6 + K(4,7) * r7;
    blk[(ty * 8 + tx) * 9 + 5] = K(5,0) * r0 + K(5,1) * r1 + K(5,2) * r2 + K(5,3) * r3 + K(5,4) * r4 + K(5,5) * r5 + K(5,6) * r6 + K(5,7) * r7;
    blk[(ty * 8 + tx) * 9 + 6] = K(6,0) * r0 + K(6,1) * r1 + K(6,2) * r2 + K(6,3) * r3 + K(6,4) * r4 + K(6,5) * r5 + K(6,6) * r6 + K(6,7) * r7;
    blk[(ty * 8 + tx) * 9 + 7] = K(7,0) * r0 + K(7,1) * r1 + K(7,2) * r2 + K(7,3) * r3 + K(7,4) * r4 + K(7,5) * r5 + K(7,6) * r6 + K(7,7) * r7;
    __syncthreads();
    float c0 = blk[(ty * 8 + 0) * 9 + tx];
    float c1 = blk[(ty * 8 + 1) * 9 + tx];
    float c2 = blk[(ty * 8 + 2) * 9 + tx];
    float c3 = blk[(ty * 8 + 3) * 9 + tx];
    float c4 = blk[(ty * 8 + 4) * 9 + tx];
    float c5 = blk[(ty * 8 + 5) * 9 + tx];
    float c6 = blk[(ty * 8 + 6) * 9 + tx];
    float c7 = blk[(ty * 8 + 7) * 9 + tx];
    blk[(ty * 8 + 0) * 9 + tx] = K(0,0) * c0 + K(0,1) * c1 + K(0,2) * c2 + K(0,3) * c3 + K(0,4) * c4 + K(0,5) * c5 + K(0,6) * c6 + K(0,7) * c7;
    blk[(ty * 8 + 1) * 9 + tx] = K(1,0) * c0 + K(1,1) * c1 + K(1,2) * c2 + K(1,3) * c3 + K(1,4) * c4 + K(1,5) * c5 + K(1,6) * c6 + K(1,7) * c7;
    blk[(ty * 8 + 2) * 9 + tx] = K(2,0) * c0 + K(2,1) * c1 + K(2,2) * c2 + K(2,3) * c3 + K(2,4) * c4 + K(2,5) * c5 + K(2,6) * c6 + K(2,7) * c7;
    blk[(ty * 8 + 3) * 9 + tx] = K(3,0) * c0 + K(3,1) * c1 + K(3,2) * c2 + K(3,3) * c3 + K(3,4) * c4 + K(3,5) * c5 + K(3,6) * c6 + K(3,7) * c7;
    blk[(ty * 8 + 4) * 9 + tx] = K(4,0) * c0 + K(4,1) * c1 + K(4,2) * c2 + K(4,3) * c3 + K(4,4) * c4 + K(4,5) * c5 + K(4,6) * c6 + K(4,7) * c7;
    blk[(ty * 8 + 5) * 9 + tx] = K(5,0) * c0 + K(5,1) * c1 + K(5,2) * c2 + K(5,3) * c3 + K(5,4) * c4 + K(5,5) * c5 + K(5,6) * c6 + K(5,7) * c7;
    blk[(ty * 8 + 6) * 9 + tx] = K(6,0) * c0 + K(6,1) * c1 + K(6,2) * c2 + K(6,3) * c3 + K(6,4) * c4 + K(6,5) * c5 + K(6,6) * c6 + K(6,7) * c7;
    blk[(ty * 8 + 7) * 9 + tx] = K(7,0) * c0 + K(7,1) * c1 + K(7,2) * c2 + K(7,3) * c3 + K(7,4) * c4 + K(7,5) * c5 + K(7,6) * c6 + K(7,7) * c7;
    __syncthreads();
    dst[(row0 + 0) * PITCH + col] = blk[(ty * 8 + 0) * 9 + tx];
    dst[(row0 + 1) * PITCH + col] = blk[(ty * 8 + 1) * 9 + tx];
    dst[(row0 + 2) * PITCH + col] = blk[(ty * 8 + 2) * 9 + tx];
    dst[(row0 + 3) * PITCH + col] = blk[(ty * 8 + 3) * 9 + tx];
    dst[(row0 + 4) * PITCH + col] = blk[(ty * 8 + 4) * 9 + tx];
    dst[(row0 + 5) * PITCH + col] = blk[(ty * 8 + 5) * 9 + tx];
    dst[(row0 + 6) * PITCH + col] = blk[(ty * 8 + 6) * 9 + tx];
    dst[(row0 + 7) * PITCH + col] = blk[(ty * 8 + 7) * 9 + tx];
}
