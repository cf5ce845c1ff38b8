#include "harness/cupti_library.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

// AddressSanitizer aborts the process when a library is opened with RTLD_DEEPBIND, which
// CUPTI does to its metric library: a sanitized build must not load CUPTI at all.
#if defined(__SANITIZE_ADDRESS__)
#define MEMSCOPE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMSCOPE_ASAN 1
#endif
#endif
#ifndef MEMSCOPE_ASAN
#define MEMSCOPE_ASAN 0
#endif

namespace memscope::cupti {

namespace {

// The CUPTI this binary's headers describe (the profiler structs are versioned by size, but
// entry points and their semantics change between major versions).
constexpr const char* cupti_soname = "libcupti.so.13";
constexpr unsigned cupti_major = 13;
constexpr const char* host_soname = "libnvperf_host.so";
constexpr const char* target_soname = "libnvperf_target.so";

using result_fn = int (*)(int, const char**);
using version_fn = int (*)(unsigned*);

std::string loaded_path(void* handle) {
  link_map* map = nullptr;
  if (handle && dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) return map->l_name;
  return {};
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

void* open_in(const std::string& dir, const char* name, int flags) { return dlopen((dir + "/" + name).c_str(), flags); }

}  // namespace

std::string how_to_point() {
  return std::string("install the CUDA toolkit's CUPTI, or point at the folder holding ") + cupti_soname + ", " +
         host_soname + " and " + target_soname + " with " + dir_option + " DIR or " + dir_variable + "=DIR";
}

library::library(const std::string& dir) {
  const char* env = std::getenv(dir_variable);
  if (!dir.empty()) open(dir, dir_option);
  else if (env && *env) open(env, dir_variable);
  else open({}, {});
}

void library::open(const std::string& dir, const std::string& from) {
  constexpr int flags = RTLD_NOW | RTLD_GLOBAL;
  if (!dir.empty() && access((dir + "/" + cupti_soname).c_str(), F_OK) != 0) {
    why_ = std::string("CUPTI (") + cupti_soname + ") not found in '" + dir + "' (" + from + "): " + how_to_point();
    return;
  }
  if (MEMSCOPE_ASAN) {
    why_ =
        "this memscope is built with AddressSanitizer, which stops any process that loads CUPTI (CUPTI opens "
        "its metric library with RTLD_DEEPBIND): use a build without sanitizers";
    return;
  }
  if (!dir.empty()) {
    // The metric libraries first: CUPTI asks for them by name and gets these.
    host_ = open_in(dir, host_soname, flags);
    target_ = open_in(dir, target_soname, flags);
    cupti_ = open_in(dir, cupti_soname, flags);
    if (!cupti_) {
      why_ = std::string("CUPTI (") + cupti_soname + ") in '" + dir + "' (" + from + ") does not load (" + dlerror() +
             "): " + how_to_point();
      return;
    }
    if (!host_) {
      why_ = std::string("CUPTI's metric library ") + host_soname + " not found in '" + dir + "' (" + from +
             "), beside " + cupti_soname + ": " + how_to_point();
      return;
    }
  } else {
    cupti_ = dlopen(cupti_soname, flags);
    for (const char* d : {"/usr/local/cuda/lib64", "/usr/local/cuda/extras/CUPTI/lib64"})
      if (!cupti_) cupti_ = open_in(d, cupti_soname, flags);
    if (!cupti_) {
      why_ = std::string("CUPTI (") + cupti_soname +
             ") not found on the library path nor in /usr/local/cuda: " + how_to_point();
      return;
    }
    const std::string beside = folder_of(loaded_path(cupti_));
    host_ = dlopen(host_soname, flags);
    if (!host_) host_ = open_in(beside, host_soname, flags);
    target_ = dlopen(target_soname, flags);
    if (!target_) target_ = open_in(beside, target_soname, flags);
    if (!host_) {
      why_ = std::string("CUPTI's metric library ") + host_soname + " not found on the library path nor beside " +
             loaded_path(cupti_) + ": " + how_to_point();
      return;
    }
  }
  path_ = loaded_path(cupti_);
  const auto get_version = entry<version_fn>("cuptiGetVersion");
  if (!get_version || get_version(&version_) != 0) {
    why_ = "CUPTI at " + path_ + " does not say its version (cuptiGetVersion): " + how_to_point();
    return;
  }
  // CUPTI_API_VERSION is major * 10000 + minor * 100 + patch from CUDA 13 on.
  if (version_ / 10000 != cupti_major) {
    why_ = "CUPTI at " + path_ + " is API version " + std::to_string(version_) + "; memscope needs CUDA " +
           std::to_string(cupti_major) + "'s: " + how_to_point();
    return;
  }
  for (const char* name : {"cuptiProfilerHostInitialize", "cuptiProfilerHostGetMetricProperties",
                           "cuptiProfilerHostConfigAddMetrics", "cuptiProfilerHostGetNumOfPasses"})
    if (!symbol(name)) {
      why_ = "CUPTI at " + path_ + " lacks " + name + ": " + how_to_point();
      return;
    }
}

library::~library() {
  for (void* h : {cupti_, target_, host_})
    if (h) dlclose(h);
}

void* library::symbol(const char* name) const { return cupti_ ? dlsym(cupti_, name) : nullptr; }

std::string library::result_name(int result) const {
  const char* text = nullptr;
  if (const auto name = entry<result_fn>("cuptiGetResultString"); name && name(result, &text) == 0 && text) return text;
  return "CUPTI error " + std::to_string(result);
}

}  // namespace memscope::cupti
