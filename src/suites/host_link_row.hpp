#pragma once
// The host link in a row, for suites whose bytes cross it (transfer, managed): what the link is
// and its theoretical bandwidth for the directions a point moves, which the printers then judge
// the row's GB/s against (harness/results.hpp: ceiling_of).

#include "harness/results.hpp"
#include "harness/state.hpp"
#include "memscope/core/cuda_check.hpp"
#include "memscope/transfer/host_link.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace memscope::suites {

inline transfer::host_link host_link_of(const device_info& dev) {
  char bus[32] = {};
  int shared_tables = 0;
  MEMSCOPE_CUDA_CALL(cudaDeviceGetPCIBusId(bus, sizeof bus, dev.ordinal));
  MEMSCOPE_CUDA_CALL(
      cudaDeviceGetAttribute(&shared_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables, dev.ordinal));
  return transfer::read_host_link(bus, shared_tables != 0);
}

inline void record_host_link(case_state& st, const transfer::host_link& l, int directions) {
  st.add_label(link_label, l.kind);
  if (l.numa_node >= 0) st.add_label("numa_node", std::to_string(l.numa_node));
  if (l.per_direction_gbps > 0) st.add_metric(link_gbps_metric, l.per_direction_gbps * directions);
}

}  // namespace memscope::suites
