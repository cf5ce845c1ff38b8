#include "harness/nvml_library.hpp"

#include <dlfcn.h>

namespace memscope::nvml {

gpu::gpu(const std::string& uuid) : lib_(dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL)) {
  if (!lib_) {
    why_ = "NVIDIA management library (libnvidia-ml.so.1) not found";
    return;
  }
  const auto init = entry<result (*)()>("nvmlInit_v2");
  const auto by_uuid = entry<result (*)(const char*, device*)>("nvmlDeviceGetHandleByUUID");
  if (!init || !by_uuid) {
    why_ = "the NVIDIA management library lacks an entry point memscope needs";
    return;
  }
  if (const result rc = init(); rc != success) {
    why_ = "the NVIDIA management library did not start (nvmlInit returned " + std::to_string(rc) + ")";
    return;
  }
  started_ = true;
  device d = nullptr;
  if (const result rc = by_uuid(uuid.c_str(), &d); rc != success) {
    why_ = "the NVIDIA management library does not know GPU " + uuid + " (error " + std::to_string(rc) + ")";
    return;
  }
  handle_ = d;
}

gpu::~gpu() {
  if (started_)
    if (const auto shutdown = entry<result (*)()>("nvmlShutdown")) shutdown();
  if (lib_) dlclose(lib_);
}

void* gpu::symbol(const char* name) const { return lib_ ? dlsym(lib_, name) : nullptr; }

}  // namespace memscope::nvml
