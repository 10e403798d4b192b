//expect: verified

// Sizes passed to the CUDA toolkit's C libraries stay what they were: cuBLAS, cuRAND,
// cuFFT and the runtime are C interfaces, so a scalar argument is a copy. Each kernel
// is right only for the width its caller gives (64 cells per row, one thread each);
// a width changed by the library calls would make rows overlap.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <curand.h>

#define CHECK_BLAS(call) check_status((call), __FILE__, __LINE__)

static void check_status(int status, const char *file, int line)
{
    if (status != 0) {
        fprintf(stderr, "%s:%d: status %d\n", file, line, status);
    }
}

__global__ void add_rows(float *rows, int width)
{
    rows[blockIdx.x * width + threadIdx.x % width] += 1.0f;
}

__global__ void scale_rows(float *rows, int width, float by)
{
    rows[blockIdx.y * width + threadIdx.x % width] *= by;
}

static void stage(cublasHandle_t h, float *rows, float *x, int n, int width)
{
    add_rows<<<n, 64>>>(rows, width);
    const float alpha = 2.0f;
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, width, n, &alpha, rows, width, x, 1, &alpha, x, 1));
    cublasSscal(h, width, &alpha, x, 1);
}

static void noisy(curandGenerator_t g, float *rows, int n, int width)
{
    curandGenerateUniform(g, rows, n * width);
    curandSetPseudoRandomGeneratorSeed(g, width);
    dim3 grid(1, n);
    scale_rows<<<grid, 64>>>(rows, width, 0.5f);
}

int main()
{
    cublasHandle_t h;
    curandGenerator_t g;
    float *rows, *x;
    int n = 32;
    int width = 64;
    cudaMalloc(&rows, n * width * sizeof(float));
    cudaMalloc(&x, width * sizeof(float));
    cublasCreate(&h);
    curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);
    stage(h, rows, x, n, width);
    noisy(g, rows, n, width);
    cudaDeviceSynchronize();
    return 0;
}
