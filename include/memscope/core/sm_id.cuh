#pragma once
// The SM a thread runs on (%smid): where a measurement landed. Ids need not be contiguous:
// they may run past the SM count (up to %nsmid), so they name SMs, they do not index them.

namespace memscope {

__device__ __forceinline__ unsigned sm_id() {
  unsigned sm = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return sm;
}

}  // namespace memscope
