#ifndef HISTOGRAM_COMMON_H
#define HISTOGRAM_COMMON_H

typedef unsigned int uint;
typedef unsigned char uchar;

#define HISTOGRAM64_BIN_COUNT 64
#define HISTOGRAM256_BIN_COUNT 256

#define LOG2_WARP_SIZE 5U

// 24-bit multiplies are faster on old hardware.
#define UMUL(a, b) __umul24((a), (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

#endif
