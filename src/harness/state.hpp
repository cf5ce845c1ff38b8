#pragma once
// What a case body sees: its axis point, the device, a stream, and exec() for the timed part.
// nvbench-like: the body sets up, verifies against a CPU reference (outside any timing),
// declares the bytes and elements one launch moves, then hands exec() the launch.

#include "harness/registry.hpp"
#include "harness/results.hpp"
#include "harness/timing_policy.hpp"
#include "memscope/core/device_info.hpp"
#include "memscope/core/verify.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>

namespace memscope {

/// How exec() times a launch: `held` (the default) enqueues a sample's launches behind a
/// kernel that holds the stream, so host enqueue and planning time are not measured; `sync`
/// is for launches that wait for the GPU (synchronous copies), which a held stream would stall.
enum class exec_tag { held, sync };

class run_environment;

class case_state {
 public:
  /// `run_seed` is drawn once per run; the point's seed is derived from it (see seed()).
  case_state(const case_def& def, axis_point point, run_environment& env, bool verify_only, std::uint64_t run_seed,
             bool quick = false);

  const axis_point& point() const { return point_; }
  std::int64_t get_int(const std::string& axis_name) const { return point_.get_int(axis_name); }
  const std::string& get_string(const std::string& axis_name) const { return point_.get_string(axis_name); }
  bool has_axis(const std::string& axis_name) const { return point_.has(axis_name); }
  const device_info& device() const;
  cudaStream_t stream() const;
  /// `memscope verify`: bodies must verify and may skip their timing set-up.
  bool verify_only() const { return verify_only_; }
  /// `--quick`: bodies whose set-up scales with a size the axes do not name (the free memory
  /// beside a ballast) may use a smaller one, and say so in a label.
  bool quick() const { return quick_; }
  /// Fresh for every run: inputs are new random data each time. Points that a baseline
  /// compares (they differ only in the baseline's axis) get the same seed, so every strategy
  /// of a comparison reads the same input.
  std::uint64_t seed() const { return seed_; }

  void add_bytes_read(std::uint64_t b) { result_.bytes_read += b; }
  void add_bytes_written(std::uint64_t b) { result_.bytes_written += b; }
  void add_elements(std::uint64_t n) { result_.elements += n; }
  void add_metric(const std::string& name, double value) { result_.metrics[name] = value; }
  /// A typed name for the row (a plan, a chosen strategy), never an ordinal stored as a number.
  void add_label(const std::string& name, std::string value) { result_.labels[name] = std::move(value); }

  /// Records one verification; any failure makes the row FAIL. A case that never calls this
  /// also fails: nothing is reported unverified.
  void check(const verify_result& r);

  /// Ends the case as skipped with the reason (no clusters on this GPU, say).
  [[noreturn]] void skip(const std::string& reason);

  /// Times `launch` (which enqueues one launch on the given stream) per timing_policy.
  /// A no-op in verify mode, and for a point whose verification failed: a wrong answer gets
  /// no figure.
  void exec(const std::function<void(cudaStream_t)>& launch, exec_tag tag = exec_tag::held);
  /// As exec, with `prepare` run before every launch, untimed (pages moved back to the host
  /// before a migration is timed, say); each sample is then one launch.
  void exec(const std::function<void(cudaStream_t)>& launch, const std::function<void(cudaStream_t)>& prepare,
            exec_tag tag = exec_tag::held);

  case_result& result() { return result_; }

 private:
  const case_def& def_;
  axis_point point_;
  run_environment& env_;
  bool verify_only_, quick_;
  std::uint64_t seed_;
  case_result result_;
};

/// Thrown by case_state::skip; caught by the runner.
struct case_skipped {
  std::string reason;
};

}  // namespace memscope
