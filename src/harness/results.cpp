#include "harness/results.hpp"

#include "harness/gzip.hpp"
#include "harness/input_file.hpp"
#include "harness/output_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

namespace memscope {

using nlohmann::json;

std::optional<std::int64_t> case_result::int_axis(const std::string& axis_name) const {
  for (const auto& [k, v] : axes)
    if (k == axis_name && std::holds_alternative<std::int64_t>(v)) return std::get<std::int64_t>(v);
  return std::nullopt;
}

std::string case_result::string_axis(const std::string& axis_name) const {
  for (const auto& [k, v] : axes)
    if (k == axis_name && std::holds_alternative<std::string>(v)) return std::get<std::string>(v);
  return {};
}

double case_result::sampled_seconds() const {
  double s = 0;
  if (timed)
    for (const double t : times) s += t * batch;
  return s;
}

double case_result::metric(const std::string& metric_name) const {
  const auto it = metrics.find(metric_name);
  return it == metrics.end() ? std::nan("") : it->second;
}

std::string row_key(const case_result& r) {
  std::string k = r.suite + '\x1f' + r.name;
  for (const auto& [name, v] : r.axes)
    k += '\x1f' + name + '=' +
         (std::holds_alternative<std::string>(v) ? "s:" + std::get<std::string>(v)
                                                 : "i:" + std::to_string(std::get<std::int64_t>(v)));
  return k;
}

std::string case_result::label(const std::string& label_name) const {
  const auto it = labels.find(label_name);
  return it == labels.end() ? std::string() : it->second;
}

const char* to_string(case_status s) {
  switch (s) {
    case case_status::ok:
      return "ok";
    case case_status::fail:
      return "fail";
    case case_status::skipped:
      return "skipped";
    case case_status::error:
      return "error";
  }
  return "?";
}

const char* to_string(verification_status s) {
  switch (s) {
    case verification_status::not_run:
      return "not_run";
    case verification_status::passed:
      return "passed";
    case verification_status::failed:
      return "failed";
  }
  return "?";
}

namespace {

template <class E, std::size_t N>
E enum_from(const std::string& s, const E (&all)[N], const char* what) {
  for (E e : all)
    if (s == to_string(e)) return e;
  throw results_error(std::string("unknown ") + what + " '" + s + "'");
}

/// Walks a document and names the JSON path of the first thing that is wrong with it.
class checker {
 public:
  explicit checker(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw results_error(where_ + ": " + path + ": " + what);
  }
  const json& field(const json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) fail(path, "must be an object");
    const auto it = obj.find(key);
    if (it == obj.end()) fail(path, std::string("lacks the required field \"") + key + "\"");
    return *it;
  }
  std::string str(const json& obj, const std::string& path, const char* key, bool non_empty = false) const {
    const auto& v = field(obj, path, key);
    if (!v.is_string()) fail(path + "." + key, "must be a string");
    if (non_empty && v.get_ref<const std::string&>().empty()) fail(path + "." + key, "must not be empty");
    return v.get<std::string>();
  }
  bool boolean(const json& obj, const std::string& path, const char* key) const {
    const auto& v = field(obj, path, key);
    if (!v.is_boolean()) fail(path + "." + key, "must be true or false");
    return v.get<bool>();
  }
  /// A finite number in [lo, hi].
  double number(const json& obj, const std::string& path, const char* key, double lo = 0,
                double hi = std::numeric_limits<double>::max()) const {
    return number_value(field(obj, path, key), path + "." + key, lo, hi);
  }
  double number_value(const json& v, const std::string& path, double lo = 0,
                      double hi = std::numeric_limits<double>::max()) const {
    if (!v.is_number()) fail(path, "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi) fail(path, fmt_range(d, lo, hi));
    return d;
  }
  /// An integer in [lo, hi].
  template <class I>
  I integer(const json& obj, const std::string& path, const char* key, I lo = 0,
            I hi = std::numeric_limits<I>::max()) const {
    const auto& v = field(obj, path, key);
    if (!v.is_number_integer()) fail(path + "." + key, "must be a whole number");
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (lo > 0 && u < static_cast<std::uint64_t>(lo)) fail(path + "." + key, "is below " + std::to_string(lo));
      if (u > static_cast<std::uint64_t>(hi)) fail(path + "." + key, "is above " + std::to_string(hi));
      return static_cast<I>(u);
    }
    const auto x = v.get<std::int64_t>();  // fits: unsigned values past INT64_MAX took the branch above
    if (x < 0 && (std::is_unsigned_v<I> || x < static_cast<std::int64_t>(lo)))
      fail(path + "." + key, "is below " + std::to_string(lo));
    if (x >= 0 && static_cast<std::uint64_t>(x) < static_cast<std::uint64_t>(lo > 0 ? lo : 0))
      fail(path + "." + key, "is below " + std::to_string(lo));
    if (x >= 0 && static_cast<std::uint64_t>(x) > static_cast<std::uint64_t>(hi))
      fail(path + "." + key, "is above " + std::to_string(hi));
    return static_cast<I>(x);
  }

 private:
  static std::string fmt_range(double d, double lo, double hi) {
    std::string s = "must be a finite number";
    if (lo > -std::numeric_limits<double>::max()) s += " of at least " + short_number(lo);
    if (hi < std::numeric_limits<double>::max())
      s += (lo > -std::numeric_limits<double>::max() ? " and at most " : " of at most ") + short_number(hi);
    return s + " (it is " + short_number(d) + ")";
  }
  static std::string short_number(double d) {
    std::ostringstream o;
    o << d;
    return o.str();
  }
  std::string where_;
};

// The fields of device_info, named once for both directions.
template <class F>
void for_each_device_field(F&& f) {
  f("ordinal", &device_info::ordinal);
  f("name", &device_info::name);
  f("uuid", &device_info::uuid);
  f("cc_major", &device_info::cc_major);
  f("cc_minor", &device_info::cc_minor);
  f("sm_count", &device_info::sm_count);
  f("sm_clock_khz", &device_info::sm_clock_khz);
  f("memory_clock_khz", &device_info::memory_clock_khz);
  f("memory_bus_width_bits", &device_info::memory_bus_width_bits);
  f("theoretical_dram_gbps", &device_info::theoretical_dram_gbps);
  f("total_global_mem", &device_info::total_global_mem);
  f("total_const_mem", &device_info::total_const_mem);
  f("l2_bytes", &device_info::l2_bytes);
  f("persisting_l2_max_bytes", &device_info::persisting_l2_max_bytes);
  f("access_policy_max_window_bytes", &device_info::access_policy_max_window_bytes);
  f("shared_per_block", &device_info::shared_per_block);
  f("shared_per_block_optin", &device_info::shared_per_block_optin);
  f("shared_per_sm", &device_info::shared_per_sm);
  f("reserved_shared_per_block", &device_info::reserved_shared_per_block);
  f("regs_per_sm", &device_info::regs_per_sm);
  f("regs_per_block", &device_info::regs_per_block);
  f("max_threads_per_block", &device_info::max_threads_per_block);
  f("max_threads_per_sm", &device_info::max_threads_per_sm);
  f("max_blocks_per_sm", &device_info::max_blocks_per_sm);
  f("warp_size", &device_info::warp_size);
  f("global_l1_cache", &device_info::global_l1_cache);
  f("ecc_enabled", &device_info::ecc_enabled);
  f("cluster_launch", &device_info::cluster_launch);
  f("max_cluster_size_portable", &device_info::max_cluster_size_portable);
  f("max_cluster_size_nonportable", &device_info::max_cluster_size_nonportable);
  f("pci_bus_id", &device_info::pci_bus_id);
  f("driver_version", &device_info::driver_version);
  f("runtime_version", &device_info::runtime_version);
}

json axes_to_json(const std::vector<std::pair<std::string, axis_value>>& axes) {
  json j = json::object();
  for (const auto& [k, v] : axes) {
    if (std::holds_alternative<std::int64_t>(v)) j[k] = std::get<std::int64_t>(v);
    else j[k] = std::get<std::string>(v);
  }
  return j;
}

// nlohmann keeps object keys sorted, so the axis order travels in a separate list.
std::vector<std::pair<std::string, axis_value>> axes_from_json(const checker& c, const json& row,
                                                               const std::string& path) {
  const auto& axes = c.field(row, path, "axes");
  const auto& order = c.field(row, path, "axis_order");
  if (!axes.is_object()) c.fail(path + ".axes", "must be an object");
  if (!order.is_array()) c.fail(path + ".axis_order", "must be a list of axis names");
  if (order.size() != axes.size()) c.fail(path + ".axis_order", "must name every axis of .axes exactly once");
  std::vector<std::pair<std::string, axis_value>> out;
  for (const auto& k : order) {
    if (!k.is_string()) c.fail(path + ".axis_order", "must hold strings");
    const auto name = k.get<std::string>();
    for (const auto& e : out)
      if (e.first == name) c.fail(path + ".axis_order", "names axis \"" + name + "\" twice");
    const auto it = axes.find(name);
    if (it == axes.end()) c.fail(path + ".axis_order", "names \"" + name + "\", which .axes lacks");
    if (it->is_number_integer() &&
        !(it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)))
      out.emplace_back(name, it->get<std::int64_t>());
    else if (it->is_string()) out.emplace_back(name, it->get<std::string>());
    else c.fail(path + ".axes." + name, "must be a whole number or a string");
  }
  return out;
}

cold_mode cold_from_json(const checker& c, const json& obj, const std::string& path, int version) {
  const bool cold = c.boolean(obj, path, "cold");
  if (!obj.contains("cold_flush")) return cold ? cold_mode::clean : cold_mode::off;
  if (version < 6) c.fail(path + ".cold_flush", "appears only from results format version 6 on");
  if (!cold) c.fail(path + ".cold_flush", "appears only where cold is true");
  if (const auto m = flush_from(c.str(obj, path, "cold_flush"))) return *m;
  c.fail(path + ".cold_flush", "must be \"clean\" or \"dirty\"");
}

json result_to_json(const case_result& r) {
  json order = json::array();
  for (const auto& a : r.axes) order.push_back(a.first);
  json j = {
      {"suite", r.suite},
      {"case", r.name},
      {"variant", r.variant},
      {"axes", axes_to_json(r.axes)},
      {"axis_order", order},
      {"axes_label", r.axes_label},
      {"status", to_string(r.status)},
      {"verification", {{"status", to_string(r.verification)}, {"detail", r.verification_detail}}},
      {"message", r.message},
      {"bytes_read", r.bytes_read},
      {"bytes_written", r.bytes_written},
      {"elements", r.elements},
      {"metrics", r.metrics},
  };
  if (!r.labels.empty()) j["labels"] = r.labels;
  if (r.source != 0) j["source"] = r.source;
  if (r.timed) {
    j["samples"] = {{"count", r.stats.count}, {"median_s", r.stats.median}, {"min_s", r.stats.min},
                    {"max_s", r.stats.max},   {"mean_s", r.stats.mean},     {"stdev_s", r.stats.stdev},
                    {"noise", r.stats.noise}, {"rse", r.stats.rse},         {"batch", r.batch}};
    put_cold(j["samples"], r.cold);
    // Rows carried over from files older than format 4 (merged, upgraded) lack these.
    if (!r.stop.empty()) {
      j["samples"]["converged"] = r.converged;
      j["samples"]["stop"] = r.stop;
    }
    if (!r.times.empty()) j["samples"]["times_s"] = r.times;
    if (!r.replicates.empty()) j["samples"]["replicates_s"] = r.replicates;
    if (r.clock_mhz > 0)
      j["clock"] = {{"sm_mhz", r.clock_mhz},
                    {"sm_min_mhz", r.clock_min_mhz},
                    {"throttled", r.clock_throttled},
                    {"discarded", r.throttle_discards}};
    if (r.has_telemetry)
      j["telemetry"] = {{"power_w", r.power_w}, {"temperature_c", r.temperature_c}, {"clock_limits", r.clock_limits}};
    j["derived"] = {{"gbps", r.gbps},
                    {"gbps_best", r.gbps_best},
                    {"elements_per_s", r.elements_per_s},
                    {"fraction_of_copy", r.fraction_of_copy}};
  }
  return j;
}

case_result result_from_json(const checker& c, const json& j, const std::string& path, int version) {
  if (!j.is_object()) c.fail(path, "must be an object");
  case_result r;
  r.suite = c.str(j, path, "suite", true);
  r.name = c.str(j, path, "case", true);
  r.variant = c.str(j, path, "variant");
  r.axes = axes_from_json(c, j, path);
  r.axes_label = c.str(j, path, "axes_label");
  static const case_status all_status[] = {case_status::ok, case_status::fail, case_status::skipped,
                                           case_status::error};
  static const verification_status all_ver[] = {verification_status::not_run, verification_status::passed,
                                                verification_status::failed};
  try {
    r.status = enum_from(c.str(j, path, "status"), all_status, "status");
    const auto& ver = c.field(j, path, "verification");
    r.verification = enum_from(c.str(ver, path + ".verification", "status"), all_ver, "verification status");
    r.verification_detail = c.str(ver, path + ".verification", "detail");
  } catch (const results_error& e) {
    if (std::string(e.what()).rfind("unknown ", 0) == 0) c.fail(path, e.what());
    throw;
  }
  r.message = c.str(j, path, "message");
  r.bytes_read = c.integer<std::uint64_t>(j, path, "bytes_read");
  r.bytes_written = c.integer<std::uint64_t>(j, path, "bytes_written");
  r.elements = c.integer<std::uint64_t>(j, path, "elements");
  const auto& metrics = c.field(j, path, "metrics");
  if (!metrics.is_object()) c.fail(path + ".metrics", "must be an object of numbers");
  for (const auto& [k, v] : metrics.items())
    r.metrics[k] = c.number_value(v, path + ".metrics." + k, -std::numeric_limits<double>::max());
  if (j.contains("labels")) {
    if (version < 2) c.fail(path + ".labels", "appears only from results format version 2 on");
    const auto& labels = j.at("labels");
    if (!labels.is_object()) c.fail(path + ".labels", "must be an object of strings");
    for (const auto& [k, v] : labels.items()) {
      if (!v.is_string()) c.fail(path + ".labels." + k, "must be a string");
      r.labels[k] = v.get<std::string>();
    }
  }
  if (j.contains("source")) {
    if (version < 3) c.fail(path + ".source", "appears only from results format version 3 on");
    r.source = c.integer<std::size_t>(j, path, "source");
  }
  if (j.contains("samples")) {
    const auto& s = j.at("samples");
    const std::string sp = path + ".samples";
    r.timed = true;
    r.stats.count = c.integer<std::size_t>(s, sp, "count", 1);
    // A launch takes time: zero or negative times are impossible, not fast.
    constexpr double tiny = 1e-300;
    r.stats.median = c.number(s, sp, "median_s", tiny, 1e9);
    r.stats.min = c.number(s, sp, "min_s", tiny, 1e9);
    r.stats.max = c.number(s, sp, "max_s", tiny, 1e9);
    r.stats.mean = c.number(s, sp, "mean_s", tiny, 1e9);
    r.stats.stdev = c.number(s, sp, "stdev_s", 0, 1e9);
    r.stats.noise = c.number(s, sp, "noise", 0, 1e6);
    if (r.stats.min > r.stats.median || r.stats.median > r.stats.max)
      c.fail(sp, "must have min_s <= median_s <= max_s");
    r.batch = c.integer<int>(s, sp, "batch", 1);
    r.cold = cold_from_json(c, s, sp, version);
    r.converged = true;  // older files did not record the rule: nothing to flag
    if (version >= 4) {
      r.stats.rse = c.number(s, sp, "rse", 0, 1e6);
      if (s.contains("stop") || s.contains("converged")) {
        r.converged = c.boolean(s, sp, "converged");
        r.stop = c.str(s, sp, "stop");
        static const char* stops[] = {stop_converged, stop_timeout, stop_max_samples, stop_fixed, stop_run_once};
        if (std::none_of(std::begin(stops), std::end(stops), [&](const char* k) { return r.stop == k; }))
          c.fail(sp + ".stop", "must be one of converged, timeout, max_samples, fixed, run_once");
      }
      const json empty = json::array();
      const auto& times = s.contains("times_s") ? s.at("times_s") : empty;
      if (!times.is_array() || (s.contains("times_s") && times.size() != r.stats.count))
        c.fail(sp + ".times_s", "must list exactly .count sample times");
      for (std::size_t i = 0; i < times.size(); ++i)
        r.times.push_back(c.number_value(times[i], sp + ".times_s[" + std::to_string(i) + "]", tiny, 1e9));
      const auto [lo, hi] = std::minmax_element(r.times.begin(), r.times.end());
      if (!r.times.empty() && (*lo < r.stats.min * (1 - 1e-9) || *hi > r.stats.max * (1 + 1e-9)))
        c.fail(sp + ".times_s", "holds a time outside [min_s, max_s]");
      if (s.contains("replicates_s")) {
        const auto& reps = s.at("replicates_s");
        if (version < 6) c.fail(sp + ".replicates_s", "appears only from results format version 6 on");
        if (!reps.is_array() || reps.size() < 2) c.fail(sp + ".replicates_s", "must list at least two medians");
        for (std::size_t i = 0; i < reps.size(); ++i)
          r.replicates.push_back(c.number_value(reps[i], sp + ".replicates_s[" + std::to_string(i) + "]", tiny, 1e9));
      }
    } else {
      r.stats.rse = r.stats.noise / std::sqrt(static_cast<double>(r.stats.count));
    }
    if (j.contains("clock")) {
      if (version < 4) c.fail(path + ".clock", "appears only from results format version 4 on");
      const auto& k = j.at("clock");
      const std::string kp = path + ".clock";
      r.clock_mhz = c.number(k, kp, "sm_mhz", 1e-3, 1e5);
      r.clock_min_mhz = c.number(k, kp, "sm_min_mhz", 0, 1e5);
      r.clock_throttled = c.boolean(k, kp, "throttled");
      r.throttle_discards = c.integer<int>(k, kp, "discarded");
    }
    if (j.contains("telemetry")) {
      if (version < 4) c.fail(path + ".telemetry", "appears only from results format version 4 on");
      const auto& t = j.at("telemetry");
      const std::string tp = path + ".telemetry";
      r.has_telemetry = true;
      r.power_w = c.number(t, tp, "power_w", 0, 1e5);
      r.temperature_c = c.number(t, tp, "temperature_c", -300, 1e4);
      const auto& lim = c.field(t, tp, "clock_limits");
      if (!lim.is_array()) c.fail(tp + ".clock_limits", "must be a list of names");
      for (const auto& n : lim) {
        if (!n.is_string()) c.fail(tp + ".clock_limits", "must hold strings");
        r.clock_limits.push_back(n.get<std::string>());
      }
    }
    const auto& d = c.field(j, path, "derived");
    const std::string dp = path + ".derived";
    r.gbps = c.number(d, dp, "gbps");
    r.gbps_best = c.number(d, dp, "gbps_best");
    r.elements_per_s = c.number(d, dp, "elements_per_s");
    r.fraction_of_copy = c.number(d, dp, "fraction_of_copy");
  } else if (j.contains("derived")) {
    c.fail(path + ".derived", "appears without .samples");
  } else if (j.contains("clock") || j.contains("telemetry")) {
    c.fail(path + (j.contains("clock") ? ".clock" : ".telemetry"), "appears without .samples");
  }
  return r;
}

}  // namespace

json to_json(const device_info& d) {
  json j = json::object();
  for_each_device_field([&](const char* key, auto member) { j[key] = d.*member; });
  j["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  return j;
}

namespace {

device_info device_from_json(const checker& c, const json& j, const std::string& path) {
  if (!j.is_object()) c.fail(path, "must be an object");
  device_info d;
  for_each_device_field([&](const char* key, auto member) {
    using field_t = std::decay_t<decltype(d.*member)>;
    if constexpr (std::is_same_v<field_t, std::string>) d.*member = c.str(j, path, key);
    else if constexpr (std::is_same_v<field_t, bool>) d.*member = c.boolean(j, path, key);
    else if constexpr (std::is_floating_point_v<field_t>) d.*member = c.number(j, path, key);
    else d.*member = c.integer<field_t>(j, path, key);
  });
  return d;
}

}  // namespace

device_info device_info_from_json(const json& j) { return device_from_json(checker("device"), j, "$"); }

namespace {

json sources_to_json(const std::vector<results_source>& sources) {
  json out = json::array();
  for (const auto& s : sources) {
    json o = {{"file", s.file},       {"tool_version", s.tool_version},
              {"commit", s.commit},   {"created_utc", s.created_utc},
              {"command", s.command}, {"copy_gbps", s.copy_ceiling_gbps},
              {"rows", s.rows}};
    if (!s.incomplete.empty()) o["incomplete"] = s.incomplete;
    if (s.has_board) {
      o["host"] = s.host;
      o["device"] = to_json(s.device);
      if (s.rank >= 0) o["rank"] = s.rank;
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<results_source> sources_from_json(const checker& c, const json& j, int version) {
  if (!j.is_array()) c.fail("$.sources", "must be a list");
  std::vector<results_source> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string p = "$.sources[" + std::to_string(i) + "]";
    if (!j[i].is_object()) c.fail(p, "must be an object");
    results_source s;
    s.file = c.str(j[i], p, "file");
    s.tool_version = c.str(j[i], p, "tool_version");
    s.commit = c.str(j[i], p, "commit");
    s.created_utc = c.str(j[i], p, "created_utc");
    s.command = c.str(j[i], p, "command");
    s.copy_ceiling_gbps = c.number(j[i], p, "copy_gbps");
    s.rows = c.integer<std::size_t>(j[i], p, "rows");
    if (j[i].contains("incomplete")) s.incomplete = c.str(j[i], p, "incomplete");
    if (j[i].contains("device")) {
      if (version < 5) c.fail(p + ".device", "appears only from results format version 5 on");
      s.has_board = true;
      s.device = device_from_json(c, j[i].at("device"), p + ".device");
      s.host = c.str(j[i], p, "host");
      if (j[i].contains("rank")) s.rank = static_cast<int>(c.integer(j[i], p, "rank", 0, 1 << 30));
    } else if (j[i].contains("host") || j[i].contains("rank")) {
      c.fail(p, "names a host or rank without its device");
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

json to_json(const timing_policy& p) {
  return {{"min_samples", p.min_samples},
          {"max_samples", p.max_samples},
          {"max_noise_rse", p.max_noise},
          {"min_time_s", p.min_time_s},
          {"timeout_s", p.timeout_s},
          {"compared_samples", p.compared_samples},
          {"run_once", p.run_once},
          {"throttle_threshold", p.throttle_threshold},
          {"resample_throttled", p.resample_throttled}};
}

namespace {

timing_policy timing_from_json(const checker& c, const json& j, const std::string& path) {
  timing_policy p;
  p.min_samples = c.integer<int>(j, path, "min_samples", 1);
  p.max_samples = c.integer<int>(j, path, "max_samples", 1);
  p.max_noise = c.number(j, path, "max_noise_rse", 1e-12, timing_policy::max_noise_fraction);
  p.min_time_s = c.number(j, path, "min_time_s", 0, timing_policy::max_seconds);
  p.timeout_s = c.number(j, path, "timeout_s", 1e-12, timing_policy::max_seconds);
  p.compared_samples = c.integer<int>(j, path, "compared_samples", 1);
  p.run_once = c.boolean(j, path, "run_once");
  p.throttle_threshold = c.number(j, path, "throttle_threshold", 0, 1);
  p.resample_throttled = c.boolean(j, path, "resample_throttled");
  if (const auto why = p.problem(); !why.empty()) c.fail(path, why);
  return p;
}

}  // namespace

timing_policy timing_from_json(const json& j, const std::string& where, const std::string& path) {
  return timing_from_json(checker(where), j, path);
}

json row_to_json(const case_result& r) { return result_to_json(r); }

case_result row_from_json(const json& j, const std::string& where, const std::string& path, int version) {
  return result_from_json(checker(where), j, path, version);
}

json to_json(const results_doc& doc) {
  json results = json::array();
  for (const auto& r : doc.results) results.push_back(result_to_json(r));
  json j = {
      {"format", results_format_name},
      {"format_version", doc.format_version},
      {"tool", {{"name", "memscope"}, {"version", doc.tool_version}, {"commit", doc.commit}}},
      {"created_utc", doc.created_utc},
      {"command", doc.command},
      {"options", {{"mode", doc.mode}, {"quick", doc.quick}}},
      {"device", to_json(doc.device)},
      {"ceilings", {{"copy_gbps", doc.copy_ceiling_gbps}, {"copy_bytes", doc.copy_ceiling_bytes}}},
      {"sources", sources_to_json(doc.sources)},
      {"results", results},
  };
  put_cold(j["options"], doc.cold);
  if (doc.timing) j["timing"] = to_json(*doc.timing);
  if (!doc.telemetry_note.empty()) j["telemetry_note"] = doc.telemetry_note;
  if (!doc.host.empty()) j["host"] = doc.host;
  if (doc.rank >= 0) j["rank"] = doc.rank;
  if (!doc.incomplete.empty()) j["incomplete"] = doc.incomplete;
  if (doc.fleet) j["fleet"] = true;
  return j;
}

results_doc results_from_json(const json& j, const std::string& where) {
  const checker c(where);
  if (!j.is_object() || !j.contains("format") || j.at("format") != results_format_name)
    throw results_error(where + ": not a memscope results file (no \"format\": \"memscope-results\")");
  const auto& v = c.field(j, "$", "format_version");
  if (!v.is_number_integer())
    c.fail("$.format_version", "must be a whole number (this memscope reads " +
                                   std::to_string(results_oldest_format_version) + " to " +
                                   std::to_string(results_format_version) + ")");
  const auto version = v.get<std::int64_t>();
  if (version < results_oldest_format_version || version > results_format_version)
    throw results_error(where + ": results format version " + std::to_string(version) +
                        " is not supported (this memscope reads " + std::to_string(results_oldest_format_version) +
                        " to " + std::to_string(results_format_version) + ")");
  results_doc doc;
  doc.format_version = static_cast<int>(version);
  const auto& tool = c.field(j, "$", "tool");
  doc.tool_version = c.str(tool, "$.tool", "version");
  doc.commit = c.str(tool, "$.tool", "commit");
  doc.created_utc = c.str(j, "$", "created_utc");
  doc.command = c.str(j, "$", "command");
  const auto& opt = c.field(j, "$", "options");
  doc.mode = c.str(opt, "$.options", "mode");
  if (doc.mode != "run" && doc.mode != "verify") c.fail("$.options.mode", "must be \"run\" or \"verify\"");
  doc.quick = c.boolean(opt, "$.options", "quick");
  doc.cold = cold_from_json(c, opt, "$.options", doc.format_version);
  doc.device = device_from_json(c, c.field(j, "$", "device"), "$.device");
  const auto& ceil = c.field(j, "$", "ceilings");
  doc.copy_ceiling_gbps = c.number(ceil, "$.ceilings", "copy_gbps");
  doc.copy_ceiling_bytes = c.integer<std::uint64_t>(ceil, "$.ceilings", "copy_bytes");
  if (j.contains("sources")) {
    if (doc.format_version < 3) c.fail("$.sources", "appears only from results format version 3 on");
    doc.sources = sources_from_json(c, j.at("sources"), doc.format_version);
  }
  if (j.contains("timing")) {
    if (doc.format_version < 4) c.fail("$.timing", "appears only from results format version 4 on");
    doc.timing = timing_from_json(c, j.at("timing"), "$.timing");
  }
  if (j.contains("telemetry_note")) doc.telemetry_note = c.str(j, "$", "telemetry_note");
  if (j.contains("host")) doc.host = c.str(j, "$", "host");
  if (j.contains("rank")) doc.rank = static_cast<int>(c.integer(j, "$", "rank", 0, 1 << 30));
  if (j.contains("incomplete")) doc.incomplete = c.str(j, "$", "incomplete");
  if (j.contains("fleet")) {
    if (doc.format_version < 5) c.fail("$.fleet", "appears only from results format version 5 on");
    doc.fleet = c.boolean(j, "$", "fleet");
    if (doc.fleet)
      for (std::size_t i = 0; i < doc.sources.size(); ++i)
        if (!doc.sources[i].has_board)
          c.fail("$.sources[" + std::to_string(i) + "]", "must name its board (host and device) in a fleet document");
    if (doc.fleet && doc.sources.empty()) c.fail("$.fleet", "a fleet document lists its runs in sources");
  }
  const auto& results = c.field(j, "$", "results");
  if (!results.is_array()) c.fail("$.results", "must be a list of rows");
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string path = "$.results[" + std::to_string(i) + "]";
    doc.results.push_back(result_from_json(c, results[i], path, doc.format_version));
    const std::size_t runs = std::max<std::size_t>(1, doc.sources.size());
    if (doc.results.back().source >= runs)
      c.fail(path + ".source", "names run " + std::to_string(doc.results.back().source) + " of a document that lists " +
                                   std::to_string(runs));
    // In a fleet every board has its own rows: a point repeats only on one board.
    const auto key =
        (doc.fleet ? board_of(doc, doc.results.back()) + '\x1e' : std::string()) + row_key(doc.results.back());
    if (const auto it = seen.find(key); it != seen.end())
      c.fail(path, "repeats the row at $.results[" + std::to_string(it->second) + "] (" + doc.results.back().id() +
                       " " + doc.results.back().axes_label + ")");
    seen[key] = i;
  }
  return doc;
}

void put_cold(json& obj, cold_mode m) {
  obj["cold"] = m != cold_mode::off;
  if (m != cold_mode::off) obj["cold_flush"] = to_string(m);
}

std::string board_key(const std::string& host, const device_info& device) { return host + '/' + device.uuid; }

namespace {
/// The board of a document's run: its own, or the header's where the run names none.
std::string source_board(const results_doc& doc, const results_source& s) {
  return s.has_board ? board_key(s.host, s.device) : board_key(doc.host, doc.device);
}
}  // namespace

std::string board_of(const results_doc& doc, const case_result& row) {
  return row.source < doc.sources.size() ? source_board(doc, doc.sources[row.source]) : board_key(doc.host, doc.device);
}

double copy_ceiling_of(const results_doc& doc, const case_result& row) {
  if (row.source < doc.sources.size() && doc.sources[row.source].copy_ceiling_gbps > 0)
    return doc.sources[row.source].copy_ceiling_gbps;
  return doc.copy_ceiling_gbps;
}

std::optional<row_ceiling> ceiling_of(const case_result& row) {
  if (!row.timed || row.bytes_read + row.bytes_written == 0 || !(row.gbps > 0)) return std::nullopt;
  if (row.labels.count(link_label)) {
    const double link = row.metric(link_gbps_metric);
    if (!(link > 0) || !std::isfinite(link)) return std::nullopt;
    return row_ceiling{"link", row.gbps / link};
  }
  if (!(row.fraction_of_copy > 0) || !std::isfinite(row.fraction_of_copy)) return std::nullopt;
  return row_ceiling{"copy", row.fraction_of_copy};
}

std::string ceiling_cell(const case_result& row) {
  const auto c = ceiling_of(row);
  if (!c) return "-";
  // Small copies are described by their time; their fraction still shows two figures, not "0.000x".
  return c->fraction >= 0.01 ? fmt::format("{:.3f}x {}", c->fraction, c->name)
                             : fmt::format("{:.2g}x {}", c->fraction, c->name);
}

namespace {

/// A document's runs, each naming its board (older documents' runs are the header's board).
std::vector<results_source> runs_of(const results_doc& d, const std::string& name) {
  std::vector<results_source> runs = d.sources;
  if (runs.empty()) {
    results_source s;
    s.file = name;
    s.tool_version = d.tool_version;
    s.commit = d.commit;
    s.created_utc = d.created_utc;
    s.command = d.command;
    s.copy_ceiling_gbps = d.copy_ceiling_gbps;
    s.incomplete = d.incomplete;
    runs.push_back(std::move(s));
  } else if (!d.incomplete.empty() &&
             std::none_of(runs.begin(), runs.end(), [](const results_source& s) { return !s.incomplete.empty(); })) {
    // A resumed run's document (or one merged before runs kept their own): the stop is its last run's.
    runs.back().incomplete = d.incomplete;
  }
  for (auto& s : runs)
    if (!s.has_board) {
      s.has_board = true;
      s.host = d.host;
      s.rank = d.rank;
      s.device = d.device;
    }
  return runs;
}

std::string describe_board(const results_source& s) {
  return (s.host.empty() ? std::string() : s.host + " ") + "GPU " + std::to_string(s.device.ordinal) + " (" +
         s.device.uuid.substr(0, std::min<std::size_t>(s.device.uuid.size(), 12)) + ", " + s.file + ")";
}

/// One job's ranks each measure their own GPU: a rank on two boards means files of two jobs,
/// two ranks on one board means they shared a GPU (and disturbed each other's figures).
void check_ranks(const std::vector<results_source>& runs) {
  std::map<int, const results_source*> board_of_rank;
  std::map<std::string, const results_source*> rank_of_board;
  for (const auto& s : runs) {
    if (s.rank < 0) continue;
    const auto key = board_key(s.host, s.device);
    if (const auto it = board_of_rank.find(s.rank);
        it != board_of_rank.end() && board_key(it->second->host, it->second->device) != key)
      throw results_error("rank " + std::to_string(s.rank) + " appears twice, on " + describe_board(*it->second) +
                          " and on " + describe_board(s) +
                          ": these are files of two jobs (merge one job's files, or compare the jobs)");
    if (const auto it = rank_of_board.find(key); it != rank_of_board.end() && it->second->rank != s.rank)
      throw results_error(
          "ranks " + std::to_string(it->second->rank) + " and " + std::to_string(s.rank) + " both measured " +
          describe_board(s) +
          ": two processes shared one GPU, so neither figure is the board's own (give each rank its own GPU)");
    board_of_rank.emplace(s.rank, &s);
    rank_of_board.emplace(key, &s);
  }
}

/// A document's header from the runs it lists: one run's own header again (the list dropped),
/// or several runs' commands joined, their commit where they agree, and the latest time.
void header_from_runs(results_doc& d) {
  if (d.sources.empty()) return;
  if (d.sources.size() == 1) {
    const auto& s = d.sources.front();
    d.commit = s.commit;
    d.created_utc = s.created_utc;
    d.command = s.command;
    d.copy_ceiling_gbps = s.copy_ceiling_gbps;
    d.incomplete = s.incomplete;
    d.sources.clear();
    return;
  }
  std::string cmd;
  bool same_commit = true;
  d.created_utc.clear();
  d.incomplete.clear();
  for (std::size_t i = 0; i < d.sources.size(); ++i) {
    const auto& s = d.sources[i];
    if (!s.incomplete.empty()) d.incomplete += (d.incomplete.empty() ? "" : "; ") + s.file + ": " + s.incomplete;
    cmd += (i ? " + " : "") + s.command;
    same_commit = same_commit && s.commit == d.sources.front().commit;
    d.created_utc = std::max(d.created_utc, s.created_utc);
  }
  d.command = cmd;
  d.commit = same_commit ? d.sources.front().commit : "several (see sources)";
}

std::string axis_names(const case_result& r) {
  std::string names;
  for (const auto& [n, v] : r.axes) names += (names.empty() ? "" : ", ") + n;
  return names;
}

/// A case whose axes changed between the runs (the suite gained or lost an axis): the latest
/// input's rows describe the case as it is now, and an earlier input's rows with other axes are
/// points that no longer exist, which no row key matches, so they would stay beside the new
/// ones. With `replace` they go; without it that is an error, as a row in two inputs is.
template <class Name>
void drop_changed_cases(results_doc& out, std::vector<std::size_t>& row_input, bool replace, const Name& name) {
  std::map<std::string, std::size_t> latest;              // suite/case -> the last input with rows of it
  std::map<std::string, std::set<std::string>> now_axes;  // suite/case -> its axes there
  for (std::size_t k = 0; k < out.results.size(); ++k) {
    auto& l = latest[out.results[k].id()];
    l = std::max(l, row_input[k]);
  }
  for (std::size_t k = 0; k < out.results.size(); ++k)
    if (row_input[k] == latest[out.results[k].id()]) now_axes[out.results[k].id()].insert(axis_names(out.results[k]));
  std::vector<case_result> kept;
  std::vector<std::size_t> kept_input;
  for (std::size_t k = 0; k < out.results.size(); ++k) {
    auto& r = out.results[k];
    const auto& axes = now_axes[r.id()];
    if (row_input[k] != latest[r.id()] && !axes.count(axis_names(r))) {
      if (!replace)
        throw results_error(r.id() + " has the axes (" + axis_names(r) + ") in " + name(row_input[k]) + " but (" +
                            *axes.begin() + ") in " + name(latest[r.id()]) +
                            ": the case changed between the runs (merge --replace keeps the later file's rows of it)");
      continue;
    }
    kept.push_back(std::move(r));
    kept_input.push_back(row_input[k]);
  }
  out.results = std::move(kept);
  row_input = std::move(kept_input);
}

}  // namespace

std::string joining_problem(const results_doc& a, const std::string& a_name, const results_doc& b,
                            const std::string& b_name, const std::string& joined) {
  // One model, not necessarily one board: runs lent on different boards still describe one model.
  if (!same_model(a.device, b.device))
    return "results from different GPU models (" + a.device.name + " in " + a_name + ", " + b.device.name + " in " +
           b_name + ") cannot be " + joined + ": compare them instead";
  if (b.mode != a.mode || b.quick != a.quick || b.cold != a.cold)
    return b_name + " was measured with other options (mode, --quick or --cold, clean or dirty) than " + a_name +
           ": its figures are not comparable";
  return {};
}

namespace {

/// merge() with merge_options::replicates: `out` is the first document's header, `runs` each
/// input's runs, already checked to be of one model, options and version.
template <class Name>
results_doc merge_replicates(results_doc out, const std::vector<results_doc>& docs,
                             const std::vector<std::vector<results_source>>& runs, const Name& name) {
  const auto& first = runs.front().front();
  for (std::size_t i = 0; i < docs.size(); ++i) {
    if (docs[i].fleet) throw results_error(name(i) + " holds several boards: replicates are runs of one board");
    for (const auto& s : runs[i]) {
      if (board_key(s.host, s.device) != board_key(first.host, first.device))
        throw results_error(name(i) + " was measured on " + s.host + " " + s.device.uuid + ", " + name(0) + " on " +
                            first.host + " " + first.device.uuid +
                            ": replicates are runs of one board (merge without --replicates, or compare them)");
      if (s.commit != first.commit)
        throw results_error(name(i) + " was built from " + s.commit + ", " + name(0) + " from " + first.commit +
                            ": replicates are runs of one build");
    }
    for (auto s : runs[i]) {
      s.rows = 0;
      out.sources.push_back(std::move(s));
    }
  }
  // Rows by key in the order first seen; each input's rows point at its own runs.
  std::map<std::string, std::size_t> at;
  std::vector<std::vector<case_result>> groups;
  std::size_t base = 0;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    for (auto r : docs[i].results) {
      r.source = std::min(r.source, runs[i].size() - 1) + base;
      const auto [it, fresh] = at.emplace(row_key(r), groups.size());
      if (fresh) groups.emplace_back();
      groups[it->second].push_back(std::move(r));
    }
    base += runs[i].size();
  }
  for (auto& g : groups) {
    // A failed check in any run is what the row says: a failure is never outvoted.
    const auto failed =
        std::find_if(g.begin(), g.end(), [](const case_result& r) { return r.timed && r.status != case_status::ok; });
    std::vector<const case_result*> timed;
    for (const auto& r : g)
      if (r.timed && r.status == case_status::ok) timed.push_back(&r);
    if (failed != g.end() || timed.empty()) {
      out.results.push_back(failed != g.end() ? *failed : g.front());
      continue;
    }
    std::vector<double> medians;
    for (const auto* r : timed) {
      const auto m = r->run_medians();  // a merged row brings the ones it lists
      medians.insert(medians.end(), m.begin(), m.end());
    }
    auto sorted = medians;
    std::sort(sorted.begin(), sorted.end());
    const double mid = sorted[(sorted.size() - 1) / 2];
    const auto* keep = *std::min_element(timed.begin(), timed.end(), [&](const case_result* x, const case_result* y) {
      return std::fabs(x->stats.median - mid) < std::fabs(y->stats.median - mid);
    });
    case_result row = *keep;
    row.replicates = medians.size() >= 2 ? medians : std::vector<double>{};
    out.results.push_back(std::move(row));
  }
  for (const auto& r : out.results) ++out.sources[r.source].rows;
  header_from_runs(out);
  return out;
}

}  // namespace

results_doc merge(const std::vector<results_doc>& docs, const merge_options& opt) {
  if (docs.empty()) throw results_error("nothing to merge");
  if (opt.replicates && opt.replace) throw results_error("merge: --replicates and --replace exclude each other");
  const auto name = [&](std::size_t i) {
    return i < opt.names.size() ? opt.names[i] : "input " + std::to_string(i + 1);
  };
  results_doc out = docs.front();
  out.format_version = results_format_version;
  out.sources.clear();
  out.results.clear();
  out.fleet = false;
  std::vector<std::vector<results_source>> runs(docs.size());
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const auto& d = docs[i];
    if (const auto why = joining_problem(out, name(0), d, name(i), "merged into one document"); !why.empty())
      throw results_error(why);
    runs[i] = runs_of(d, name(i));
    for (const auto& s : runs[i])
      if (s.tool_version != out.tool_version)
        throw results_error(name(i) + " was written by memscope " + s.tool_version + ", " + name(0) + " by " +
                            out.tool_version +
                            ": a document holds one version's figures (compare files of different versions instead)");
    if (d.fleet && opt.replace)
      throw results_error(name(i) +
                          " holds several boards (a fleet document): --replace joins runs into one profile, "
                          "which would mix the boards' figures");
    out.fleet = out.fleet || d.fleet;
  }
  if (opt.replicates) return merge_replicates(std::move(out), docs, runs, name);
  {
    std::vector<results_source> all;
    for (const auto& r : runs) all.insert(all.end(), r.begin(), r.end());
    check_ranks(all);
  }
  // Several boards that measured the same point stay apart: that is a fleet, not a repeat.
  if (!opt.replace && !out.fleet) {
    std::map<std::string, std::string> board_of_point;
    for (std::size_t i = 0; i < docs.size() && !out.fleet; ++i)
      for (const auto& r : docs[i].results) {
        const auto& src = runs[i][std::min(r.source, runs[i].size() - 1)];
        const auto [it, fresh] = board_of_point.emplace(row_key(r), board_key(src.host, src.device));
        if (!fresh && it->second != board_key(src.host, src.device)) {
          out.fleet = true;
          break;
        }
      }
  }
  std::map<std::string, std::size_t> at;  // (board in a fleet,) row key -> index in out.results
  std::vector<std::size_t> row_input;     // which input each output row came from
  for (std::size_t i = 0; i < docs.size(); ++i) {
    // A merged input brings its own runs; its rows' run numbers move up by those already listed.
    const std::size_t base = out.sources.size();
    for (auto s : runs[i]) {
      s.rows = 0;
      out.sources.push_back(std::move(s));
    }
    for (auto r : docs[i].results) {
      r.source = std::min(r.source, runs[i].size() - 1) + base;
      const auto& src = out.sources[r.source];
      const auto key = (out.fleet ? board_key(src.host, src.device) + '\x1e' : std::string()) + row_key(r);
      if (const auto it = at.find(key); it != at.end()) {
        if (!opt.replace)
          throw results_error(r.id() + " " + r.axes_label + " is in both " + name(row_input[it->second]) + " and " +
                              name(i) + (out.fleet ? ", measured on one board" : std::string()) +
                              " (merge --replace lets the later file's row take its place)");
        out.results[it->second] = std::move(r);
        row_input[it->second] = i;
      } else {
        at[key] = out.results.size();
        out.results.push_back(std::move(r));
        row_input.push_back(i);
      }
    }
  }
  if (!out.fleet) drop_changed_cases(out, row_input, opt.replace, name);
  for (const auto& r : out.results) ++out.sources[r.source].rows;
  header_from_runs(out);
  if (out.fleet) out.rank = -1;  // the header is the first board's; ranks are the sources'
  return out;
}

std::size_t boards_named(const results_doc& doc) {
  std::vector<std::string> keys;
  for (const auto& s : doc.sources) {
    const auto key = source_board(doc, s);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return std::max<std::size_t>(keys.size(), 1);
}

std::vector<results_doc> split_boards(const results_doc& doc) {
  if (!doc.fleet) return {doc};
  std::vector<std::string> keys;
  std::vector<results_doc> boards;
  std::vector<std::size_t> board_of_source(doc.sources.size()), index_in_board(doc.sources.size());
  for (std::size_t k = 0; k < doc.sources.size(); ++k) {
    const auto& s = doc.sources[k];
    const auto key = board_key(s.host, s.device);
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      results_doc b = doc;
      b.fleet = false;
      b.results.clear();
      b.sources.clear();
      b.host = s.host;
      b.rank = s.rank;
      b.device = s.device;
      b.copy_ceiling_gbps = s.copy_ceiling_gbps;
      boards.push_back(std::move(b));
      it = keys.end() - 1;
    }
    board_of_source[k] = static_cast<std::size_t>(it - keys.begin());
    index_in_board[k] = boards[board_of_source[k]].sources.size();
    boards[board_of_source[k]].sources.push_back(s);
  }
  for (auto r : doc.results) {
    auto& b = boards[board_of_source[r.source]];
    r.source = index_in_board[r.source];
    b.results.push_back(std::move(r));
  }
  for (auto& b : boards) header_from_runs(b);
  return boards;
}

std::string results_text(const results_doc& doc, const std::string& path) {
  auto text = to_json(doc).dump(2);
  // Never write what memscope would refuse to read back (a merge of many large runs).
  try {
    check_readable_size(text.size(), path);
  } catch (const input_error& e) {
    throw io_error(e.what());
  }
  return text;
}

void save_results(const results_doc& doc, const std::string& path) {
  const auto text = results_text(doc, path);
  write_output(path, [&](std::ostream& out) { out << text << '\n'; });
}

results_doc load_results(const std::string& path) {
  std::string text;
  try {
    text = read_input(path, max_results_bytes, "results file");
  } catch (const input_error& e) {
    throw results_error(e.what());
  }
  if (is_gzip(text)) {
    try {
      text = gunzip(text, max_results_bytes);
    } catch (const gzip_error& e) {
      throw results_error("'" + path + "' is gzip-compressed but cannot be read: " + e.what());
    }
  }
  json j;
  try {
    j = json::parse(text);  // the whole text: trailing garbage or a second document is an error
  } catch (const json::exception& e) {
    throw results_error("'" + path + "' is not valid JSON (truncated, or something after the document?): " + e.what());
  }
  return results_from_json(j, "'" + path + "'");
}

}  // namespace memscope
