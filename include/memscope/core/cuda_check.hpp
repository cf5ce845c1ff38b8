#pragma once
// CUDA error handling: every runtime call and every launch goes through these.
// Errors become exceptions that say where (file:line), what (the call's text) and why.

#include <cuda_runtime_api.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace memscope {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {

inline std::string describe_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                    cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  return msg;
}

inline void throw_on_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) {
    // Clear the sticky-free error so the next call does not report it again.
    (void)cudaGetLastError();
    throw cuda_error(code, describe_cuda_error(code, expr, file, line));
  }
}

inline void report_cuda_error(cudaError_t code, const char* expr, const char* file, int line) noexcept {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();
    std::fprintf(stderr, "memscope: warning: %s\n", describe_cuda_error(code, expr, file, line).c_str());
  }
}

}  // namespace detail
}  // namespace memscope

/// Throws memscope::cuda_error when the call does not return cudaSuccess.
#define MEMSCOPE_CUDA_CALL(expr) ::memscope::detail::throw_on_cuda_error((expr), #expr, __FILE__, __LINE__)

/// For destructors and other noexcept paths: reports to stderr instead of throwing.
#define MEMSCOPE_CUDA_CALL_NOEXCEPT(expr) \
  ::memscope::detail::report_cuda_error((expr), #expr, __FILE__, __LINE__)

/// After a <<<>>> launch: catches bad configurations (and, with MEMSCOPE_SYNC_LAUNCHES, faults).
#define MEMSCOPE_CHECK_LAUNCH(what) ::memscope::detail::throw_on_cuda_error(cudaGetLastError(), what, __FILE__, __LINE__)
