// Throw-away tuning experiment (not part of memscope): peer SM copy shapes, CE both directions,
// managed prefetch over several streams.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <functional>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

template <int K>
__global__ void copyk(uint4* __restrict__ d, const uint4* __restrict__ s, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (K - 1) * stride < n; i += K * stride) {
    uint4 v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = s[i + j * stride];
#pragma unroll
    for (int j = 0; j < K; ++j) d[i + j * stride] = v[j];
  }
  for (; i < n; i += stride) d[i] = s[i];
}
// contiguous per-block tiles (each block copies a contiguous chunk per trip)
template <int K>
__global__ void copytile(uint4* __restrict__ d, const uint4* __restrict__ s, size_t n) {
  const size_t tile = (size_t)blockDim.x * K;
  for (size_t base = (size_t)blockIdx.x * tile; base < n; base += (size_t)gridDim.x * tile) {
    uint4 v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) { size_t i = base + j * blockDim.x + threadIdx.x; if (i < n) v[j] = s[i]; }
#pragma unroll
    for (int j = 0; j < K; ++j) { size_t i = base + j * blockDim.x + threadIdx.x; if (i < n) d[i] = v[j]; }
  }
}

double timeit(std::function<void(cudaStream_t)> f, cudaStream_t s, int reps = 15) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  f(s); f(s); CK(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(a, s)); f(s); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1e-3); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}

int main() {
  int n = 0; CK(cudaGetDeviceCount(&n));
  const size_t bytes = size_t(1) << 30, nv = bytes / 16;
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t s; CK(cudaSetDevice(0)); CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (n >= 2) {
    CK(cudaDeviceEnablePeerAccess(1, 0));
    CK(cudaSetDevice(1)); CK(cudaDeviceEnablePeerAccess(0, 0));
    void *p_src, *p_dst; CK(cudaMalloc(&p_src, bytes)); CK(cudaMalloc(&p_dst, bytes));
    CK(cudaMemset(p_src, 1, bytes)); cudaStream_t s1; CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaSetDevice(0));
    void *l_src, *l_dst; CK(cudaMalloc(&l_src, bytes)); CK(cudaMalloc(&l_dst, bytes)); CK(cudaMemset(l_src, 2, bytes));
    double ce_r = timeit([&](cudaStream_t q) { CK(cudaMemcpyPeerAsync(l_dst, 0, p_src, 1, bytes, q)); }, s);
    double ce_w = timeit([&](cudaStream_t q) { CK(cudaMemcpyPeerAsync(p_dst, 1, l_src, 0, bytes, q)); }, s);
    printf("CE read %.1f GB/s, write %.1f GB/s\n", bytes / ce_r / 1e9, bytes / ce_w / 1e9);
    // both: local stream pushes, peer stream pushes the other way
    cudaEvent_t fork, join, join1; CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    CK(cudaSetDevice(1)); CK(cudaEventCreateWithFlags(&join1, cudaEventDisableTiming)); CK(cudaSetDevice(0));
    double ce_b2 = timeit([&](cudaStream_t q) {
      CK(cudaEventRecord(fork, q)); CK(cudaStreamWaitEvent(s1, fork, 0));
      CK(cudaMemcpyPeerAsync(p_dst, 1, l_src, 0, bytes, q));
      CK(cudaMemcpyPeerAsync(l_dst, 0, p_src, 1, bytes, s1));
      CK(cudaEventRecord(join1, s1)); CK(cudaStreamWaitEvent(q, join1, 0)); }, s);
    printf("CE both, each GPU pushes: %.1f GB/s total\n", 2 * bytes / ce_b2 / 1e9);
    cudaStream_t s2; CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    double ce_b1 = timeit([&](cudaStream_t q) {
      CK(cudaEventRecord(fork, q)); CK(cudaStreamWaitEvent(s2, fork, 0));
      CK(cudaMemcpyPeerAsync(p_dst, 1, l_src, 0, bytes, q));
      CK(cudaMemcpyPeerAsync(l_dst, 0, p_src, 1, bytes, s2));
      CK(cudaEventRecord(join, s2)); CK(cudaStreamWaitEvent(q, join, 0)); }, s);
    printf("CE both, both from GPU 0's streams: %.1f GB/s total\n", 2 * bytes / ce_b1 / 1e9);
    for (int threads : {256, 512, 1024})
      for (int bps : {1, 2, 4, 8}) {
        if (threads * bps > 2048) continue;
        unsigned grid = sms * bps;
        double r8 = timeit([&](cudaStream_t q) { copyk<8><<<grid, threads, 0, q>>>((uint4*)l_dst, (const uint4*)p_src, nv); }, s);
        double w8 = timeit([&](cudaStream_t q) { copyk<8><<<grid, threads, 0, q>>>((uint4*)p_dst, (const uint4*)l_src, nv); }, s);
        double r4 = timeit([&](cudaStream_t q) { copyk<4><<<grid, threads, 0, q>>>((uint4*)l_dst, (const uint4*)p_src, nv); }, s);
        double w4 = timeit([&](cudaStream_t q) { copyk<4><<<grid, threads, 0, q>>>((uint4*)p_dst, (const uint4*)l_src, nv); }, s);
        double rt = timeit([&](cudaStream_t q) { copytile<8><<<grid, threads, 0, q>>>((uint4*)l_dst, (const uint4*)p_src, nv); }, s);
        double wt = timeit([&](cudaStream_t q) { copytile<8><<<grid, threads, 0, q>>>((uint4*)p_dst, (const uint4*)l_src, nv); }, s);
        printf("SM t=%4d bps=%d: stride8 r %.3f w %.3f | stride4 r %.3f w %.3f | tile8 r %.3f w %.3f (x CE)\n", threads, bps,
               ce_r / r8, ce_w / w8, ce_r / r4, ce_w / w4, ce_r / rt, ce_w / wt);
      }
  }
  // managed prefetch over k streams
  CK(cudaSetDevice(0));
  void* m; CK(cudaMallocManaged(&m, bytes)); memset(m, 3, bytes);
  void* pin; CK(cudaMallocHost(&pin, bytes)); memset(pin, 3, bytes); void* d; CK(cudaMalloc(&d, bytes));
  double pc = timeit([&](cudaStream_t q) { CK(cudaMemcpyAsync(d, pin, bytes, cudaMemcpyHostToDevice, q)); }, s, 9);
  printf("pinned copy %.1f GB/s\n", bytes / pc / 1e9);
  cudaMemLocation gpu{cudaMemLocationTypeDevice, 0}, host{cudaMemLocationTypeHost, 0};
  std::vector<cudaStream_t> ss(8); for (auto& x : ss) CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  std::vector<cudaEvent_t> ev(8); for (auto& x : ev) CK(cudaEventCreateWithFlags(&x, cudaEventDisableTiming));
  for (int k : {1, 2, 4, 8}) {
    std::vector<double> t;
    for (int r = 0; r < 7; ++r) {
      CK(cudaMemPrefetchAsync(m, bytes, host, 0, s)); CK(cudaStreamSynchronize(s));
      cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
      CK(cudaEventRecord(a, s));
      size_t chunk = bytes / k;
      for (int c = 0; c < k; ++c) { CK(cudaStreamWaitEvent(ss[c], a, 0)); CK(cudaMemPrefetchAsync((char*)m + c * chunk, chunk, gpu, 0, ss[c])); CK(cudaEventRecord(ev[c], ss[c])); CK(cudaStreamWaitEvent(s, ev[c], 0)); }
      CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1e-3);
    }
    std::sort(t.begin(), t.end());
    printf("prefetch over %d streams: %.1f GB/s (%.3fx pinned)\n", k, bytes / t[3] / 1e9, pc / t[3]);
  }
  // the same with 2 MB-aligned host pages touched (madvise hugepage not available here); plain again, 4 GiB
  return 0;
}
