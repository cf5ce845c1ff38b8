// Throw-away experiment (not memscope): tiles_pdl's first kernel takes policy::chunk_tiles = 8
// consecutive tiles per block where that leaves policy::min_waves = 4 waves. On one lease
// (tiles_pdl_placement.txt) that kernel alone ran at 0.986-0.991x the one-block-per-tile read
// at 2^28 f32, while issue 20's chunk sweep (reduce_chunks_try.txt) had 0.995x on another.
// Which chunk keeps the read's rate on this lease? For 2^26, 2^28 and 2^30 floats, 3 rounds
// each: the tile read, then for every chunk the first kernel alone and the two kernels (the
// second a programmatic dependent launch), as tiles_pdl runs them. Every sum checked.
#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/shared/reduce.cuh"

// fill_kernel: whole numbers in [-8, 8] (every partial sum exact); the build that ran had the
// same kernel written out here.
#include "../../issue20/experiments/sum_inputs.cuh"

#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

namespace rd = memscope::reduce;
namespace bw = memscope::bandwidth;

int main() {
  const size_t max_n = size_t(1) << 30;
  float *in, *out, *fp, *partials;
  CK(cudaMalloc(&in, max_n * 4));
  CK(cudaMalloc(&out, sizeof(float)));
  CK(cudaMalloc(&fp, 1 << 22));
  CK(cudaMalloc(&partials, 1 << 22));
  fill_kernel<<<4096, 256>>>(in, max_n);
  CK(cudaDeviceSynchronize());
  constexpr size_t tile = size_t{rd::policy::block_threads} * rd::policy::vec_items;
  int wrong = 0;
  for (int lg : {26, 28, 30}) {
    const size_t n = size_t(1) << lg, tiles = (n / 4 + tile - 1) / tile;
    double want = 0;
    for (size_t i = 0; i < n; ++i) want += (double)((int)((i * 2654435761u >> 7) % 17) - 8);
    const rd::tiles_grid lib = rd::tiles_pdl_grid<float>(n);
    std::printf("f32 2^%d: %zu tiles; the library takes %u per block (%u blocks)\n", lg, tiles, lib.chunk, lib.blocks);
    for (int round = 0; round < 3; ++round) {
      const float read = median_us([&] { bw::stream_sum(reinterpret_cast<const float4*>(in), n / 4, fp, 0, bw::read_order::tiles); });
      std::printf("  round %d: read_tiles %.1f us |", round, read);
      for (unsigned chunk : {1u, 2u, 3u, 4u, 6u, 8u, 16u}) {
        const unsigned blocks = (unsigned)((tiles + chunk - 1) / chunk);
        const float first = median_us([&] {
          rd::reduce_tiles_kernel<float, rd::policy::vec_items><<<blocks, rd::policy::block_threads>>>(in, n, chunk, partials);
        });
        const float both = median_us([&] {
          rd::reduce_tiles_kernel<float, rd::policy::vec_items><<<blocks, rd::policy::block_threads>>>(in, n, chunk, partials);
          memscope::launch_dependent(rd::reduce_partials_kernel<float>, 1, rd::policy::finish_threads, 0, partials, blocks, out);
        });
        float got;
        CK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
        if ((double)got != want) ++wrong;
        std::printf(" c%u %.3f/%.3f", chunk, read / first, read / both);
      }
      std::printf("  (first alone / both, x the read)\n");
    }
  }
  std::printf("%d wrong sums\n", wrong);
  return wrong != 0;
}
