//pass
//--blockDim=16 --gridDim=1
//expect: verified

// Decodes a string: every character is shifted back by its position.
__global__ void kernel(int *g_data)
{
    const unsigned int tid = threadIdx.x;
    int data = g_data[tid];
    g_data[tid] = ((((data << 0) >> 24) - 10) << 24)
                | ((((data << 8) >> 24) - 10) << 16)
                | ((((data << 16) >> 24) - 10) << 8)
                | ((((data << 24) >> 24) - 10) << 0);
}

__global__ void kernel2(int2 *g_data)
{
    const unsigned int tid = threadIdx.x;
    int2 data = g_data[tid];
    g_data[tid].x = data.x - data.y;
}

__global__ void kernelChars(char *str, const unsigned int len)
{
    __requires(len == 16);
    unsigned int i = threadIdx.x;
    if (i < len) str[i] = (char)(str[i] - (char)i);
}
