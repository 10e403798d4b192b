// Shared helpers of some corpus kernels (the benchmark collection ships small local
// headers like this one next to its kernels).
#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H

#define IMUL(a, b) __mul24(a, b)
#define UMUL(a, b) __umul24(a, b)

typedef unsigned int uint;
typedef unsigned char uchar;

static __device__ __inline__ uint lane_of(uint tid) { return tid & 31; }

#endif
