// Shim for g++ -fsyntax-only: the few cuBLAS calls of the corpus.
#pragma once
typedef struct cublasContext *cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasSscal(cublasHandle_t h, int n, const float *alpha, float *x, int incx);
cublasStatus_t cublasSgemv(cublasHandle_t h, cublasOperation_t op, int m, int n, const float *alpha,
                           const float *a, int lda, const float *x, int incx, const float *beta,
                           float *y, int incy);
