// Throw-away experiment: is the evict-first hints' loss from a clean or dirty L2 a cost, or
// only a cost moved? memscope's --cold and --cold=dirty time one kernel alone. A kernel whose
// stores carry no hint may end with up to an L2's worth of its output still dirty there, to be
// written back by whatever runs next, outside its time; with __stcs those lines go sooner,
// inside it. If that is all, kernel + the next kernel should take as long with either hint.
// Each sample: a start (clean: a read sweep of 2x L2; dirty: a write sweep of it), then events
// around K and around a consumer (the same read sweep, which evicts and writes back whatever
// K left), so K alone, the consumer alone and their sum come from one launch of each. "warm"
// runs K twice back to back and times the second. The two variants of each K alternate
// sample by sample; each figure is the median of 41 samples after 3 warm-ups.
// Built: nvcc -O3 -std=c++17 -arch=sm_90 -cudart static --expt-relaxed-constexpr \
//   -I../../../include deferral.cu -o deferral
#include "../../h200/issue20/experiments/timing.cuh"

#include "memscope/bandwidth/stream_kernels.cuh"
#include "memscope/shared/transpose.cuh"

#include <functional>
#include <string>

namespace bw = memscope::bandwidth;
namespace tp = memscope::transpose;

__global__ void sweep_read_kernel(const uint4* p, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    acc ^= p[i].x ^ p[i].w;
  if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads
}
__global__ void sweep_write_kernel(uint4* p, std::size_t n, unsigned v) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = make_uint4(v, v + 1, v + 2, (unsigned)i);
}

struct variant {
  std::string name;
  std::function<void()> run;
};

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t sweep_bytes = 2 * std::size_t(prop.l2CacheSize);
  const std::size_t sweep_n = sweep_bytes / 16;
  uint4* d_sweep;
  unsigned* d_sink;
  CK(cudaMalloc(&d_sweep, sweep_bytes));
  CK(cudaMalloc(&d_sink, 4));
  CK(cudaMemset(d_sweep, 1, sweep_bytes));
  const unsigned sweep_grid = prop.multiProcessorCount * 4;
  auto read_sweep = [&] { sweep_read_kernel<<<sweep_grid, 512>>>(d_sweep, sweep_n, d_sink); };
  unsigned salt = 0;
  auto write_sweep = [&] { sweep_write_kernel<<<sweep_grid, 512>>>(d_sweep, sweep_n, ++salt); };
  std::printf("%s, L2 %d MiB, sweep %zu MiB\n", prop.name, prop.l2CacheSize >> 20, sweep_bytes >> 20);

  const std::size_t max_bytes = std::size_t{1} << 30;
  float *d_a, *d_b;
  CK(cudaMalloc(&d_a, max_bytes));
  CK(cudaMalloc(&d_b, max_bytes));
  CK(cudaMemset(d_a, 0, max_bytes));

  using plain = bw::stream_variant<bw::stream_layout::tiled, 4, false, false>;
  using cs = bw::stream_variant<bw::stream_layout::tiled, 4, true, false>;
  using tp_cs = tp::vector_policy<64, 64, 512, tp::block_order::columns, true, 256>;
  using tp_plain = tp::vector_policy<64, 64, 512, tp::block_order::columns, false, 256>;

  struct workload {
    std::string name;
    variant a, b;
  };
  std::vector<workload> work;
  for (std::size_t mib : {16, 64, 256, 1024}) {
    const std::size_t n = (mib << 20) / 16;
    auto* a4 = reinterpret_cast<const float4*>(d_a);
    auto* b4 = reinterpret_cast<float4*>(d_b);
    work.push_back({"copy " + std::to_string(mib) + " MiB",
                    {"oneshot", [=] { bw::stream_map<plain>(bw::copy_op{}, b4, a4, (const float4*)nullptr, n, 0); }},
                    {"oneshot_streaming", [=] { bw::stream_map<cs>(bw::copy_op{}, b4, a4, (const float4*)nullptr, n, 0); }}});
  }
  for (int side : {2048, 4096, 16384}) {
    const tp::leading_dims ld{std::size_t(side), std::size_t(side)};
    work.push_back({"transpose " + std::to_string(side) + "^2",
                    {"cached", [=] { tp::launch_vector<tp_plain>(d_a, d_b, side, side, ld, 0); }},
                    {"evict-first", [=] { tp::launch_vector<tp_cs>(d_a, d_b, side, side, ld, 0); }}});
  }

  cudaEvent_t e0, e1, e2;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventCreate(&e2));
  std::printf("%-18s %-6s %-18s %9s %9s %9s\n", "workload", "start", "variant", "K us", "next us", "sum us");
  for (const auto& w : work) {
    for (const char* start : {"warm", "clean", "dirty"}) {
      const std::string s = start;
      std::vector<float> k[2], nx[2], sum[2];
      for (int r = 0; r < 44; ++r) {
        for (int v = 0; v < 2; ++v) {
          const variant& x = v ? w.b : w.a;
          if (s == "warm") x.run();
          else if (s == "clean") read_sweep();
          else write_sweep();
          CK(cudaEventRecord(e0));
          x.run();
          CK(cudaEventRecord(e1));
          read_sweep();
          CK(cudaEventRecord(e2));
          CK(cudaEventSynchronize(e2));
          float t1, t2;
          CK(cudaEventElapsedTime(&t1, e0, e1));
          CK(cudaEventElapsedTime(&t2, e1, e2));
          if (r >= 3) {
            k[v].push_back(t1 * 1000);
            nx[v].push_back(t2 * 1000);
            sum[v].push_back((t1 + t2) * 1000);
          }
        }
      }
      CK(cudaGetLastError());
      auto med = [](std::vector<float> t) { std::sort(t.begin(), t.end()); return t[t.size() / 2]; };
      for (int v = 0; v < 2; ++v)
        std::printf("%-18s %-6s %-18s %9.2f %9.2f %9.2f\n", w.name.c_str(), start, (v ? w.b : w.a).name.c_str(),
                    med(k[v]), med(nx[v]), med(sum[v]));
    }
  }
  return 0;
}
