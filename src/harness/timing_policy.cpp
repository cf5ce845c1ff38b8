#include "harness/timing_policy.hpp"

#include <cmath>
#include <sstream>
#include <string>

namespace memscope {

namespace {
std::string num(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}
}  // namespace

std::string timing_policy::problem() const {
  const auto fin = [](double v) { return std::isfinite(v); };
  if (min_samples < 1) return "--min-samples must be at least 1";
  if (max_samples < 1) return "--max-samples must be at least 1";
  if (max_samples < min_samples)
    return "--max-samples (" + std::to_string(max_samples) + ") is below --min-samples (" +
           std::to_string(min_samples) + ")";
  if (!fin(max_noise) || max_noise <= 0) return "--max-noise must be a percentage above 0";
  if (max_noise > max_noise_fraction)
    return "--max-noise must be at most " + num(100 * max_noise_fraction) + " percent";
  if (!fin(min_time_s) || min_time_s < 0) return "--min-time must be at least 0 seconds";
  if (min_time_s > max_seconds) return "--min-time must be at most " + num(max_seconds) + " seconds";
  if (!fin(timeout_s) || timeout_s <= 0) return "--timeout must be above 0 seconds";
  if (timeout_s > max_seconds) return "--timeout must be at most " + num(max_seconds) + " seconds";
  if (min_time_s > timeout_s)
    return "--min-time (" + num(min_time_s) + " s) exceeds --timeout (" + num(timeout_s) +
           " s): no point could ever converge";
  if (!fin(throttle_threshold) || throttle_threshold < 0 || throttle_threshold >= 1)
    return "--throttle-threshold is a fraction of the peak SM clock in [0, 1)";
  return {};
}

}  // namespace memscope
