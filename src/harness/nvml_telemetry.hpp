#pragma once
// Power, temperature and clock-limit reasons from the NVIDIA management library, where the
// driver installed it. Loaded with dlopen at run time: the static memscope binary still runs
// (and says so once) on a machine without it. Pure C++.

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memscope {

struct nvml_reading {
  double power_w = 0;
  double temperature_c = 0;
  std::vector<std::string> clock_limits;  // why clocks are below their maximum, by NVML's names
};

class nvml_telemetry {
 public:
  /// Opens the library and finds the GPU by its UUID ("GPU-..."); never throws. When that
  /// fails, available() is false and note() says why.
  explicit nvml_telemetry(const std::string& gpu_uuid);
  ~nvml_telemetry();
  nvml_telemetry(const nvml_telemetry&) = delete;
  nvml_telemetry& operator=(const nvml_telemetry&) = delete;

  bool available() const { return impl_ != nullptr; }
  /// One line for the run's header: what is recorded, or why nothing is.
  const std::string& note() const { return note_; }
  /// Nothing when unavailable or when the library refuses a query.
  std::optional<nvml_reading> read() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
  std::string note_;
};

/// NVML's clock event reason bits as names ("sw_power_cap", "hw_thermal_slowdown", ...);
/// unknown bits are named by their value.
std::vector<std::string> clock_limit_names(unsigned long long reasons);

/// Reasons that mean the GPU slowed itself (power, thermal, hardware slowdown), as opposed to
/// idling or a clock setting.
bool is_throttle_reason(const std::string& name);

}  // namespace memscope
