// Throw-away experiment (not memscope): tiles_pdl at 2^28 f32 took 234.7-242.8 us on four
// leases (3.4%), while the tile read it is compared with held within 1.5%. Is it where the
// input sits (the physical pages behind it), where the partials sit, or the second kernel?
// One 6 GiB pool; the 1 GiB input is written at 8 offsets in it, and at each offset, in 3
// interleaved rounds: the tile read (bandwidth::stream_sum, read_order::tiles), tiles_pdl as
// the library runs it (partials in reduce_workspace::ping), tiles_pdl's first kernel alone,
// the two kernels with the partials in a separate 64 KiB buffer, and CUB. Every sum checked.
#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/shared/reduce.cuh"

// fill_kernel: whole numbers in [-8, 8] (every partial sum exact); the build that ran had the
// same kernel written out here.
#include "../../issue20/experiments/sum_inputs.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

namespace rd = memscope::reduce;
namespace bw = memscope::bandwidth;

int main() {
  const size_t n = size_t(1) << 28, pool_bytes = size_t(6) << 30;
  double want = 0;
  for (size_t i = 0; i < n; ++i) want += (double)((int)((i * 2654435761u >> 7) % 17) - 8);
  char* pool;
  CK(cudaMalloc(&pool, pool_bytes));
  float *out, *fp, *small;
  CK(cudaMalloc(&out, sizeof(float)));
  CK(cudaMalloc(&fp, 1 << 22));
  CK(cudaMalloc(&small, 1 << 16));
  rd::reduce_workspace<float> ws(n);
  size_t cub_bytes = 0;
  void* cub_tmp = nullptr;
  const rd::tiles_grid g = rd::tiles_pdl_grid<float>(n);
  std::printf("n 2^28 f32: tiles_pdl grid %u blocks x %u tiles; ping at +%lld MiB from the pool\n", g.blocks, g.chunk,
              (long long)(((char*)ws.ping.data() - pool) >> 20));
  int wrong = 0;
  auto check = [&] {
    float got;
    CK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    if ((double)got != want) ++wrong;
  };
  const size_t mib = size_t(1) << 20;
  const size_t offsets[] = {0, 2 * mib, 640 * mib, 1282 * mib, 2048 * mib, 2 * 1024 * mib + 770 * mib, 4096 * mib, 5118 * mib};
  for (size_t off : offsets) {
    float* in = reinterpret_cast<float*>(pool + off);
    fill_kernel<<<4096, 256>>>(in, n);
    CK(cudaDeviceSynchronize());
    if (!cub_tmp) {
      CK(cub::DeviceReduce::Sum(nullptr, cub_bytes, in, out, (int64_t)n));
      CK(cudaMalloc(&cub_tmp, cub_bytes));
    }
    const auto* v = reinterpret_cast<const float4*>(in);
    for (int round = 0; round < 3; ++round) {
      const float read = median_us([&] { bw::stream_sum(v, n / 4, fp, 0, bw::read_order::tiles); });
      const float pdl = median_us([&] { rd::sum(rd::variant::tiles_pdl, in, n, out, ws, 0); });
      check();
      const float first = median_us([&] {
        rd::reduce_tiles_kernel<float, rd::policy::vec_items><<<g.blocks, rd::policy::block_threads>>>(in, n, g.chunk, ws.ping.data());
      });
      const float pdl_small = median_us([&] {
        rd::reduce_tiles_kernel<float, rd::policy::vec_items><<<g.blocks, rd::policy::block_threads>>>(in, n, g.chunk, small);
        memscope::launch_dependent(rd::reduce_partials_kernel<float>, 1, rd::policy::finish_threads, 0, small, g.blocks, out);
      });
      check();
      const float cb = median_us([&] { cub::DeviceReduce::Sum(cub_tmp, cub_bytes, in, out, (int64_t)n); });
      check();
      std::printf("offset %5zu MiB round %d: read_tiles %.1f us | tiles_pdl %.1f (%.3fx read) | first kernel alone %.1f (%.3fx) | "
                  "pdl, small partials %.1f (%.3fx) | CUB %.1f (%.3fx) | pdl - first %.1f us\n",
                  off / mib, round, read, pdl, read / pdl, first, read / first, pdl_small, read / pdl_small, cb, read / cb,
                  pdl - first);
    }
  }
  std::printf("%d wrong sums\n", wrong);
  return wrong != 0;
}
