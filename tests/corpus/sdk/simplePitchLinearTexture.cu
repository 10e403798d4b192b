//pass
//--blockDim=[16,16] --gridDim=[128,128]
//expect: verified

texture<float, 2, cudaReadModeElementType> texRefPL;
texture<float, 1, cudaReadModeElementType> texRefLin;

// Shifted copies of an image read through a 2-D texture and a 1-D fetch.
__global__ void shiftPitchLinear(float *odata, int pitch, int width, int height, int shiftX, int shiftY)
{
    __requires(pitch == 2048);
    __requires(width == 2048);
    __requires(height == 2048);
    int xid = blockIdx.x * blockDim.x + threadIdx.x;
    int yid = blockIdx.y * blockDim.y + threadIdx.y;
    float u = (xid + shiftX) / (float)width;
    float v = (yid + shiftY) / (float)height;
    odata[yid * pitch + xid] = tex2D(texRefPL, u, v) + tex1Dfetch(texRefLin, yid * width + xid);
}
