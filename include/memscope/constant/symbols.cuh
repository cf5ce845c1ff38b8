#pragma once
// __constant__ symbols done right: a capacity check at compile time, and host helpers for the
// symbol API (cudaMemcpyToSymbol / FromSymbol, cudaGetSymbolAddress / Size).
//
// Sharing one __constant__ array between .cu files needs separable compilation
// (CMake: CUDA_SEPARABLE_COMPILATION ON, nvcc -rdc=true): define it in one file with
// MEMSCOPE_CONSTANT_ARRAY and declare it `extern __constant__ T name[N];` in the others
// (tests/gpu/rdc/ does exactly that). Without -rdc each file would get its own copy.

#include "memscope/core/cuda_check.hpp"

#include <cstddef>
#include <vector>

namespace memscope::symbols {

/// The constant bank every CUDA GPU so far has had; memscope info reads the device's own figure
/// (totalConstMem, cudaDevAttrTotalConstantMemory).
inline constexpr std::size_t constant_bank_bytes = 64 * 1024;

template <class T, std::size_t N>
struct fits_constant_bank {
  static_assert(sizeof(T) * N <= constant_bank_bytes,
                "__constant__ array does not fit the 64 KB constant bank: keep it small, or use global memory "
                "with const __restrict__ / __ldg for large read-only tables");
  static constexpr bool value = true;
};

/// Defines a __constant__ array, rejected at compile time (with the message above) when it
/// would exceed 64 KB.
#define MEMSCOPE_CONSTANT_ARRAY(T, name, N)                                               \
  static_assert(::memscope::symbols::fits_constant_bank<T, (N)>::value, "constant bank"); \
  __constant__ T name[N]

struct symbol_info {
  void* address = nullptr;  // device address (cudaGetSymbolAddress): usable as a plain pointer
  std::size_t bytes = 0;    // cudaGetSymbolSize
};

template <class Symbol>
symbol_info describe(const Symbol& symbol) {
  symbol_info i;
  MEMSCOPE_CUDA_CALL(cudaGetSymbolAddress(&i.address, symbol));
  MEMSCOPE_CUDA_CALL(cudaGetSymbolSize(&i.bytes, symbol));
  return i;
}

template <class Symbol, class T>
void to_symbol(const Symbol& symbol, const std::vector<T>& host, std::size_t offset_bytes = 0) {
  MEMSCOPE_CUDA_CALL(
      cudaMemcpyToSymbol(symbol, host.data(), host.size() * sizeof(T), offset_bytes, cudaMemcpyHostToDevice));
}

template <class T, class Symbol>
std::vector<T> from_symbol(const Symbol& symbol, std::size_t count, std::size_t offset_bytes = 0) {
  std::vector<T> host(count);
  MEMSCOPE_CUDA_CALL(
      cudaMemcpyFromSymbol(host.data(), symbol, count * sizeof(T), offset_bytes, cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace memscope::symbols
