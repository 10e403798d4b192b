//pass
//expect: race

// The twin of headerKernel.cu whose header kernel has no barrier: the race is reported
// at the header's lines, and marked at the `#include` line that brings them in.
#include "headerKernelRace.cuh" //~ race(s)

int main()
{
    int *a;
    rotate<64><<<10, 64>>>(a);
    return 0;
}
