//pass
//--blockDim=512 --gridDim=4
//expect: verified

#define COUNT 512

// Bitonic sort with xor partners: in step (k, j) thread i pairs with i ^ j, and the
// lower thread of each pair does the compare-exchange.
__global__ void xorSort(int *data)
{
    __shared__ int buf[COUNT];
    const unsigned int i = threadIdx.x;
    buf[i] = data[blockIdx.x * COUNT + i];
    __syncthreads();
    for (unsigned int k = 2; k <= COUNT; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int partner = i ^ j;
            if (partner > i) {
                int a = buf[i];
                int b = buf[partner];
                bool ascending = (i & k) == 0;
                if ((a > b) == ascending) {
                    buf[i] = b;
                    buf[partner] = a;
                }
            }
            __syncthreads();
        }
    }
    data[blockIdx.x * COUNT + i] = buf[i];
}
