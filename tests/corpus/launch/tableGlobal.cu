//pass
//expect: verified

// A `const` table at file scope, read in the launching function itself. Each block
// owns 512 elements and its threads write them by `threadIdx.x % 512`, which is one
// element per thread for every width in the table.
static const int kWidths[] = {128, 256, 512};

__global__ void stamp(int *v)
{
    v[blockIdx.x * 512 + threadIdx.x % 512] = threadIdx.x;
}

int main()
{
    int *v;
    const int n = 4096;
    for (int w = 0; w < 3; ++w) {
        int width = kWidths[w];
        stamp<<<n / 512, width>>>(v);
    }
    return 0;
}
