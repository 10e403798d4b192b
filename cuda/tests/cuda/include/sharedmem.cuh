#ifndef SHAREDMEM_CUH
#define SHAREDMEM_CUH

// Dynamically sized shared memory, typed: `T *s = SharedMemory<T>();`
// (extern arrays of different types would clash in one translation unit).
template <class T>
struct SharedMemory
{
    __device__ inline operator T *()
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }

    __device__ inline operator const T *() const
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

// The double version needs 8-byte alignment.
template <>
struct SharedMemory<double>
{
    __device__ inline operator double *()
    {
        extern __shared__ double __smem_d[];
        return (double *)__smem_d;
    }

    __device__ inline operator const double *() const
    {
        extern __shared__ double __smem_d[];
        return (double *)__smem_d;
    }
};

#endif
