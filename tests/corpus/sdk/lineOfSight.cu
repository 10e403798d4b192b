//pass
//--blockDim=256 --gridDim=4
//expect: verified

typedef unsigned int uint;

texture<float, 2, cudaReadModeElementType> g_HeightFieldTex;

struct Ray {
    float3 origin;
    float2 dir;
    int length;
    float oneOverLength;
};

__constant__ Ray ray;

// Samples the height field along a ray (one sample per thread) and stores the
// angle to each sample; a scan then finds the maximum so far.
__global__ void computeAngles_kernel(const Ray r, float *angles, int numSamples)
{
    __requires(numSamples == 1024);
    uint i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numSamples) {
        float t = i * r.oneOverLength;
        float2 uv = make_float2(r.origin.x + t * r.dir.x, r.origin.y + t * r.dir.y);
        float height = tex2D(g_HeightFieldTex, uv.x, uv.y);
        angles[i] = (height - r.origin.z) / (t * r.length + 1.0f);
    }
}

__global__ void computeVisibilities_kernel(const float *angles, const float *scannedAngles, int numAngles, bool *visibilities)
{
    __requires(numAngles == 1024);
    uint i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numAngles) visibilities[i] = scannedAngles[i] <= angles[i];
}
