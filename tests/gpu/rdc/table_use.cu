// Uses the table defined in table_def.cu: the device linker resolves the extern.
#include "gpu/rdc/table_use.hpp"

#include "memscope/constant/symbols.cuh"
#include "memscope/core/cuda_check.hpp"

extern __constant__ float memscope_rdc_table[1024];

namespace {
__global__ void scale_from_table_kernel(float* out, int n, float factor) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factor * memscope_rdc_table[i];
}
}  // namespace

void rdc_upload(const std::vector<float>& values) { memscope::symbols::to_symbol(memscope_rdc_table, values); }

std::vector<float> rdc_download(std::size_t n) { return memscope::symbols::from_symbol<float>(memscope_rdc_table, n); }

std::size_t rdc_symbol_bytes() { return memscope::symbols::describe(memscope_rdc_table).bytes; }

void rdc_scale(float* out, int n, float factor) {
  scale_from_table_kernel<<<(n + 255) / 256, 256>>>(out, n, factor);
  MEMSCOPE_CHECK_LAUNCH("scale_from_table_kernel");
}
