// The tensor-core API of mma.h (`nvcuda::wmma`), as far as tests/corpus/wmma/ uses it.
#pragma once
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
    T x[8];
};
template <class Use, int M, int N, int K, class T, class L, class V>
void fill_fragment(fragment<Use, M, N, K, T, L> &, V);
template <class Use, int M, int N, int K, class T, class L, class P>
void load_matrix_sync(fragment<Use, M, N, K, T, L> &, const P *, unsigned);
template <class Use, int M, int N, int K, class T, class L, class P>
void load_matrix_sync(fragment<Use, M, N, K, T, L> &, const P *, unsigned, layout_t);
template <class Use, int M, int N, int K, class T, class L, class P>
void store_matrix_sync(P *, const fragment<Use, M, N, K, T, L> &, unsigned, layout_t);
template <class D, class A, class B, class C>
void mma_sync(D &, const A &, const B &, const C &);
} // namespace wmma
} // namespace nvcuda
