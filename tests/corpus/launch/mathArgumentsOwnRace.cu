//expect: race

// Twin of mathArguments.cu: the file overloads `ceil` for an `int &` that it rounds
// down to a multiple of 48 in place, and that overload is the one `ceil(hs)` calls. The
// head size is then unknown at the launch (it is 48 here: two threads of a block
// share a cell).
#include <cmath>
#include <cuda_runtime.h>

static int ceil(int &n) { n = n / 48 * 48; return n; }

__global__ void shift_heads(float *q, int head_size, float by)
{
    q[blockIdx.y * head_size + threadIdx.x % head_size] += by;  //~ race(q)
}

static void attention_shift(float *q, int rows, int channels, int heads)
{
    int hs = channels / heads;
    int tiles = ceil(hs);
    float by = 1.0f / sqrtf(tiles);
    shift_heads<<<dim3(1, rows), 64>>>(q, hs, by);
}

int main()
{
    float *q;
    cudaMalloc(&q, 1024 * 768 * sizeof(float));
    attention_shift(q, 1024, 768, 12);
    cudaDeviceSynchronize();
    return 0;
}
