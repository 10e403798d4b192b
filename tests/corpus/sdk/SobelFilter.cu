//pass
//--blockDim=384 --gridDim=512
//expect: verified

typedef unsigned char Pixel;

texture<unsigned char, 2> tex;
__constant__ float fScale = 1.0f;

__device__ unsigned char ComputeSobel(unsigned char ul, unsigned char um, unsigned char ur,
                                      unsigned char ml, unsigned char mm, unsigned char mr,
                                      unsigned char ll, unsigned char lm, unsigned char lr, float fScale)
{
    short Horz = ur + 2 * mr + lr - ul - 2 * ml - ll;
    short Vert = ul + 2 * um + ur - ll - 2 * lm - lr;
    short Sum = (short)(fScale * (abs((int)Horz) + abs((int)Vert)));
    if (Sum < 0) return 0;
    else if (Sum > 0xff) return 0xff;
    return (unsigned char)Sum;
}

// One row per block: each thread walks pixels of its row with a block stride.
__global__ void SobelTex(Pixel *pSobelOriginal, unsigned int Pitch, int w, int h, float fScale)
{
    __requires(Pitch == 512);
    __requires(w == 512);
    unsigned char *pSobel = (unsigned char *)(((char *)pSobelOriginal) + blockIdx.x * Pitch);
    for (int i = threadIdx.x; i < w; i += blockDim.x) {
        unsigned char pix00 = tex2D(tex, (float)i - 1, (float)blockIdx.x - 1);
        unsigned char pix01 = tex2D(tex, (float)i + 0, (float)blockIdx.x - 1);
        unsigned char pix02 = tex2D(tex, (float)i + 1, (float)blockIdx.x - 1);
        unsigned char pix10 = tex2D(tex, (float)i - 1, (float)blockIdx.x + 0);
        unsigned char pix11 = tex2D(tex, (float)i + 0, (float)blockIdx.x + 0);
        unsigned char pix12 = tex2D(tex, (float)i + 1, (float)blockIdx.x + 0);
        unsigned char pix20 = tex2D(tex, (float)i - 1, (float)blockIdx.x + 1);
        unsigned char pix21 = tex2D(tex, (float)i + 0, (float)blockIdx.x + 1);
        unsigned char pix22 = tex2D(tex, (float)i + 1, (float)blockIdx.x + 1);
        pSobel[i] = ComputeSobel(pix00, pix01, pix02, pix10, pix11, pix12, pix20, pix21, pix22, fScale);
    }
}
