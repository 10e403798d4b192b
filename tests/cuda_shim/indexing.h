// Shim for g++ -fsyntax-only: a header that is not on the machine in the corpus.
#pragma once
__device__ void clampIndex(int &i);
