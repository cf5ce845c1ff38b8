// Throw-away experiment (issue 18): can an SM copy of mapped pinned host memory come closer to
// the copy engine, one way and both ways at once? The library's kernel (16-byte loads, 8 in
// flight per thread, the grid split in two by blockIdx.y for both ways; since 7e8606d the
// library serves both ways at 1 GiB with every thread, so built on later headers its "library
// SM both" line is that kernel, and the split is the "LDG both ... 0.500" point) against
//  - bulk copies (TMA, cp.async.bulk): one thread per block streams chunks through a ring of
//    shared-memory stages, global -> shared -> global, so each request is a whole chunk;
//  - both ways with the grid split unevenly, or with every thread copying both ways.
// 1 GiB per direction, mapped cudaHostAlloc memory, each variant event-timed, median of 9 after
// 3 warm-ups; every destination checked against the pattern afterwards.
// `./zero_copy_try peer`: the same copies with GPU 1's memory as the far side (over NVLink where
// the GPUs have it), peer access enabled both ways: "up" reads the peer, "down" writes it. Added
// after the host runs (zero_copy_try.txt), for a two-GPU machine; the kernels are unchanged.
// `peer-self` runs that path with GPU 0 as its own peer (a correctness check on one GPU).
// Built: nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -I../../../../include zero_copy_try.cu
#include "../../issue20/experiments/timing.cuh"
#include "memscope/transfer/sm_copy.cuh"

#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tr = memscope::transfer;

__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_init(uint64_t* b) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(b)));
}
__device__ __forceinline__ void mbar_expect(uint64_t* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* b, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(smem_addr(b)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(b))
               : "memory");
}
__device__ __forceinline__ void bulk_store(void* dst, const void* src, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_addr(src)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory"); }
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

// Chunks of `chunk` bytes (a multiple of 16; bytes a multiple of chunk), block b of a job's
// `blocks` takes chunks b, b + blocks, ...; `stages` chunks in flight per block. Blocks below
// `split` copy job a, the rest job b.
__global__ void __launch_bounds__(32) tma_copy_kernel(tr::copy_job a, tr::copy_job b, size_t bytes, unsigned chunk,
                                                      int stages, unsigned split) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ uint64_t bar[16];
  if (threadIdx.x != 0) return;
  const bool first = blockIdx.x < split;
  const tr::copy_job job = first ? a : b;
  const unsigned blocks = first ? split : gridDim.x - split;
  const unsigned me = first ? blockIdx.x : blockIdx.x - split;
  const size_t chunks = bytes / chunk;
  const size_t mine = me < chunks ? (chunks - me + blocks - 1) / blocks : 0;
  for (int s = 0; s < stages; ++s) mbar_init(&bar[s]);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  auto load = [&](size_t k) {
    const int s = static_cast<int>(k % stages);
    mbar_expect(&bar[s], chunk);
    bulk_load(ring + size_t(s) * chunk, job.src + (me + k * blocks) * chunk, chunk, &bar[s]);
  };
  for (size_t k = 0; k < mine && k < size_t(stages); ++k) load(k);
  for (size_t k = 0; k < mine; ++k) {
    const int s = static_cast<int>(k % stages);
    mbar_wait(&bar[s], static_cast<unsigned>((k / stages) & 1));
    bulk_store(job.dst + (me + k * blocks) * chunk, ring + size_t(s) * chunk, chunk);
    if (k + stages < mine) {
      bulk_wait_read<0>();  // the stage is free once the store has read it
      load(k + stages);
    }
  }
  bulk_wait_all();
}

// The library's loop, with the grid split at `split` instead of by blockIdx.y.
__global__ void __launch_bounds__(512) ldg_split_kernel(tr::copy_job a, tr::copy_job b, size_t bytes, unsigned split) {
  const bool first = blockIdx.x < split;
  const tr::copy_job job = first ? a : b;
  const size_t blocks = first ? split : gridDim.x - split;
  const size_t me = first ? blockIdx.x : blockIdx.x - split;
  const size_t stride = blocks * blockDim.x, n = bytes / 16;
  auto* d = reinterpret_cast<uint4*>(job.dst);
  const auto* s = reinterpret_cast<const uint4*>(job.src);
  constexpr int k = 8;
  size_t i = me * blockDim.x + threadIdx.x;
  for (; i + (k - 1) * stride < n; i += k * stride) {
    uint4 v[k];
#pragma unroll
    for (int j = 0; j < k; ++j) v[j] = s[i + j * stride];
#pragma unroll
    for (int j = 0; j < k; ++j) d[i + j * stride] = v[j];
  }
  for (; i < n; i += stride) d[i] = s[i];
}

// Every thread copies both ways: 4 vectors of each job in flight.
__global__ void __launch_bounds__(512) ldg_mixed_kernel(tr::copy_job a, tr::copy_job b, size_t bytes) {
  const size_t stride = size_t(gridDim.x) * blockDim.x, n = bytes / 16;
  constexpr int k = 4;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (k - 1) * stride < n; i += k * stride) {
    uint4 va[k], vb[k];
#pragma unroll
    for (int j = 0; j < k; ++j) {
      va[j] = reinterpret_cast<const uint4*>(a.src)[i + j * stride];
      vb[j] = reinterpret_cast<const uint4*>(b.src)[i + j * stride];
    }
#pragma unroll
    for (int j = 0; j < k; ++j) {
      reinterpret_cast<uint4*>(a.dst)[i + j * stride] = va[j];
      reinterpret_cast<uint4*>(b.dst)[i + j * stride] = vb[j];
    }
  }
  for (; i < n; i += stride) {
    reinterpret_cast<uint4*>(a.dst)[i] = reinterpret_cast<const uint4*>(a.src)[i];
    reinterpret_cast<uint4*>(b.dst)[i] = reinterpret_cast<const uint4*>(b.src)[i];
  }
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "host";
  if (mode != "host" && mode != "peer" && mode != "peer-self") {
    std::printf("usage: zero_copy_try [host|peer|peer-self]\n");
    return 2;
  }
  const bool peer = mode != "host";
  const size_t bytes = size_t(1) << 30;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned char *h_up, *h_down, *d_up, *d_down, *d_a, *d_b;
  unsigned char *m_up, *m_down;  // the far side as GPU 0's kernels address it
  if (mode == "peer") {
    int gpus = 0, can01 = 0, can10 = 0;
    CK(cudaGetDeviceCount(&gpus));
    if (gpus < 2) {
      std::printf("skipped: peer mode needs two GPUs, this machine has %d\n", gpus);
      return 0;
    }
    CK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    CK(cudaDeviceCanAccessPeer(&can10, 1, 0));
    if (!can01 || !can10) {
      std::printf("skipped: GPUs 0 and 1 cannot access each other's memory\n");
      return 0;
    }
    CK(cudaSetDevice(1));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    CK(cudaMalloc(&m_up, bytes));
    CK(cudaMalloc(&m_down, bytes));
    CK(cudaSetDevice(0));
    CK(cudaDeviceEnablePeerAccess(1, 0));
  } else if (peer) {
    CK(cudaMalloc(&m_up, bytes));
    CK(cudaMalloc(&m_down, bytes));
  } else {
    CK(cudaSetDeviceFlags(cudaDeviceMapHost));
    CK(cudaHostAlloc(&h_up, bytes, cudaHostAllocMapped));
    CK(cudaHostAlloc(&h_down, bytes, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&m_up), h_up, 0));
    CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&m_down), h_down, 0));
  }
  if (peer) {  // the copy engine's far side is the device pointer itself (unified addressing)
    h_up = m_up;
    h_down = m_down;
  }
  std::printf("mode %s\n", mode.c_str());
  CK(cudaMalloc(&d_up, bytes));
  CK(cudaMalloc(&d_down, bytes));
  CK(cudaMalloc(&d_a, bytes));
  CK(cudaMalloc(&d_b, bytes));
  cudaStream_t s0, s1;
  CK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  const uint64_t seed_up = 11, seed_down = 23;
  tr::fill_pattern(m_up, bytes, seed_up, s0);
  tr::fill_pattern(d_down, bytes, seed_down, s0);
  tr::fill_pattern(d_a, bytes, 5, s0);
  CK(cudaStreamSynchronize(s0));
  const tr::copy_job up{d_up, m_up}, down{m_down, d_down}, dd{d_b, d_a};
  cudaEvent_t fork, join;
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

  // The timing helper records on the legacy stream; launches go on s0 (non-blocking), so each is
  // bracketed by events that tie it to the legacy stream.
  auto on_legacy = [&](auto enqueue) {
    return [&, enqueue] {
      CK(cudaEventRecord(fork, 0));
      CK(cudaStreamWaitEvent(s0, fork));
      enqueue();
      CK(cudaEventRecord(join, s0));
      CK(cudaStreamWaitEvent(0, join));
    };
  };
  auto check = [&](const char* what, bool up_done, bool down_done) {
    std::string out;
    if (up_done) {
      const auto bad = tr::count_pattern_mismatches(d_up, bytes, seed_up, s0);
      out += bad.first ? " UP WRONG" : "";
      CK(cudaMemsetAsync(d_up, 0, bytes, s0));
    }
    if (down_done) {
      const auto bad = tr::count_pattern_mismatches(m_down, bytes, seed_down, s0);
      out += bad.first ? " DOWN WRONG" : "";
      CK(cudaMemsetAsync(m_down, 0, bytes, s0));
    }
    CK(cudaStreamSynchronize(s0));
    return out.empty() ? std::string(" ok") : out;
  };
  const int reps = 9;
  auto gbps = [&](float us, int dirs) { return double(bytes) * dirs / (us * 1e3); };

  // Copy engines.
  const float ce_up = median_us(on_legacy([&] { CK(cudaMemcpyAsync(d_up, h_up, bytes, cudaMemcpyDefault, s0)); }), reps);
  const float ce_down = median_us(on_legacy([&] { CK(cudaMemcpyAsync(h_down, d_down, bytes, cudaMemcpyDefault, s0)); }), reps);
  const float ce_both = median_us(on_legacy([&] {
                                    CK(cudaEventRecord(fork, s0));
                                    CK(cudaStreamWaitEvent(s1, fork));
                                    CK(cudaMemcpyAsync(d_up, h_up, bytes, cudaMemcpyDefault, s0));
                                    CK(cudaMemcpyAsync(h_down, d_down, bytes, cudaMemcpyDefault, s1));
                                    CK(cudaEventRecord(join, s1));
                                    CK(cudaStreamWaitEvent(s0, join));
                                  }),
                                  reps);
  std::printf("CE up %.1f GB/s, down %.1f GB/s, both %.1f GB/s%s\n", gbps(ce_up, 1), gbps(ce_down, 1), gbps(ce_both, 2),
              check("ce", true, true).c_str());
  const float ce_dd = median_us([&] { CK(cudaMemcpyAsync(d_b, d_a, bytes, cudaMemcpyDeviceToDevice, 0)); }, reps);
  std::printf("CE device-to-device %.1f GB/s (read+write)\n", gbps(ce_dd, 2));

  // The library's kernel.
  {
    const float up_us = median_us(on_legacy([&] { tr::sm_copy(d_up, m_up, bytes, s0); }), reps);
    const float down_us = median_us(on_legacy([&] { tr::sm_copy(m_down, d_down, bytes, s0); }), reps);
    const float both_us = median_us(on_legacy([&] { tr::sm_copy_both(d_up, m_up, m_down, d_down, bytes, s0); }), reps);
    std::printf("library SM: up %.3fx, down %.3fx, both %.3fx CE%s\n", ce_up / up_us, ce_down / down_us, ce_both / both_us,
                check("lib", true, true).c_str());
    const float dd_us = median_us([&] { tr::sm_copy(d_b, d_a, bytes, 0); }, reps);
    std::printf("library SM device-to-device: %.3fx CE\n", ce_dd / dd_us);
  }

  // Both ways with the grid split unevenly (fraction of 2 blocks per SM given to the upload).
  for (int bps : {1, 2}) {
    const unsigned grid = unsigned(sms * bps);
    std::printf("LDG both, %d x 512 per SM, blocks uploading:", bps);
    for (double f : {0.25, 0.375, 0.5, 0.625, 0.75}) {
      const unsigned split = unsigned(grid * f + 0.5);
      const float us = median_us(on_legacy([&] { ldg_split_kernel<<<grid, 512, 0, s0>>>(up, down, bytes, split); }), reps);
      std::printf(" %.3f: %.3fx", f, ce_both / us);
    }
    std::printf("%s\n", check("split", true, true).c_str());
    const float mixed = median_us(on_legacy([&] { ldg_mixed_kernel<<<grid, 512, 0, s0>>>(up, down, bytes); }), reps);
    std::printf("LDG both, every thread both ways, %d x 512 per SM: %.3fx CE%s\n", bps, ce_both / mixed,
                check("mixed", true, true).c_str());
  }

  // Bulk copies.
  CK(cudaFuncSetAttribute(tma_copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  struct shape {
    unsigned chunk;
    int stages, per_sm;
  };
  for (shape sh : {shape{4096, 8, 4}, shape{8192, 4, 4}, shape{8192, 8, 2}, shape{16384, 4, 2}, shape{16384, 8, 1},
                   shape{32768, 4, 1}, shape{32768, 6, 1}, shape{65536, 3, 1}, shape{16384, 2, 4}}) {
    const size_t smem = size_t(sh.chunk) * sh.stages;
    const unsigned grid = unsigned(sms * sh.per_sm);
    auto run = [&](tr::copy_job a, tr::copy_job b, unsigned split) {
      tma_copy_kernel<<<grid, 32, smem, s0>>>(a, b, bytes, sh.chunk, sh.stages, split);
      CK(cudaGetLastError());
    };
    const float up_us = median_us(on_legacy([&] { run(up, up, grid); }), reps);
    const float down_us = median_us(on_legacy([&] { run(down, down, grid); }), reps);
    const float both_us = median_us(on_legacy([&] { run(up, down, grid / 2); }), reps);
    const std::string ok = check("tma", true, true);
    CK(cudaMemset(d_b, 0, bytes));
    const float dd_us = median_us([&] {
      tma_copy_kernel<<<grid, 32, smem, 0>>>(dd, dd, bytes, sh.chunk, sh.stages, grid);
    }, reps);
    const auto dd_bad = tr::count_pattern_mismatches(d_b, bytes, 5, s0);
    std::printf("TMA chunk %6u x %d stages, %d blocks/SM: up %.3fx, down %.3fx, both %.3fx CE%s; device-to-device %.3fx%s\n",
                sh.chunk, sh.stages, sh.per_sm, ce_up / up_us, ce_down / down_us, ce_both / both_us, ok.c_str(),
                ce_dd / dd_us, dd_bad.first ? " WRONG" : " ok");
  }
  std::printf("done\n");
  return 0;
}
