//pass
//expect: race

// Twin of tableGlobal.cu: the table also has 1024, and in a block of 1024 threads
// thread t and thread t + 512 write the same element with different values.
static const int kWidths[] = {128, 256, 512, 1024};

__global__ void stamp(int *v)
{
    v[blockIdx.x * 512 + threadIdx.x % 512] = threadIdx.x; //~ race(v)
}

int main()
{
    int *v;
    const int n = 4096;
    for (int w = 0; w < 4; ++w) {
        int width = kWidths[w];
        stamp<<<n / 512, width>>>(v);
    }
    return 0;
}
