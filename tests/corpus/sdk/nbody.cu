//pass
//--blockDim=256 --gridDim=64
//expect: verified

#define SOFTENING_SQUARED 0.01f

__device__ float3 bodyBodyInteraction(float3 ai, float4 bi, float4 bj)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING_SQUARED;
    float invDist = rsqrtf(distSqr);
    float s = bj.w * invDist * invDist * invDist;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

// All-pairs gravity: bodies are streamed through shared memory one tile
// (one body per thread) at a time.
__global__ void integrateBodies(float4 *newPos, float4 *oldPos, float4 *vel, float deltaTime, float damping, int numBodies)
{
    __requires(numBodies == 16384);
    extern __shared__ float4 sharedPos[];
    int index = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
    float4 pos = oldPos[index];
    float3 acc = {0.0f, 0.0f, 0.0f};

    for (int tile = 0; tile < gridDim.x; tile++) {
        sharedPos[threadIdx.x] = oldPos[tile * blockDim.x + threadIdx.x];
        __syncthreads();
#pragma unroll 4
        for (int j = 0; j < blockDim.x; j++)
            acc = bodyBodyInteraction(acc, pos, sharedPos[j]);
        __syncthreads();
    }

    float4 v = vel[index];
    v.x = (v.x + acc.x * deltaTime) * damping;
    v.y = (v.y + acc.y * deltaTime) * damping;
    v.z = (v.z + acc.z * deltaTime) * damping;
    pos.x += v.x * deltaTime;
    pos.y += v.y * deltaTime;
    pos.z += v.z * deltaTime;
    newPos[index] = pos;
    vel[index] = v;
}
