// Throw-away experiment: can any prefetch route move 1 GiB of host-resident managed memory to
// the GPU at >= 0.9x a pinned cudaMemcpyAsync? Each sample moves the pages back first, untimed.
#include <cstdio>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s at line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
int main() {
  const size_t bytes = size_t(1) << 30;
  int dev = 0, pageable = 0, hmm_tables = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev);
  cudaDeviceGetAttribute(&hmm_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables, dev);
  printf("pageableMemoryAccess=%d usesHostPageTables=%d\n", pageable, hmm_tables);
  cudaMemLocation gpu{cudaMemLocationTypeDevice, dev}, host{cudaMemLocationTypeHost, 0};
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto timed = [&](auto&& back, auto&& go) {
    std::vector<float> t;
    for (int r = 0; r < 12; ++r) {
      back(); cudaStreamSynchronize(s);
      cudaEventRecord(a, s); go(); cudaEventRecord(b, s); cudaEventSynchronize(b);
      float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 2) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return bytes / (t[t.size() / 2] * 1e-3) / 1e9;
  };
  void *pinned, *d;
  CK(cudaHostAlloc(&pinned, bytes, 0)); CK(cudaMalloc(&d, bytes)); memset(pinned, 1, bytes);
  const double ref = timed([] {}, [&] { cudaMemcpyAsync(d, pinned, bytes, cudaMemcpyHostToDevice, s); });
  printf("pinned copy: %.1f GB/s\n", ref);
  const char* names[] = {"prefetch", "prefetch, preferred GPU", "prefetch, accessed-by GPU", "prefetch in 4 x 256 MiB on 4 streams",
                         "prefetch in 2 MiB pieces", "batch prefetch (8 ranges)"};
  for (int mode = 0; mode < 6; ++mode) {
    void* m; CK(cudaMallocManaged(&m, bytes)); memset(m, 2, bytes);
    if (mode == 1) CK(cudaMemAdvise(m, bytes, cudaMemAdviseSetPreferredLocation, gpu));
    if (mode == 2) CK(cudaMemAdvise(m, bytes, cudaMemAdviseSetAccessedBy, gpu));
    cudaStream_t q[4]; for (auto& x : q) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
    cudaEvent_t done[4]; for (auto& e : done) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    const double gbs = timed([&] { cudaMemPrefetchAsync(m, bytes, host, 0, s); }, [&] {
      if (mode <= 2) { cudaMemPrefetchAsync(m, bytes, gpu, 0, s); return; }
      if (mode == 3) {
        cudaEventRecord(done[0], s);
        for (int k = 0; k < 4; ++k) {
          cudaStreamWaitEvent(q[k], done[0], 0);
          cudaMemPrefetchAsync((char*)m + k * (bytes / 4), bytes / 4, gpu, 0, q[k]);
        }
        for (int k = 0; k < 4; ++k) { cudaEventRecord(done[k], q[k]); cudaStreamWaitEvent(s, done[k], 0); }
        return;
      }
      if (mode == 4) { for (size_t o = 0; o < bytes; o += (2 << 20)) cudaMemPrefetchAsync((char*)m + o, 2 << 20, gpu, 0, s); return; }
      void* ptrs[8]; size_t sizes[8]; cudaMemLocation locs[1] = {gpu}; size_t idx[1] = {0};
      for (int k = 0; k < 8; ++k) { ptrs[k] = (char*)m + k * (bytes / 8); sizes[k] = bytes / 8; }
      cudaMemPrefetchBatchAsync(ptrs, sizes, 8, locs, idx, 1, 0, s);
    });
    cudaError_t e = cudaGetLastError();
    printf("%-40s %.1f GB/s = %.3fx the pinned copy%s%s\n", names[mode], gbs, gbs / ref, e ? " error: " : "", e ? cudaGetErrorString(e) : "");
    cudaFree(m);
  }
  return 0;
}
