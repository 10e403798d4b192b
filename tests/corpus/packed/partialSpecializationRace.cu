//expect: race

// `Pack<float *>` is the partial specialization for pointers (size 1), not the primary
// template (size 2): thread t reads its neighbour's s[t + 1].
template <class T> struct Pack { static constexpr int size = 2; };
template <class T> struct Pack<T *> { static constexpr int size = 1; };

__global__ void shiftRead(float *o)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t * Pack<float *>::size] = 1.0f;          //~ race(s)
    o[t] = s[t * Pack<float *>::size + 1];      //~ race(s)
}

void run(float *o) { shiftRead<<<1, 64>>>(o); }
