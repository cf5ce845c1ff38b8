#include "harness/nvml_telemetry.hpp"

#include "harness/nvml_library.hpp"

#include <cstdio>

namespace memscope {
namespace {

using power_fn = nvml::result (*)(nvml::device, unsigned*);
using temperature_fn = nvml::result (*)(nvml::device, int, unsigned*);
using reasons_fn = nvml::result (*)(nvml::device, unsigned long long*);
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
  explicit impl(const std::string& uuid) : gpu(uuid) {}
  nvml::gpu gpu;
  power_fn power = nullptr;
  temperature_fn temperature = nullptr;
  reasons_fn reasons = nullptr;
};

nvml_telemetry::nvml_telemetry(const std::string& gpu_uuid) {
  constexpr const char* not_recorded = ": power, temperature and clock-limit reasons are not recorded";
  auto p = std::make_unique<impl>(gpu_uuid);
  if (!p->gpu.ok()) {
    note_ = p->gpu.why() + not_recorded + (p->gpu.found() ? "" : " (the SM clock is, by the GPU itself)");
    return;
  }
  p->power = p->gpu.entry<power_fn>("nvmlDeviceGetPowerUsage");
  p->temperature = p->gpu.entry<temperature_fn>("nvmlDeviceGetTemperature");
  p->reasons = p->gpu.entry<reasons_fn>("nvmlDeviceGetCurrentClocksEventReasons");
  if (!p->reasons) p->reasons = p->gpu.entry<reasons_fn>("nvmlDeviceGetCurrentClocksThrottleReasons");
  if (!p->power || !p->temperature || !p->reasons) {
    note_ = std::string("the NVIDIA management library lacks an entry point memscope needs") + not_recorded;
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
  const nvml::device dev = impl_->gpu.handle();
  if (impl_->power(dev, &mw) != nvml::success ||
      impl_->temperature(dev, nvml_temperature_gpu, &temp) != nvml::success ||
      impl_->reasons(dev, &reasons) != nvml::success)
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
