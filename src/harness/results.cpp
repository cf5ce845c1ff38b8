#include "harness/results.hpp"

#include <cmath>
#include <fstream>

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

double case_result::metric(const std::string& metric_name) const {
  const auto it = metrics.find(metric_name);
  return it == metrics.end() ? std::nan("") : it->second;
}

std::string case_result::label(const std::string& label_name) const {
  const auto it = labels.find(label_name);
  return it == labels.end() ? std::string() : it->second;
}

const char* to_string(case_status s) {
  switch (s) {
    case case_status::ok: return "ok";
    case case_status::fail: return "fail";
    case case_status::skipped: return "skipped";
    case case_status::error: return "error";
  }
  return "?";
}

const char* to_string(verification_status s) {
  switch (s) {
    case verification_status::not_run: return "not_run";
    case verification_status::passed: return "passed";
    case verification_status::failed: return "failed";
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
std::vector<std::pair<std::string, axis_value>> axes_from_json(const json& j, const json& order) {
  std::vector<std::pair<std::string, axis_value>> out;
  for (const auto& k : order) {
    const auto& v = j.at(k.get<std::string>());
    if (v.is_number_integer()) out.emplace_back(k.get<std::string>(), v.get<std::int64_t>());
    else out.emplace_back(k.get<std::string>(), v.get<std::string>());
  }
  return out;
}

json result_to_json(const case_result& r) {
  json order = json::array();
  for (const auto& a : r.axes) order.push_back(a.first);
  json j = {
      {"suite", r.suite}, {"case", r.name}, {"variant", r.variant},
      {"axes", axes_to_json(r.axes)}, {"axis_order", order}, {"axes_label", r.axes_label},
      {"status", to_string(r.status)},
      {"verification", {{"status", to_string(r.verification)}, {"detail", r.verification_detail}}},
      {"message", r.message},
      {"bytes_read", r.bytes_read}, {"bytes_written", r.bytes_written}, {"elements", r.elements},
      {"metrics", r.metrics},
  };
  if (!r.labels.empty()) j["labels"] = r.labels;
  if (r.timed) {
    j["samples"] = {{"count", r.stats.count}, {"median_s", r.stats.median}, {"min_s", r.stats.min},
                    {"max_s", r.stats.max},   {"mean_s", r.stats.mean},     {"stdev_s", r.stats.stdev},
                    {"noise", r.stats.noise}, {"batch", r.batch},           {"cold", r.cold}};
    j["derived"] = {{"gbps", r.gbps}, {"gbps_best", r.gbps_best}, {"elements_per_s", r.elements_per_s},
                    {"fraction_of_copy", r.fraction_of_copy}};
  }
  return j;
}

case_result result_from_json(const json& j) {
  case_result r;
  r.suite = j.at("suite").get<std::string>();
  r.name = j.at("case").get<std::string>();
  r.variant = j.at("variant").get<std::string>();
  r.axes = axes_from_json(j.at("axes"), j.at("axis_order"));
  r.axes_label = j.value("axes_label", "");
  static const case_status all_status[] = {case_status::ok, case_status::fail, case_status::skipped, case_status::error};
  static const verification_status all_ver[] = {verification_status::not_run, verification_status::passed,
                                                verification_status::failed};
  r.status = enum_from(j.at("status").get<std::string>(), all_status, "status");
  r.verification = enum_from(j.at("verification").at("status").get<std::string>(), all_ver, "verification status");
  r.verification_detail = j.at("verification").value("detail", "");
  r.message = j.value("message", "");
  r.bytes_read = j.at("bytes_read").get<std::uint64_t>();
  r.bytes_written = j.at("bytes_written").get<std::uint64_t>();
  r.elements = j.at("elements").get<std::uint64_t>();
  r.metrics = j.value("metrics", std::map<std::string, double>{});
  r.labels = j.value("labels", std::map<std::string, std::string>{});
  if (j.contains("samples")) {
    const auto& s = j.at("samples");
    r.timed = true;
    r.stats.count = s.at("count").get<std::size_t>();
    r.stats.median = s.at("median_s").get<double>();
    r.stats.min = s.at("min_s").get<double>();
    r.stats.max = s.at("max_s").get<double>();
    r.stats.mean = s.at("mean_s").get<double>();
    r.stats.stdev = s.at("stdev_s").get<double>();
    r.stats.noise = s.at("noise").get<double>();
    r.batch = s.at("batch").get<int>();
    r.cold = s.at("cold").get<bool>();
    const auto& d = j.at("derived");
    r.gbps = d.at("gbps").get<double>();
    r.gbps_best = d.at("gbps_best").get<double>();
    r.elements_per_s = d.at("elements_per_s").get<double>();
    r.fraction_of_copy = d.at("fraction_of_copy").get<double>();
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

device_info device_info_from_json(const json& j) {
  device_info d;
  for_each_device_field([&](const char* key, auto member) {
    using field_t = std::decay_t<decltype(d.*member)>;
    d.*member = j.at(key).get<field_t>();
  });
  return d;
}

json to_json(const results_doc& doc) {
  json results = json::array();
  for (const auto& r : doc.results) results.push_back(result_to_json(r));
  return {
      {"format", results_format_name},
      {"format_version", doc.format_version},
      {"tool", {{"name", "memscope"}, {"version", doc.tool_version}, {"commit", doc.commit}}},
      {"created_utc", doc.created_utc},
      {"command", doc.command},
      {"options", {{"mode", doc.mode}, {"quick", doc.quick}, {"cold", doc.cold}}},
      {"device", to_json(doc.device)},
      {"ceilings", {{"copy_gbps", doc.copy_ceiling_gbps}, {"copy_bytes", doc.copy_ceiling_bytes}}},
      {"results", results},
  };
}

results_doc results_from_json(const json& j) {
  if (!j.is_object() || j.value("format", "") != results_format_name)
    throw results_error("not a memscope results file (no \"format\": \"memscope-results\")");
  const int version = j.value("format_version", -1);
  if (version < results_oldest_format_version || version > results_format_version)
    throw results_error("results format version " + std::to_string(version) + " is not supported (this memscope reads " +
                        std::to_string(results_oldest_format_version) + " to " + std::to_string(results_format_version) + ")");
  try {
    results_doc doc;
    doc.format_version = version;
    doc.tool_version = j.at("tool").at("version").get<std::string>();
    doc.commit = j.at("tool").at("commit").get<std::string>();
    doc.created_utc = j.at("created_utc").get<std::string>();
    doc.command = j.at("command").get<std::string>();
    doc.mode = j.at("options").at("mode").get<std::string>();
    doc.quick = j.at("options").at("quick").get<bool>();
    doc.cold = j.at("options").at("cold").get<bool>();
    doc.device = device_info_from_json(j.at("device"));
    doc.copy_ceiling_gbps = j.at("ceilings").at("copy_gbps").get<double>();
    doc.copy_ceiling_bytes = j.at("ceilings").at("copy_bytes").get<std::uint64_t>();
    for (const auto& r : j.at("results")) doc.results.push_back(result_from_json(r));
    return doc;
  } catch (const json::exception& e) {
    throw results_error(std::string("malformed results file: ") + e.what());
  }
}

results_doc merge(const std::vector<results_doc>& docs) {
  if (docs.empty()) throw results_error("nothing to merge");
  results_doc out = docs.front();
  for (std::size_t i = 1; i < docs.size(); ++i) {
    const auto& d = docs[i];
    // One model, not necessarily one board: runs lent on different H200s still describe the H200.
    if (d.device.name != out.device.name || d.device.compute_capability() != out.device.compute_capability() ||
        d.device.sm_count != out.device.sm_count || d.device.total_global_mem != out.device.total_global_mem)
      throw results_error("results from different GPU models (" + out.device.name + ", " + d.device.name +
                          ") cannot be merged into one report: compare them instead");
    out.command += " + " + d.command;
    out.results.insert(out.results.end(), d.results.begin(), d.results.end());
  }
  return out;
}

void save_results(const results_doc& doc, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw results_error("cannot write results file '" + path + "'");
  out << to_json(doc).dump(2) << '\n';
  if (!out) throw results_error("error writing results file '" + path + "'");
}

results_doc load_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw results_error("cannot open results file '" + path + "'");
  json j;
  try {
    in >> j;
  } catch (const json::exception& e) {
    throw results_error("'" + path + "' is not valid JSON (truncated?): " + e.what());
  }
  return results_from_json(j);
}

}  // namespace memscope
