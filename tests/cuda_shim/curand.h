// Shim for g++ -fsyntax-only: the few host cuRAND calls of the corpus.
#pragma once
typedef struct curandGenerator_st *curandGenerator_t;
typedef enum { CURAND_STATUS_SUCCESS = 0 } curandStatus_t;
typedef enum { CURAND_RNG_PSEUDO_DEFAULT = 100 } curandRngType_t;
curandStatus_t curandCreateGenerator(curandGenerator_t *g, curandRngType_t type);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long seed);
curandStatus_t curandGenerateUniform(curandGenerator_t g, float *out, size_t n);
