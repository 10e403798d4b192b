// Shim for g++ -fsyntax-only: just enough of CUB (block reduction and scan, a device scan) for the corpus.
#pragma once
namespace cub {
struct Max {
    template <class T> T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T, int BLOCK_THREADS> class BlockReduce {
  public:
    struct TempStorage {
        T slots[BLOCK_THREADS];
    };
    explicit BlockReduce(TempStorage &temp) : temp_(temp) {}
    T Sum(T x);
    template <class Op> T Reduce(T x, Op op);

  private:
    TempStorage &temp_;
};
template <class T, int BLOCK_THREADS> class BlockScan {
  public:
    struct TempStorage {
        T slots[BLOCK_THREADS];
    };
    explicit BlockScan(TempStorage &temp) : temp_(temp) {}
    void ExclusiveSum(T input, T &output);

  private:
    TempStorage &temp_;
};
struct DeviceScan {
    // Writes `temp_storage_bytes` when `d_temp_storage` is null.
    template <class In, class Out>
    static cudaError_t ExclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, In in, Out out,
                                    int num_items);
};
} // namespace cub
