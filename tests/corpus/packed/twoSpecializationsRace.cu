//expect: race

// Two explicit specializations are two types: `Pack<int>::size` is 1 even after
// `Pack<float>` (size 2) was used, so thread t reads its neighbour's s[t + 1].
template <class T> struct Pack { static constexpr int size = 4; };
template <> struct Pack<float> { static constexpr int size = 2; };
template <> struct Pack<int> { static constexpr int size = 1; };

__global__ void shiftRead(float *o)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    o[64 + t] = Pack<float>::size;
    s[t * Pack<int>::size] = 1.0f;              //~ race(s)
    o[t] = s[t * Pack<int>::size + 1];          //~ race(s)
}

void run(float *o) { shiftRead<<<1, 64>>>(o); }
