#pragma once
// What issue 20's throw-away experiments share: a checked CUDA call and an event-timed median
// (3 warm-up launches, then `reps` each timed alone), or all of the times, sorted.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e = (x);                                                        \
    if (e != cudaSuccess) {                                                     \
      std::printf("%s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

/// The times in us of `reps` launches after 3 warm-ups, each event-timed alone, sorted;
/// `before()` runs ahead of each launch, untimed (resetting an output the launch adds to).
template <class Before, class F>
std::vector<float> sorted_us(Before before, F launch, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < reps + 3; ++r) {
    before();
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 3) t.push_back(ms * 1000);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t;
}

template <class F>
float median_us(F launch, int reps = 41) {
  const std::vector<float> t = sorted_us([] {}, launch, reps);
  return t[t.size() / 2];
}
