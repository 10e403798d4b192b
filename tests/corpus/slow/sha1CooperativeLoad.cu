//--blockDim=[32,2] --gridDim=[128,1]
//expect: verified

// SHA-1-style hashing of one 64-byte block per thread with a [32,2] thread block. The
// block's 64 x 16 message words are loaded cooperatively and coalesced (word q*64 + f
// goes to the row of thread (q*64 + f) / 16), so a thread's own row is filled by other
// threads: the barrier after the load is needed. The 80-word schedule is then expanded
// in place in the thread's own row of W (pitch 81) and the 80 rounds are written out.

#define NTH 64
#define WP 81
#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define W_(i) W[row + (i)]
#define CH(b, c, d) (((b) & (c)) | (~(b) & (d)))
#define PAR(b, c, d) ((b) ^ (c) ^ (d))
#define MAJ(b, c, d) (((b) & (c)) | ((b) & (d)) | ((c) & (d)))
#define RND(f, k, i)                                          \
    {                                                         \
        unsigned int tmp = ROTL(a, 5) + f(b, c, d) + e + (k) + W_(i); \
        e = d;                                                \
        d = c;                                                \
        c = ROTL(b, 30);                                      \
        b = a;                                                \
        a = tmp;                                              \
    }

__global__ void sha1CooperativeLoad(const unsigned int *msg, unsigned int *digest)
{
    __shared__ unsigned int W[NTH * WP];
    const unsigned int f = threadIdx.y * 32 + threadIdx.x;
    const unsigned int row = f * WP;
    const unsigned int *src = msg + blockIdx.x * (NTH * 16);
    // coalesced cooperative load: thread f moves words f, f + 64, ..., f + 960
    W[((f + 0) >> 4) * WP + ((f + 0) & 15)] = src[f + 0];
    W[((f + 64) >> 4) * WP + ((f + 64) & 15)] = src[f + 64];
    W[((f + 128) >> 4) * WP + ((f + 128) & 15)] = src[f + 128];
    W[((f + 192) >> 4) * WP + ((f + 192) & 15)] = src[f + 192];
    W[((f + 256) >> 4) * WP + ((f + 256) & 15)] = src[f + 256];
    W[((f + 320) >> 4) * WP + ((f + 320) & 15)] = src[f + 320];
    W[((f + 384) >> 4) * WP + ((f + 384) & 15)] = src[f + 384];
    W[((f + 448) >> 4) * WP + ((f + 448) & 15)] = src[f + 448];
    W[((f + 512) >> 4) * WP + ((f + 512) & 15)] = src[f + 512];
    W[((f + 576) >> 4) * WP + ((f + 576) & 15)] = src[f + 576];
    W[((f + 640) >> 4) * WP + ((f + 640) & 15)] = src[f + 640];
    W[((f + 704) >> 4) * WP + ((f + 704) & 15)] = src[f + 704];
    W[((f + 768) >> 4) * WP + ((f + 768) & 15)] = src[f + 768];
    W[((f + 832) >> 4) * WP + ((f + 832) & 15)] = src[f + 832];
    W[((f + 896) >> 4) * WP + ((f + 896) & 15)] = src[f + 896];
    W[((f + 960) >> 4) * WP + ((f + 960) & 15)] = src[f + 960];
    __syncthreads();
    // schedule, in the own row only
    W_(16) = ROTL(W_(13) ^ W_(8) ^ W_(2) ^ W_(0), 1);
    W_(17) = ROTL(W_(14) ^ W_(9) ^ W_(3) ^ W_(1), 1);
    W_(18) = ROTL(W_(15) ^ W_(10) ^ W_(4) ^ W_(2), 1);
    W_(19) = ROTL(W_(16) ^ W_(11) ^ W_(5) ^ W_(3), 1);
    W_(20) = ROTL(W_(17) ^ W_(12) ^ W_(6) ^ W_(4), 1);
    W_(21) = ROTL(W_(18) ^ W_(13) ^ W_(7) ^ W_(5), 1);
    W_(22) = ROTL(W_(19) ^ W_(14) ^ W_(8) ^ W_(6), 1);
    W_(23) = ROTL(W_(20) ^ W_(15) ^ W_(9) ^ W_(7), 1);
    W_(24) = ROTL(W_(21) ^ W_(16) ^ W_(10) ^ W_(8), 1);
    W_(25) = ROTL(W_(22) ^ W_(17) ^ W_(11) ^ W_(9), 1);
    W_(26) = ROTL(W_(23) ^ W_(18) ^ W_(12) ^ W_(10), 1);
    W_(27) = ROTL(W_(24) ^ W_(19) ^ W_(13) ^ W_(11), 1);
    W_(28) = ROTL(W_(25) ^ W_(20) ^ W_(14) ^ W_(12), 1);
    W_(29) = ROTL(W_(26) ^ W_(21) ^ W_(15) ^ W_(13), 1);
    W_(30) = ROTL(W_(27) ^ W_(22) ^ W_(16) ^ W_(14), 1);
    W_(31) = ROTL(W_(28) ^ W_(23) ^ W_(17) ^ W_(15), 1);
    W_(32) = ROTL(W_(29) ^ W_(24) ^ W_(18) ^ W_(16), 1);
    W_(33) = ROTL(W_(30) ^ W_(25) ^ W_(19) ^ W_(17), 1);
    W_(34) = ROTL(W_(31) ^ W_(26) ^ W_(20) ^ W_(18), 1);
    W_(35) = ROTL(W_(32) ^ W_(27) ^ W_(21) ^ W_(19), 1);
    W_(36) = ROTL(W_(33) ^ W_(28) ^ W_(22) ^ W_(20), 1);
    W_(37) = ROTL(W_(34) ^ W_(29) ^ W_(23) ^ W_(21), 1);
    W_(38) = ROTL(W_(35) ^ W_(30) ^ W_(24) ^ W_(22), 1);
    W_(39) = ROTL(W_(36) ^ W_(31) ^ W_(25) ^ W_(23), 1);
    W_(40) = ROTL(W_(37) ^ W_(32) ^ W_(26) ^ W_(24), 1);
    W_(41) = ROTL(W_(38) ^ W_(33) ^ W_(27) ^ W_(25), 1);
    W_(42) = ROTL(W_(39) ^ W_(34) ^ W_(28) ^ W_(26), 1);
    W_(43) = ROTL(W_(40) ^ W_(35) ^ W_(29) ^ W_(27), 1);
    W_(44) = ROTL(W_(41) ^ W_(36) ^ W_(30) ^ W_(28), 1);
    W_(45) = ROTL(W_(42) ^ W_(37) ^ W_(31) ^ W_(29), 1);
    W_(46) = ROTL(W_(43) ^ W_(38) ^ W_(32) ^ W_(30), 1);
    W_(47) = ROTL(W_(44) ^ W_(39) ^ W_(33) ^ W_(31), 1);
    W_(48) = ROTL(W_(45) ^ W_(40) ^ W_(34) ^ W_(32), 1);
    W_(49) = ROTL(W_(46) ^ W_(41) ^ W_(35) ^ W_(33), 1);
    W_(50) = ROTL(W_(47) ^ W_(42) ^ W_(36) ^ W_(34), 1);
    W_(51) = ROTL(W_(48) ^ W_(43) ^ W_(37) ^ W_(35), 1);
    W_(52) = ROTL(W_(49) ^ W_(44) ^ W_(38) ^ W_(36), 1);
    W_(53) = ROTL(W_(50) ^ W_(45) ^ W_(39) ^ W_(37), 1);
    W_(54) = ROTL(W_(51) ^ W_(46) ^ W_(40) ^ W_(38), 1);
    W_(55) = ROTL(W_(52) ^ W_(47) ^ W_(41) ^ W_(39), 1);
    W_(56) = ROTL(W_(53) ^ W_(48) ^ W_(42) ^ W_(40), 1);
    W_(57) = ROTL(W_(54) ^ W_(49) ^ W_(43) ^ W_(41), 1);
    W_(58) = ROTL(W_(55) ^ W_(50) ^ W_(44) ^ W_(42), 1);
    W_(59) = ROTL(W_(56) ^ W_(51) ^ W_(45) ^ W_(43), 1);
    W_(60) = ROTL(W_(57) ^ W_(52) ^ W_(46) ^ W_(44), 1);
    W_(61) = ROTL(W_(58) ^ W_(53) ^ W_(47) ^ W_(45), 1);
    W_(62) = ROTL(W_(59) ^ W_(54) ^ W_(48) ^ W_(46), 1);
    W_(63) = ROTL(W_(60) ^ W_(55) ^ W_(49) ^ W_(47), 1);
    W_(64) = ROTL(W_(61) ^ W_(56) ^ W_(50) ^ W_(48), 1);
    W_(65) = ROTL(W_(62) ^ W_(57) ^ W_(51) ^ W_(49), 1);
    W_(66) = ROTL(W_(63) ^ W_(58) ^ W_(52) ^ W_(50), 1);
    W_(67) = ROTL(W_(64) ^ W_(59) ^ W_(53) ^ W_(51), 1);
    W_(68) = ROTL(W_(65) ^ W_(60) ^ W_(54) ^ W_(52), 1);
    W_(69) = ROTL(W_(66) ^ W_(61) ^ W_(55) ^ W_(53), 1);
    W_(70) = ROTL(W_(67) ^ W_(62) ^ W_(56) ^ W_(54), 1);
    W_(71) = ROTL(W_(68) ^ W_(63) ^ W_(57) ^ W_(55), 1);
    W_(72) = ROTL(W_(69) ^ W_(64) ^ W_(58) ^ W_(56), 1);
    W_(73) = ROTL(W_(70) ^ W_(65) ^ W_(59) ^ W_(57), 1);
    W_(74) = ROTL(W_(71) ^ W_(66) ^ W_(60) ^ W_(58), 1);
    W_(75) = ROTL(W_(72) ^ W_(67) ^ W_(61) ^ W_(59), 1);
    W_(76) = ROTL(W_(73) ^ W_(68) ^ W_(62) ^ W_(60), 1);
    W_(77) = ROTL(W_(74) ^ W_(69) ^ W_(63) ^ W_(61), 1);
    W_(78) = ROTL(W_(75) ^ W_(70) ^ W_(64) ^ W_(62), 1);
    W_(79) = ROTL(W_(76) ^ W_(71) ^ W_(65) ^ W_(63), 1);
    unsigned int a = 0x67452301u;
    unsigned int b = 0xEFCDAB89u;
    unsigned int c = 0x98BADCFEu;
    unsigned int d = 0x10325476u;
    unsigned int e = 0xC3D2E1F0u;
    RND(CH, 0x5A827999u, 0)
    RND(CH, 0x5A827999u, 1)
    RND(CH, 0x5A827999u, 2)
    RND(CH, 0x5A827999u, 3)
    RND(CH, 0x5A827999u, 4)
    RND(CH, 0x5A827999u, 5)
    RND(CH, 0x5A827999u, 6)
    RND(CH, 0x5A827999u, 7)
    RND(CH, 0x5A827999u, 8)
    RND(CH, 0x5A827999u, 9)
    RND(CH, 0x5A827999u, 10)
    RND(CH, 0x5A827999u, 11)
    RND(CH, 0x5A827999u, 12)
    RND(CH, 0x5A827999u, 13)
    RND(CH, 0x5A827999u, 14)
    RND(CH, 0x5A827999u, 15)
    RND(CH, 0x5A827999u, 16)
    RND(CH, 0x5A827999u, 17)
    RND(CH, 0x5A827999u, 18)
    RND(CH, 0x5A827999u, 19)
    RND(PAR, 0x6ED9EBA1u, 20)
    RND(PAR, 0x6ED9EBA1u, 21)
    RND(PAR, 0x6ED9EBA1u, 22)
    RND(PAR, 0x6ED9EBA1u, 23)
    RND(PAR, 0x6ED9EBA1u, 24)
    RND(PAR, 0x6ED9EBA1u, 25)
    RND(PAR, 0x6ED9EBA1u, 26)
    RND(PAR, 0x6ED9EBA1u, 27)
    RND(PAR, 0x6ED9EBA1u, 28)
    RND(PAR, 0x6ED9EBA1u, 29)
    RND(PAR, 0x6ED9EBA1u, 30)
    RND(PAR, 0x6ED9EBA1u, 31)
    RND(PAR, 0x6ED9EBA1u, 32)
    RND(PAR, 0x6ED9EBA1u, 33)
    RND(PAR, 0x6ED9EBA1u, 34)
    RND(PAR, 0x6ED9EBA1u, 35)
    RND(PAR, 0x6ED9EBA1u, 36)
    RND(PAR, 0x6ED9EBA1u, 37)
    RND(PAR, 0x6ED9EBA1u, 38)
    RND(PAR, 0x6ED9EBA1u, 39)
    RND(MAJ, 0x8F1BBCDCu, 40)
    RND(MAJ, 0x8F1BBCDCu, 41)
    RND(MAJ, 0x8F1BBCDCu, 42)
    RND(MAJ, 0x8F1BBCDCu, 43)
    RND(MAJ, 0x8F1BBCDCu, 44)
    RND(MAJ, 0x8F1BBCDCu, 45)
    RND(MAJ, 0x8F1BBCDCu, 46)
    RND(MAJ, 0x8F1BBCDCu, 47)
    RND(MAJ, 0x8F1BBCDCu, 48)
    RND(MAJ, 0x8F1BBCDCu, 49)
    RND(MAJ, 0x8F1BBCDCu, 50)
    RND(MAJ, 0x8F1BBCDCu, 51)
    RND(MAJ, 0x8F1BBCDCu, 52)
    RND(MAJ, 0x8F1BBCDCu, 53)
    RND(MAJ, 0x8F1BBCDCu, 54)
    RND(MAJ, 0x8F1BBCDCu, 55)
    RND(MAJ, 0x8F1BBCDCu, 56)
    RND(MAJ, 0x8F1BBCDCu, 57)
    RND(MAJ, 0x8F1BBCDCu, 58)
    RND(MAJ, 0x8F1BBCDCu, 59)
    RND(PAR, 0xCA62C1D6u, 60)
    RND(PAR, 0xCA62C1D6u, 61)
    RND(PAR, 0xCA62C1D6u, 62)
    RND(PAR, 0xCA62C1D6u, 63)
    RND(PAR, 0xCA62C1D6u, 64)
    RND(PAR, 0xCA62C1D6u, 65)
    RND(PAR, 0xCA62C1D6u, 66)
    RND(PAR, 0xCA62C1D6u, 67)
    RND(PAR, 0xCA62C1D6u, 68)
    RND(PAR, 0xCA62C1D6u, 69)
    RND(PAR, 0xCA62C1D6u, 70)
    RND(PAR, 0xCA62C1D6u, 71)
    RND(PAR, 0xCA62C1D6u, 72)
    RND(PAR, 0xCA62C1D6u, 73)
    RND(PAR, 0xCA62C1D6u, 74)
    RND(PAR, 0xCA62C1D6u, 75)
    RND(PAR, 0xCA62C1D6u, 76)
    RND(PAR, 0xCA62C1D6u, 77)
    RND(PAR, 0xCA62C1D6u, 78)
    RND(PAR, 0xCA62C1D6u, 79)
    const unsigned int g = blockIdx.x * NTH + f;
    digest[g * 5 + 0] = a + 0x67452301u;
    digest[g * 5 + 1] = b + 0xEFCDAB89u;
    digest[g * 5 + 2] = c + 0x98BADCFEu;
    digest[g * 5 + 3] = d + 0x10325476u;
    digest[g * 5 + 4] = e + 0xC3D2E1F0u;
}
