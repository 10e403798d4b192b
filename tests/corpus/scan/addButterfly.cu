//fail
//--blockDim=512 --gridDim=4
//expect: race
//note: partners are i + j, not i ^ j: thread i + j also works on its own element as the lower one of a pair.

#define COUNT 512

// Bitonic sort with xor partners: in step (k, j) thread i pairs with i ^ j, and the
// lower thread of each pair does the compare-exchange.
__global__ void addSort(int *data)
{
    __shared__ int buf[COUNT];
    const unsigned int i = threadIdx.x;
    buf[i] = data[blockIdx.x * COUNT + i];
    __syncthreads();
    for (unsigned int k = 2; k <= COUNT; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int partner = i + j;
            if (partner < COUNT) {
                int a = buf[i]; //~ race(buf)
                int b = buf[partner]; //~ race(buf)
                bool ascending = (i & k) == 0;
                if ((a > b) == ascending) {
                    buf[i] = b; //~ race(buf)
                    buf[partner] = a; //~ race(buf)
                }
            }
            __syncthreads();
        }
    }
    data[blockIdx.x * COUNT + i] = buf[i];
}
