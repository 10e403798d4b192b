//expect: race

// Twin of lanesAdd.cu: a bundle holds 8 bf16 lanes (16 bytes), but each thread steps
// only 4 elements, so neighbouring threads' bundles overlap by half: the stores race
// (and a thread's store races with its neighbour's load).
#include <cuda_runtime.h>
#include <cuda_bf16.h>

template <typename E>
struct alignas(16) Lanes {
    static constexpr const int count = sizeof(int4) / sizeof(E);
    E lane[count];

    Lanes() = default;
    __device__ explicit Lanes(int4 raw) { memcpy(&lane, &raw, sizeof(raw)); }
    __device__ E &operator[](int j) { return lane[j]; }
    __device__ const E &operator[](int j) const { return lane[j]; }
    __device__ int4 raw() const {
        int4 r;
        memcpy(&r, &lane, sizeof(r));
        return r;
    }
};

typedef __nv_bfloat16 bf16;
using lanes_t = Lanes<bf16>;

template <typename E>
__device__ Lanes<E> fetch(const E *at) { return Lanes<E>{*reinterpret_cast<const int4 *>(at)}; }   //~ race(y)

template <typename E>
__device__ void put(E *at, Lanes<E> v) { *reinterpret_cast<int4 *>(at) = v.raw(); }   //~ race(y)

__global__ void axpyLanes(bf16 *y, const bf16 *x, float alpha, int n)
{
    int first = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (first < n) {
        lanes_t xs = fetch(x + first);
        lanes_t ys = fetch(y + first);
        for (int k = 0; k < xs.count; ++k) {
            ys[k] = (bf16)(alpha * (float)xs[k] + (float)ys[k]);
        }
        put(y + first, ys);
    }
}

void axpy(bf16 *d_y, const bf16 *d_x, float alpha)
{
    const int n = 1 << 20;
    const int threads = 256;
    axpyLanes<<<n / (threads * lanes_t::count), threads>>>(d_y, d_x, alpha, n);
}
