#include "harness/state.hpp"

#include "harness/environment.hpp"

#include <chrono>
#include <random>

namespace memscope {
namespace {
std::uint64_t fresh_seed() {
  static std::random_device rd;
  const auto t = static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ t;
}
}  // namespace

case_state::case_state(const case_def& def, axis_point point, run_environment& env, bool verify_only)
    : def_(def), point_(std::move(point)), env_(env), verify_only_(verify_only), seed_(fresh_seed()) {
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

void case_state::exec(const std::function<void(cudaStream_t)>& launch) {
  if (verify_only_) return;
  const timed_samples t = env_.time(launch);
  result_.timed = true;
  result_.stats = t.stats;
  result_.batch = t.batch;
  result_.cold = env_.cold();
}

}  // namespace memscope
