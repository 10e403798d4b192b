//pass
//expect: verified

// A stream callback: `CUDART_CB` (a calling convention, empty on Linux) comes from the
// runtime headers autosync does not read, and is predefined.
__global__ void scale(float *x, float a)
{
    x[blockIdx.x * blockDim.x + threadIdx.x] *= a;
}

static void CUDART_CB finished(cudaStream_t stream, cudaError_t status, void *flag)
{
    *(int *)flag = 1;
}

int main()
{
    float *x;
    int flag = 0;
    cudaStream_t s = 0;
    scale<<<8, 128, 0, s>>>(x, 2.0f);
    cudaStreamAddCallback(s, finished, &flag, 0);
    return flag;
}
