#include "harness/state.hpp"

#include "harness/environment.hpp"

#include "harness/axis.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <string>
#include <variant>

namespace memscope {
namespace {

std::uint64_t fnv1a(std::uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return (h ^ 0xFF) * 0x100000001b3ull;  // a separator, so "ab"+"c" differs from "a"+"bc"
}

/// The run's seed mixed with the case and every axis a baseline does not vary: the points of
/// one comparison share it, every other point gets its own.
std::uint64_t point_seed(std::uint64_t run_seed, const case_def& def, const axis_point& p) {
  std::uint64_t h = fnv1a(0xcbf29ce484222325ull ^ run_seed, def.id());
  for (const auto& [name, value] : p.entries()) {
    const bool compared =
        std::any_of(def.baselines.begin(), def.baselines.end(), [&](const baseline_rule& b) { return b.axis == name; });
    if (compared) continue;
    h = fnv1a(h, name);
    h = std::holds_alternative<std::int64_t>(value) ? fnv1a(h, std::to_string(std::get<std::int64_t>(value)))
                                                    : fnv1a(h, std::get<std::string>(value));
  }
  return h;
}

}  // namespace

case_state::case_state(const case_def& def, axis_point point, run_environment& env, bool verify_only,
                       std::uint64_t run_seed, bool quick)
    : def_(def),
      point_(std::move(point)),
      env_(env),
      verify_only_(verify_only),
      quick_(quick),
      seed_(point_seed(run_seed, def, point_)) {
  result_.suite = def.suite;
  result_.name = def.name;
  result_.variant = point_.variant();
  result_.axes = point_.entries();
  result_.axes_label = point_.label(def.axes);
}

const device_info& case_state::device() const { return env_.device(); }
cudaStream_t case_state::stream() const { return env_.stream(); }

void case_state::check(const verify_result& r) {
  if (result_.verification == verification_status::failed) return;  // keep the first failure
  result_.verification = r.passed ? verification_status::passed : verification_status::failed;
  if (!r.detail.empty()) result_.verification_detail = r.detail;
}

void case_state::skip(const std::string& reason) { throw case_skipped{reason}; }

void case_state::exec(const std::function<void(cudaStream_t)>& launch, exec_tag tag) { exec(launch, {}, tag); }

void case_state::exec(const std::function<void(cudaStream_t)>& launch, const std::function<void(cudaStream_t)>& prepare,
                      exec_tag tag) {
  if (verify_only_ || result_.verification == verification_status::failed) return;
  // Named for profilers: `nsys` shows the range, `ncu --nvtx --nvtx-include` selects it.
  const std::string range = def_.id() + " " + result_.axes_label;
  nvtxRangePushA(range.c_str());
  timed_samples t;
  try {
    t = env_.time(launch, tag, !def_.baselines.empty(), prepare);
  } catch (...) {
    nvtxRangePop();
    throw;
  }
  nvtxRangePop();
  result_.timed = true;
  result_.stats = t.stats;
  result_.times = t.times;
  result_.batch = t.batch;
  result_.cold = env_.cold();
  result_.converged = t.converged;
  result_.stop = t.stop;
  result_.clock_mhz = t.clock_mhz;
  result_.clock_min_mhz = t.clock_min_mhz;
  result_.clock_throttled = t.throttled;
  result_.throttle_discards = t.throttle_discards;
  if (const auto nv = env_.telemetry().read()) {
    result_.has_telemetry = true;
    result_.power_w = nv->power_w;
    result_.temperature_c = nv->temperature_c;
    result_.clock_limits = nv->clock_limits;
  }
}

}  // namespace memscope
