#pragma once
// Finding rules: the sentences a reader wants first, computed from a suite's rows. A suite
// declares its rules beside its cases; these are the generic kinds most of them are built
// from (spread against a baseline, detected levels, a fitted line, best against a peer).
// Pure C++; names no suite.

#include "memscope/core/device_info.hpp"
#include "memscope/core/levels.hpp"
#include "present/rows.hpp"

#include <functional>
#include <string>
#include <vector>

namespace memscope::present {

using finding_rule = std::function<void(const suite_view&, std::vector<std::string>& out)>;

/// "{what}: {lo}x to {hi}x over {n} points" over every row holding `metric`.
finding_rule spread_vs_baseline(std::string metric, std::string what);

/// Bytes an SM's L1 can hold: its unified L1/shared array (shared memory per SM plus the 32 KiB
/// never given to shared memory), 256 KiB when the device does not say.
double l1_capacity(const device_info& d);

/// The memory level a plateau of a latency or bandwidth curve belongs to, from where it ends:
/// L1 up to the SM's unified L1/shared size, L2 up to 1.5x the L2 (a level ends where the next
/// begins, so its last point may pass the nominal size), DRAM beyond. per_sm: x is bytes per
/// SM.
std::string level_name(const latency_level& l, const device_info& d, bool per_sm);

struct level_text_options {
  bool per_sm = false;
  /// Bandwidth curves: plateaus of one level merge whatever their values, keeping the highest
  /// (small buffers ramp up to a level's bandwidth); latency: only within 10% of each other.
  bool bandwidth = false;
};

/// The bytes-axis value a fact about `at` bytes should read: the nearest measured to `at`, else
/// the largest; `note` says so where the measured size differs from `at` (fact_value::nearest_note).
std::int64_t size_for_fact(const row_list& rows, const std::string& axis_name, std::optional<double> at,
                           std::string& note);

/// "L1 40 cycles up to 192.0 KiB; L2 ... from 128.0 MiB" for detected levels.
std::string describe_levels(const std::vector<latency_level>& levels, const device_info& d,
                            const std::function<std::string(double)>& value, double largest_x,
                            const level_text_options& opt = {});

}  // namespace memscope::present
