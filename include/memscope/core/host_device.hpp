#pragma once
// Lets one definition serve kernels and the pure-C++ CPU references.
#if defined(__CUDACC__)
#define MEMSCOPE_HD __host__ __device__ __forceinline__
#else
#define MEMSCOPE_HD inline
#endif
