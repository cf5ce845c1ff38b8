#pragma once
// CUDA error handling: every runtime call and every launch goes through these.
// Errors become exceptions that say where (file:line), what (the call's text) and why.
//
// Two forms, as in CUB: the launchers' cores return a `status` (an error as a value, never a
// throw), and the public throwing forms turn a bad status into an exception:
//   std::invalid_argument  bad parameters (levels, sizes, shapes);
//   memscope::unsupported  this GPU or this binary cannot run what was asked;
//   memscope::cuda_error   a CUDA call failed (code() gives the cudaError_t).
// Code built without exceptions (-fno-exceptions) uses the status/cudaError_t forms; a throwing
// form reached there prints its message and aborts.

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define MEMSCOPE_HAS_EXCEPTIONS 1
#else
#define MEMSCOPE_HAS_EXCEPTIONS 0
#endif

namespace memscope {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// The GPU (or the code this binary holds for it) cannot run what was asked: a suite skips the
/// point with this reason.
class unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An error as a value. `code` is what CUB-style callers get: the CUDA error for a failed call,
/// cudaErrorInvalidValue for bad parameters, cudaErrorNotSupported for an unsupported request.
struct status {
  enum class kind { ok, cuda, invalid_argument, unsupported };
  kind what = kind::ok;
  cudaError_t code = cudaSuccess;
  std::string message;

  bool ok() const noexcept { return what == kind::ok; }
  static status invalid(std::string m) { return {kind::invalid_argument, cudaErrorInvalidValue, std::move(m)}; }
  static status not_supported(std::string m) { return {kind::unsupported, cudaErrorNotSupported, std::move(m)}; }
};

namespace detail {

[[noreturn]] inline void abort_with(const char* message) noexcept {
  std::fprintf(stderr, "memscope: %s (built without exceptions: use the cudaError_t form)\n", message);
  std::abort();
}

}  // namespace detail
}  // namespace memscope

/// `throw e`, or where exceptions are off, print e.what() and abort.
#if MEMSCOPE_HAS_EXCEPTIONS
#define MEMSCOPE_THROW(...) throw __VA_ARGS__
#else
#define MEMSCOPE_THROW(...) ::memscope::detail::abort_with((__VA_ARGS__).what())
#endif

namespace memscope {
namespace detail {

inline std::string describe_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + expr +
                    " failed: " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  return msg;
}

inline void throw_on_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) {
    // Clear the sticky-free error so the next call does not report it again.
    (void)cudaGetLastError();
    MEMSCOPE_THROW(cuda_error(code, describe_cuda_error(code, expr, file, line)));
  }
}

inline status cuda_status(cudaError_t code, const char* expr, const char* file, int line) {
  (void)cudaGetLastError();
  return {status::kind::cuda, code, describe_cuda_error(code, expr, file, line)};
}

}  // namespace detail

/// Throws the exception a bad status stands for (see the top of this file).
inline void throw_if_error(const status& s) {
  switch (s.what) {
    case status::kind::ok:
      return;
    case status::kind::cuda:
      MEMSCOPE_THROW(cuda_error(s.code, s.message));
    case status::kind::invalid_argument:
      MEMSCOPE_THROW(std::invalid_argument(s.message));
    case status::kind::unsupported:
      MEMSCOPE_THROW(unsupported(s.message));
  }
}

namespace detail {

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
#define MEMSCOPE_CUDA_CALL_NOEXCEPT(expr) ::memscope::detail::report_cuda_error((expr), #expr, __FILE__, __LINE__)

/// After a <<<>>> launch: catches bad configurations (and, with MEMSCOPE_SYNC_LAUNCHES, faults).
#define MEMSCOPE_CHECK_LAUNCH(what) \
  ::memscope::detail::throw_on_cuda_error(cudaGetLastError(), what, __FILE__, __LINE__)

/// In a function returning memscope::status: returns the failure of a CUDA call as a status.
#define MEMSCOPE_RETURN_IF_CUDA_ERROR(expr)                                                                           \
  do {                                                                                                                \
    const cudaError_t memscope_rc_ = (expr);                                                                          \
    if (memscope_rc_ != cudaSuccess) return ::memscope::detail::cuda_status(memscope_rc_, #expr, __FILE__, __LINE__); \
  } while (0)

/// In a function returning memscope::status, after a <<<>>> launch.
#define MEMSCOPE_RETURN_IF_LAUNCH_ERROR(what)                                                                        \
  do {                                                                                                               \
    const cudaError_t memscope_rc_ = cudaGetLastError();                                                             \
    if (memscope_rc_ != cudaSuccess) return ::memscope::detail::cuda_status(memscope_rc_, what, __FILE__, __LINE__); \
  } while (0)

/// In a function returning memscope::status: passes a failed status on.
#define MEMSCOPE_RETURN_IF_ERROR(expr)         \
  do {                                         \
    ::memscope::status memscope_s_ = (expr);   \
    if (!memscope_s_.ok()) return memscope_s_; \
  } while (0)
