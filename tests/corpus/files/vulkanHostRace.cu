//pass
//expect: race

// The twin of vulkanHost.cu whose launch is in the host code that does not parse: it
// is not read, so the kernel is checked for every launch, and with two blocks the
// kernel's writes of `v` race with the other block's reads.
#include <vulkan/vulkan.h>

__global__ void smooth(float *v)
{
    __shared__ float s[66];
    unsigned t = threadIdx.x;
    s[t + 1] = v[t];                                                  //~ race(v) race(s)
    if (t == 0) {
        s[0] = 0.0f;
        s[65] = 0.0f;                                                 //~ race(s)
    }
    __syncthreads();
    v[t] = (s[t] + s[t + 1] + s[t + 2]) / 3.0f;                       //~ race(v)
}

static VKAPI_ATTR VkBool32 VKAPI_CALL onValidation(int severity, const char *message, void *user)
{
    smooth<<<1, 64>>>((float *)user);
    return VK_FALSE;
}
