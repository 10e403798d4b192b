//pass
//expect: verified

// A kernel defined in the project's header and launched from this file is checked
// here, for this file's launch (its report points at the `#include` line).
#include "headerKernel.cuh"

int main()
{
    int *a;
    rotate<64><<<10, 64>>>(a);
    return 0;
}
