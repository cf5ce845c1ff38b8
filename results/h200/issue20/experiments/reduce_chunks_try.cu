// Throw-away experiment (issue 20): waves_pdl (a grid of 8 waves, one partial per block, a
// PDL second kernel adds them) runs at 0.990x the one-block-per-tile read at 4 GiB on a lease
// where a persistent grid reads 1.6% slower than one block per tile (../pdl/reduce.txt). Does
// a first kernel closer to one block per tile (each block C consecutive tiles, blocks dispatched
// in order, so the blocks in flight read one compact window) keep the tile read's rate, and
// can a second kernel add its many partials fast enough (16-byte loads of the partials)?
//   chunks C:  one block per C consecutive tiles (C = 1: read_tiles itself plus a combine);
//   waves W:   the library's grid-stride first kernel at W waves;
// each with the PDL second kernel reading partials as 16-byte vectors. The `waves_pdl` column
// is the library's variant when this ran (a grid of 8 waves; since replaced by tiles_pdl, which
// is the `chunks` rows' kernel), so this file now calls tiles_pdl there.
#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/core/launch.cuh"
#include "memscope/shared/reduce.cuh"

#include "sum_inputs.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>

namespace rd = memscope::reduce;
namespace bw = memscope::bandwidth;
template <class T> using vec_t = typename rd::vec4<T>::type;

constexpr int threads = 256, items = 4;
constexpr std::size_t tile = threads * items;  // vectors

template <class T, int C>
__global__ void __launch_bounds__(threads) chunk_kernel(const vec_t<T>* in, size_t nv, T* partials) {
  T acc[items] = {};
  const size_t first = (size_t)blockIdx.x * C * tile + threadIdx.x;
#pragma unroll 1
  for (int c = 0; c < C; ++c) {
    const size_t i = first + c * tile;
    vec_t<T> v[items];
#pragma unroll
    for (int u = 0; u < items; ++u) v[u] = i + u * threads < nv ? in[i + u * threads] : vec_t<T>{};
#pragma unroll
    for (int u = 0; u < items; ++u) acc[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  T s = 0;
#pragma unroll
  for (int u = 0; u < items; ++u) s += acc[u];
  s = rd::block_sum_shuffle(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

template <class T>
__global__ void __launch_bounds__(threads) waves_kernel(const vec_t<T>* in, size_t nv, T* partials) {
  const T s = rd::grid_stride_block_sum<T, items>(reinterpret_cast<const T*>(in), nv * 4);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

// 1024 threads, 4 x 16-byte loads of partials in flight per thread (16 partials), then scalars.
template <class T>
__global__ void __launch_bounds__(1024) finish_vec_kernel(const T* partials, unsigned count, T* out) {
  memscope::wait_for_prior_grid();
  const auto* pv = reinterpret_cast<const vec_t<T>*>(partials);
  const unsigned cv = count / 4;
  T total = 0;
  for (unsigned b0 = threadIdx.x; b0 < cv; b0 += 4 * 1024) {
    vec_t<T> p[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) p[u] = b0 + u * 1024 < cv ? __ldcg(pv + b0 + u * 1024) : vec_t<T>{};
#pragma unroll
    for (int u = 0; u < 4; ++u) total += (p[u].x + p[u].y) + (p[u].z + p[u].w);
  }
  if (threadIdx.x < count % 4) total += partials[cv * 4 + threadIdx.x];
  total = rd::block_sum_shuffle(total);
  if (threadIdx.x == 0) *out = total;
}

template <class T>
void run(const T* in, const std::vector<float>& h, unsigned resident) {
  T *partials, *out;
  CK(cudaMalloc(&partials, 1 << 24));
  CK(cudaMalloc(&out, sizeof(T)));
  float* fp;
  CK(cudaMalloc(&fp, 1 << 22));
  rd::reduce_workspace<T> ws(size_t(1) << 30);
  const char* name = T(0.5) != T(0) ? "f32" : "i32";
  for (int lg : {26, 28, 30}) {
    const size_t n = size_t(1) << lg, nv = n / 4, tiles = (nv + tile - 1) / tile;
    sum_checker checker(h, n);
    auto check = [&] { checker(out); };
    int& wrong = checker.wrong;
    void* cub_tmp = nullptr;
    size_t cub_bytes = 0;
    cub::DeviceReduce::Sum(nullptr, cub_bytes, in, out, (int64_t)n);
    CK(cudaMalloc(&cub_tmp, cub_bytes));
    const auto* v = reinterpret_cast<const vec_t<T>*>(in);
    const float rt = median_us([&] { bw::stream_sum(v, nv, fp, 0, bw::read_order::tiles); });
    const float ro = median_us([&] { bw::stream_sum(v, nv, fp, 0); });
    const float cb = median_us([&] { cub::DeviceReduce::Sum(cub_tmp, cub_bytes, in, out, (int64_t)n); });
    check();
    const float wp = median_us([&] { rd::sum(rd::variant::tiles_pdl, in, n, out, ws, 0); });
    check();
    printf("%s 2^%d: read_tiles %.1f us = 1 | read_only %.3f CUB %.3f waves_pdl %.3f\n", name, lg, rt, rt / ro, rt / cb, rt / wp);
    auto sum_with = [&](auto first, unsigned grid) {
      const float alone = median_us([&] { first<<<grid, threads>>>(v, nv, partials); });
      const float sum = median_us([&] {
        first<<<grid, threads>>>(v, nv, partials);
        memscope::launch_dependent(finish_vec_kernel<T>, 1, 1024, nullptr, (const T*)partials, grid, out);
      });
      check();
      printf(" (%6u blocks) read alone %.3f, sum %.3f |", grid, rt / alone, rt / sum);
    };
    auto chunks = [&](auto kernel, int c) {
      printf("  chunks %2d", c);
      sum_with(kernel, (unsigned)((tiles + c - 1) / c));
      printf("\n");
    };
    chunks(chunk_kernel<T, 1>, 1);
    chunks(chunk_kernel<T, 2>, 2);
    chunks(chunk_kernel<T, 4>, 4);
    chunks(chunk_kernel<T, 8>, 8);
    chunks(chunk_kernel<T, 16>, 16);
    for (unsigned w : {8u, 16u, 32u}) {
      printf("  waves %2u", w);
      sum_with(waves_kernel<T>, (unsigned)std::min<size_t>(w * resident, tiles));
      printf("\n");
    }
    printf("  %d wrong\n", wrong);
    CK(cudaFree(cub_tmp));
  }
}

int main() {
  int sms, per_sm;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, waves_kernel<float>, threads, 0));
  const sum_inputs in;
  float* f = in.f;
  int* i = in.i;
  const std::vector<float>& h = in.h;
  printf("%d SMs x %d blocks of 256 resident\n", sms, per_sm);
  run(f, h, sms * per_sm);
  run(i, h, sms * per_sm);
  return 0;
}
