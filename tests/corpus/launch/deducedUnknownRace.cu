//expect: race

// Launches whose template arguments autosync does not deduce: `auto` (the type of
// `cudaMalloc`'s result is not read), a type the host function defines for itself,
// and a call's result. Each is checked as the template's open instance (`int` for
// `T`), which still has the race: every thread of a block shifts its row by one
// cell in place. The launch with a plain `float *` is deduced and races too.
#include <cuda_runtime.h>

template <typename T>
__global__ void shift_row(T *row, int width)
{
    int c = threadIdx.x;
    if (c + 1 < width)
        row[blockIdx.x * width + c] = row[blockIdx.x * width + c + 1]; //~ race(row)
}

float *pick(float *a, float *b, int which) { return which ? a : b; }

void run(float *plain, float *other, int n)
{
    auto *buffer = plain;
    using cell = float;
    cell *cells = other;
    shift_row<<<n / 64, 64>>>(buffer, 64);
    shift_row<<<n / 64, 64>>>(cells, 64);
    shift_row<<<n / 64, 64>>>(pick(plain, other, n & 1), 64);
    shift_row<<<n / 32, 32>>>(plain, 32);
}
