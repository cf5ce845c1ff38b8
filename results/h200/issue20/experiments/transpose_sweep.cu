// Throw-away experiment (issue 20): a 4-byte copy in one-block-per-tile order runs at 1.00x
// cudaMemcpy on the H200 while a 16-byte copy runs at 0.955x (../tail/bandwidth.txt), so the
// transpose's plateau at ~0.92x was measured against the wrong SM ceiling. Which tile, access
// width, block size and block order brings a shared-memory transpose closest to cudaMemcpy?
// out (cols x rows) = in (rows x cols)^T; rows, cols multiples of 128.
//   transpose_sweep 1: every tile/threads/width in four block orders, packed, three shapes;
//   transpose_sweep 2: the best of those down tile columns and along tile rows, leading
//                      dimensions packed and skewed by 512 B;
//   transpose_sweep 3: six block orders for the 8192 x 32768 shape (and the square one);
//   transpose_sweep 4: bands of 2, 3, 4 and 8 tile rows for the 8192 x 32768 shape, packed,
//                      each order measured twice (is a narrow band >= 0.95x?);
//   transpose_sweep 5: down tile columns, each group of G tile rows shifted by one more tile
//                      column (order -100 - G), so the rows read at once do not all sit at one
//                      column offset of the 128 KiB input pitch while the output rows are still
//                      written in runs of G tiles;
//   transpose_sweep 6: the top half of the tile rows along tile rows, the bottom half down
//                      tile columns, the two interleaved block by block (order -3), so the row
//                      order's scattered writes and the column order's scattered reads are in
//                      flight together: do they land on different DRAM channels?
//   transpose_sweep 7: down tile columns, consecutive tile columns taken from Q regions of
//                      the matrix's width in turn (order -200 - Q), so the input rows read at
//                      once sit at Q column offsets tiles_x / Q tile columns apart (for Q = 2
//                      on 128 KiB rows: 64 KiB apart, as in the square's 64 KiB rows);
//   transpose_sweep 8: the same orders on 256 and 512 KiB input rows (4096 x 65536,
//                      2048 x 131072): which Q, if region starts 64 KiB apart is the rule?
#include "timing.cuh"

#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

template <int W> struct vec;
template <> struct vec<1> { using type = float; };
template <> struct vec<2> { using type = float2; };
template <> struct vec<4> { using type = float4; };

// Order: 0 row-major tiles (x = tile column fastest), 1 column-major, B > 1: bands of B tile
// rows walked column by column, -1: diagonal (tile column shifted by the tile row), -2: the
// same shifted by 8 tile columns a tile row.
template <int Order>
__device__ __forceinline__ void tile_of(int tiles_x, int tiles_y, int& tx, int& ty) {
  const int b = blockIdx.x;
  if (Order == 0) { tx = b % tiles_x; ty = b / tiles_x; }
  else if (Order == -1) { ty = b % tiles_y; tx = (b / tiles_y + ty) % tiles_x; }
  else if (Order == -2) { ty = b % tiles_y; tx = (b / tiles_y + 8 * ty) % tiles_x; }
  else if (Order == 1) { ty = b % tiles_y; tx = b / tiles_y; }
  else if (Order <= -200) {
    constexpr int Q = Order <= -200 ? -200 - Order : 1;
    ty = b % tiles_y;
    const int k = b / tiles_y, region = tiles_x / Q;
    tx = (k / Q) + (k % Q) * region;
  }
  else if (Order == -3) {
    const int half = tiles_y / 2, top = half * tiles_x, k = b / 2;
    if (b % 2 == 0 && k < top) { tx = k % tiles_x; ty = k / tiles_x; }
    else if (b % 2 == 1 && k < tiles_x * (tiles_y - half)) { ty = half + k % (tiles_y - half); tx = k / (tiles_y - half); }
    else {  // the longer half's leftover blocks, in its own order
      const int extra = b - 2 * (top < tiles_x * (tiles_y - half) ? top : tiles_x * (tiles_y - half));
      if (top > tiles_x * (tiles_y - half)) { const int kk = tiles_x * (tiles_y - half) + extra; tx = kk % tiles_x; ty = kk / tiles_x; }
      else { const int kk = top + extra; ty = half + kk % (tiles_y - half); tx = kk / (tiles_y - half); }
    }
  }
  else if (Order <= -100) { constexpr int G = Order <= -100 ? -100 - Order : 1; ty = b % tiles_y; tx = (b / tiles_y + ty / G) % tiles_x; }
  else {
    constexpr int B = Order > 1 ? Order : 2;
    const int band = b / (B * tiles_x), in_band = b % (B * tiles_x);
    ty = band * B + in_band % B;
    tx = in_band / B;
  }
}

// T x T tile, Threads threads, W floats per access (rows read and written W at a time).
template <int T, int Threads, int W, int Order>
__global__ void __launch_bounds__(Threads) transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, size_t ldi, size_t ldo) {
  using V = typename vec<W>::type;
  __shared__ float s[T][T + 1];
  constexpr int lanes = T / W, row_step = Threads / lanes;
  static_assert(Threads % lanes == 0, "");
  int tx, ty;
  tile_of<Order>(cols / T, rows / T, tx, ty);
  const int r0 = ty * T, c0 = tx * T;
  const int lx = threadIdx.x % lanes, ly = threadIdx.x / lanes;
  V v[T / row_step];
#pragma unroll
  for (int k = 0; k < T / row_step; ++k)
    v[k] = *reinterpret_cast<const V*>(in + (size_t)(r0 + ly + k * row_step) * ldi + c0 + lx * W);
#pragma unroll
  for (int k = 0; k < T / row_step; ++k) {
    const float* f = reinterpret_cast<const float*>(&v[k]);
#pragma unroll
    for (int w = 0; w < W; ++w) s[ly + k * row_step][lx * W + w] = f[w];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < T / row_step; ++k) {
    V o;
    float* f = reinterpret_cast<float*>(&o);
#pragma unroll
    for (int w = 0; w < W; ++w) f[w] = s[lx * W + w][ly + k * row_step];
    *reinterpret_cast<V*>(out + (size_t)(c0 + ly + k * row_step) * ldo + r0 + lx * W) = o;
  }
}

template <int W>
__global__ void __launch_bounds__(256) copy_kernel(const float* __restrict__ in, float* __restrict__ out, size_t n) {
  using V = typename vec<W>::type;
  const size_t i0 = (size_t)blockIdx.x * 1024 + threadIdx.x;
  V v[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) v[u] = reinterpret_cast<const V*>(in)[i0 + u * 256];
#pragma unroll
  for (int u = 0; u < 4; ++u) reinterpret_cast<V*>(out)[i0 + u * 256] = v[u];
}


__global__ void fill_kernel(float* p, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = (float)(i % 8388593);
}

float* g_in;
float* g_out;
float g_ce;

size_t g_ldi, g_ldo;
int sample_check(int rows, int cols) {
  static std::mt19937_64 rng(1);
  int bad = 0;
  for (int k = 0; k < 2000; ++k) {
    const size_t r = rng() % rows, c = rng() % cols;
    float got;
    CK(cudaMemcpy(&got, g_out + c * g_ldo + r, 4, cudaMemcpyDeviceToHost));
    if (got != (float)((r * g_ldi + c) % 8388593)) ++bad;
  }
  return bad;
}

template <int T, int Threads, int W, int Order>
void one(int rows, int cols) {
  const unsigned blocks = (unsigned)((size_t)rows / T * (cols / T));
  CK(cudaMemset(g_out, 0xFF, (size_t)cols * g_ldo * 4));
  const float t = median_us([&] { transpose_kernel<T, Threads, W, Order><<<blocks, Threads>>>(g_in, g_out, rows, cols, g_ldi, g_ldo); });
  printf("  T%-3d threads %-4d w%d order %-2d: %.3fx (%d wrong)\n", T, Threads, W, Order, g_ce / t, sample_check(rows, cols));
}

template <int T, int Threads, int W, int... Orders>
void in_orders(int rows, int cols) {
  (one<T, Threads, W, Orders>(rows, cols), ...);
}

int main(int argc, char** argv) {
  const int sweep = argc > 1 ? std::atoi(argv[1]) : 1;
  const size_t n = (size_t(1) << 28) + 32768 * 128, bytes = n * 4;
  CK(cudaMalloc(&g_in, bytes));
  CK(cudaMalloc(&g_out, bytes));
  fill_kernel<<<4096, 256>>>(g_in, n);
  CK(cudaDeviceSynchronize());
  const size_t m = size_t(1) << 28;
  g_ce = median_us([&] { cudaMemcpyAsync(g_out, g_in, m * 4, cudaMemcpyDeviceToDevice); }, 31);
  const float c1 = median_us([&] { copy_kernel<1><<<m / 1024, 256>>>(g_in, g_out, m); }, 31);
  const float c4 = median_us([&] { copy_kernel<4><<<m / 4096, 256>>>(g_in, g_out, m); }, 31);
  printf("sweep %d; cudaMemcpy 1 GiB %.1f us; SM copy 4-byte %.3fx, 16-byte %.3fx\n", sweep, g_ce, g_ce / c1, g_ce / c4);
  using shape = std::pair<int, int>;
  const shape square{16384, 16384}, tall{32768, 8192}, wide{8192, 32768};
  std::vector<shape> shapes = {square, tall, wide};
  std::vector<int> skews = {0};
  if (sweep == 2) skews.push_back(128);
  if (sweep == 3) shapes = {wide, square}, skews.push_back(128);
  if (sweep == 4) shapes = {wide, square};
  if (sweep == 5) shapes = {wide, square, tall};
  if (sweep == 6) shapes = {wide, square, tall};
  if (sweep == 7) shapes = {wide, square, tall};
  if (sweep == 8) shapes = {shape{4096, 65536}, shape{2048, 131072}};
  for (int skew : skews)
    for (const auto& [rows, cols] : shapes) {
      g_ldi = cols + skew;
      g_ldo = rows + skew;
      printf("transpose %dx%d, leading dimensions +%d, of cudaMemcpy of the matrix:\n", rows, cols, skew);
      if (sweep == 1) {
        in_orders<32, 256, 1, 0, 1, 8, 32>(rows, cols);
        in_orders<32, 1024, 1, 0, 1, 8, 32>(rows, cols);
        in_orders<64, 256, 1, 0, 1, 8, 32>(rows, cols);
        in_orders<64, 512, 1, 0, 1, 8, 32>(rows, cols);
        in_orders<64, 1024, 1, 0, 1, 8, 32>(rows, cols);
        in_orders<64, 256, 2, 0, 1, 8, 32>(rows, cols);
        in_orders<64, 512, 2, 0, 1, 8, 32>(rows, cols);
        in_orders<32, 128, 1, 0, 1, 8, 32>(rows, cols);
        in_orders<64, 128, 2, 0, 1, 8, 32>(rows, cols);
      } else if (sweep == 2) {
        in_orders<64, 256, 2, 0, 1>(rows, cols);
        in_orders<64, 512, 2, 0, 1>(rows, cols);
        in_orders<64, 1024, 2, 0, 1>(rows, cols);
        in_orders<64, 256, 4, 0, 1>(rows, cols);
        in_orders<64, 512, 4, 0, 1>(rows, cols);
        in_orders<64, 512, 1, 0, 1>(rows, cols);
        in_orders<32, 256, 2, 0, 1>(rows, cols);
      } else if (sweep == 8) {
        in_orders<64, 512, 2, 0, 1, -202, -204, -208, -216, 0, 1, -202, -204, -208, -216>(rows, cols);
      } else if (sweep == 7) {
        in_orders<64, 512, 2, 0, 1, -202, -204, -208, -216, 0, 1, -202, -204, -208, -216>(rows, cols);
      } else if (sweep == 6) {
        in_orders<64, 512, 2, 0, 1, -3, 0, 1, -3>(rows, cols);
      } else if (sweep == 5) {
        in_orders<64, 512, 2, 0, 1, -104, -108, -116, -132, 0, 1, -104, -108, -116, -132>(rows, cols);
      } else if (sweep == 4) {
        in_orders<64, 512, 2, 0, 2, 3, 4, 8, 1, 0, 2, 3, 4, 8, 1>(rows, cols);
        in_orders<64, 256, 4, 0, 2, 4, 0, 2, 4>(rows, cols);
      } else {
        in_orders<64, 512, 2, 0, 1, -1, -2, 16, 64>(rows, cols);
        in_orders<64, 256, 4, 0, 1, -1, -2, 16, 64>(rows, cols);
      }
    }
  return 0;
}
