// Case `constant/symbols`: the symbol API (cudaMemcpyToSymbol / FromSymbol,
// cudaGetSymbolAddress / Size) and the 64 KB constant bank, read from the device. A unit of its
// own: the broadcast cases' table fills the whole bank of theirs.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "harness/state.hpp"

#include "memscope/constant/symbols.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

namespace memscope::suites {
namespace {

MEMSCOPE_CONSTANT_ARRAY(float, c_symbol_demo, 256);

__global__ void read_through_pointer_kernel(const float* p, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i];
}

void symbols_case(case_state& st) {
  const cudaStream_t s = st.stream();
  std::vector<float> values(256);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = hash_uniform(st.seed(), i);
  symbols::to_symbol(c_symbol_demo, values);
  const auto back = symbols::from_symbol<float>(c_symbol_demo, values.size());
  st.check(compare_exact(back.data(), back.size(), [&](std::size_t i) { return values[i]; }));
  // cudaGetSymbolAddress: the same bytes, read by an ordinary kernel through a plain pointer.
  const auto info = symbols::describe(c_symbol_demo);
  st.check(info.bytes == sizeof(float) * 256
               ? verify_result::pass()
               : verify_result::fail("cudaGetSymbolSize = " + std::to_string(info.bytes)));
  device_buffer<float> out(256);
  out.poison(s);
  read_through_pointer_kernel<<<1, 256, 0, s>>>(static_cast<const float*>(info.address), out.data(), 256);
  MEMSCOPE_CHECK_LAUNCH("read_through_pointer_kernel");
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto via_ptr = out.to_host();
  st.check(compare_exact(via_ptr.data(), via_ptr.size(), [&](std::size_t i) { return values[i]; }));
  // The capacity, two ways, against the compile-time limit memscope assumes.
  int attr = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&attr, cudaDevAttrTotalConstantMemory, st.device().ordinal));
  st.add_metric("total_const_mem", static_cast<double>(st.device().total_const_mem));
  st.check(static_cast<std::size_t>(attr) == st.device().total_const_mem &&
                   st.device().total_const_mem == symbols::constant_bank_bytes
               ? verify_result::pass()
               : verify_result::fail("constant memory: totalConstMem " + std::to_string(st.device().total_const_mem) +
                                     ", attribute " + std::to_string(attr) + ", assumed 65536"));
}

}  // namespace

void register_constant_symbols(registry& reg) {
  suite s{reg, "constant"};
  s.add("symbols", symbols_case)
      .summary("cudaMemcpyToSymbol/FromSymbol round trip, cudaGetSymbolAddress/Size, the 64 KB bank");
}

MEMSCOPE_REGISTER_SUITE(80, register_constant_symbols);

}  // namespace memscope::suites
