#pragma once
// CUPTI, the CUDA profiling library, opened with dlopen: the static memscope binary runs where
// only the driver is installed, and reads hardware counters where CUPTI is present or pointed
// at. CUPTI loads its metric libraries (libnvperf_host.so, libnvperf_target.so) by name; where a
// folder is given, they are loaded from it first, so that those are the ones it finds. Never
// throws: where a step fails, ok() is false and why() says which library is missing and how to
// point at it.

#include <string>

namespace memscope::cupti {

/// The option and the environment variable that name CUPTI's folder.
inline constexpr const char* dir_option = "--cupti";
inline constexpr const char* dir_variable = "MEMSCOPE_CUPTI_DIR";

/// How to make CUPTI findable: the line a missing library's message ends with.
std::string how_to_point();

class library {
 public:
  /// Opens CUPTI from `dir` when it is not empty, else from MEMSCOPE_CUPTI_DIR when that is set,
  /// else from the library path and the toolkit's usual folders (/usr/local/cuda/lib64,
  /// /usr/local/cuda/extras/CUPTI/lib64).
  explicit library(const std::string& dir = {});
  ~library();
  library(const library&) = delete;
  library& operator=(const library&) = delete;

  bool ok() const { return why_.empty(); }
  /// Why CUPTI cannot be used ("" when ok): which library is missing, where it was looked for.
  const std::string& why() const { return why_; }
  /// The file libcupti was loaded from, and the CUPTI API version it reports.
  const std::string& path() const { return path_; }
  unsigned version() const { return version_; }
  /// "CUPTI_ERROR_INVALID_METRIC_NAME" for a result code (its number where CUPTI has no name).
  std::string result_name(int result) const;

  /// An entry point of libcupti as a function pointer, or nullptr where it lacks it.
  template <class Fn>
  Fn entry(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }

 private:
  void* symbol(const char* name) const;
  void open(const std::string& dir, const std::string& from);
  void* cupti_ = nullptr;
  void* host_ = nullptr;
  void* target_ = nullptr;
  std::string path_, why_;
  unsigned version_ = 0;
};

}  // namespace memscope::cupti
