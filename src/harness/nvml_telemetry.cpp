#include "harness/nvml_telemetry.hpp"

#include <dlfcn.h>

#include <cstdio>

namespace memscope {
namespace {

// The few NVML entry points used, declared here so that no NVML header or library is needed
// to build: the ABI of these calls has been stable since NVML's first versions.
using nvml_return = int;
using nvml_device = struct nvml_device_st*;
using init_fn = nvml_return (*)();
using shutdown_fn = nvml_return (*)();
using by_uuid_fn = nvml_return (*)(const char*, nvml_device*);
using power_fn = nvml_return (*)(nvml_device, unsigned*);
using temperature_fn = nvml_return (*)(nvml_device, int, unsigned*);
using reasons_fn = nvml_return (*)(nvml_device, unsigned long long*);
constexpr nvml_return nvml_success = 0;
constexpr int nvml_temperature_gpu = 0;

struct reason_name {
  unsigned long long bit;
  const char* name;
  bool throttle;
};
constexpr reason_name reason_names[] = {
    {0x1, "gpu_idle", false},
    {0x2, "applications_clocks_setting", false},
    {0x4, "sw_power_cap", true},
    {0x8, "hw_slowdown", true},
    {0x10, "sync_boost", false},
    {0x20, "sw_thermal_slowdown", true},
    {0x40, "hw_thermal_slowdown", true},
    {0x80, "hw_power_brake_slowdown", true},
    {0x100, "display_clock_setting", false},
};

}  // namespace

struct nvml_telemetry::impl {
  void* lib = nullptr;
  shutdown_fn shutdown = nullptr;
  power_fn power = nullptr;
  temperature_fn temperature = nullptr;
  reasons_fn reasons = nullptr;
  nvml_device dev = nullptr;
  ~impl() {
    if (shutdown) shutdown();
    if (lib) dlclose(lib);
  }
};

nvml_telemetry::nvml_telemetry(const std::string& gpu_uuid) {
  auto p = std::make_unique<impl>();
  p->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!p->lib) {
    note_ = "NVIDIA management library (libnvidia-ml.so.1) not found: power, temperature and clock-limit reasons "
            "are not recorded (the SM clock is, by the GPU itself)";
    return;
  }
  const auto sym = [&](const char* name) { return dlsym(p->lib, name); };
  const auto init = reinterpret_cast<init_fn>(sym("nvmlInit_v2"));
  const auto by_uuid = reinterpret_cast<by_uuid_fn>(sym("nvmlDeviceGetHandleByUUID"));
  p->power = reinterpret_cast<power_fn>(sym("nvmlDeviceGetPowerUsage"));
  p->temperature = reinterpret_cast<temperature_fn>(sym("nvmlDeviceGetTemperature"));
  p->reasons = reinterpret_cast<reasons_fn>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
  if (!p->reasons) p->reasons = reinterpret_cast<reasons_fn>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!init || !by_uuid || !p->power || !p->temperature || !p->reasons) {
    note_ = "the NVIDIA management library lacks an entry point memscope needs: power, temperature and clock-limit "
            "reasons are not recorded";
    return;
  }
  if (const int rc = init(); rc != nvml_success) {
    note_ = "the NVIDIA management library did not start (nvmlInit returned " + std::to_string(rc) +
            "): power, temperature and clock-limit reasons are not recorded";
    return;
  }
  p->shutdown = reinterpret_cast<shutdown_fn>(sym("nvmlShutdown"));
  if (const int rc = by_uuid(gpu_uuid.c_str(), &p->dev); rc != nvml_success) {
    note_ = "the NVIDIA management library does not know GPU " + gpu_uuid + " (error " + std::to_string(rc) +
            "): power, temperature and clock-limit reasons are not recorded";
    return;
  }
  note_ = "power, temperature and clock-limit reasons from the NVIDIA management library, read after each point";
  impl_ = std::move(p);
}

nvml_telemetry::~nvml_telemetry() = default;

std::optional<nvml_reading> nvml_telemetry::read() const {
  if (!impl_) return std::nullopt;
  unsigned mw = 0, temp = 0;
  unsigned long long reasons = 0;
  if (impl_->power(impl_->dev, &mw) != nvml_success || impl_->temperature(impl_->dev, nvml_temperature_gpu, &temp) != nvml_success ||
      impl_->reasons(impl_->dev, &reasons) != nvml_success)
    return std::nullopt;
  nvml_reading r;
  r.power_w = mw / 1000.0;
  r.temperature_c = temp;
  r.clock_limits = clock_limit_names(reasons);
  return r;
}

std::vector<std::string> clock_limit_names(unsigned long long reasons) {
  std::vector<std::string> out;
  for (const auto& r : reason_names) {
    if (reasons & r.bit) out.emplace_back(r.name);
    reasons &= ~r.bit;
  }
  for (int b = 0; b < 64; ++b)
    if (reasons & (1ull << b)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "reason_0x%llx", 1ull << b);
      out.emplace_back(buf);
    }
  return out;
}

bool is_throttle_reason(const std::string& name) {
  for (const auto& r : reason_names)
    if (name == r.name) return r.throttle;
  return false;
}

}  // namespace memscope
