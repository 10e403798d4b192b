// Shim for g++ -fsyntax-only: just enough of CUB's block reduction for the corpus.
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
} // namespace cub
