#pragma once
// The NVIDIA management library opened with dlopen, started, and one GPU found in it by its
// UUID: what telemetry and the NVLink reader share. The static memscope binary needs neither
// the library nor its header; the few types used are declared here, their ABI stable since
// NVML's first versions. Never throws: where a step fails, ok() is false and why() says which.

#include <string>

namespace memscope::nvml {

using result = int;
using device = struct device_st*;
inline constexpr result success = 0;

class gpu {
 public:
  explicit gpu(const std::string& uuid);
  ~gpu();
  gpu(const gpu&) = delete;
  gpu& operator=(const gpu&) = delete;

  bool ok() const { return handle_ != nullptr; }
  /// Whether the library could be loaded at all (why() then names a later step).
  bool found() const { return lib_ != nullptr; }
  /// Why the GPU is not reachable: "NVIDIA management library (libnvidia-ml.so.1) not found",
  /// "... did not start (nvmlInit returned N)", "... does not know GPU X (error N)"; "" when ok.
  const std::string& why() const { return why_; }
  device handle() const { return handle_; }
  /// An entry point of the library as a function pointer, or nullptr where it lacks it.
  template <class Fn>
  Fn entry(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }

 private:
  void* symbol(const char* name) const;
  void* lib_ = nullptr;
  bool started_ = false;
  device handle_ = nullptr;
  std::string why_;
};

}  // namespace memscope::nvml
