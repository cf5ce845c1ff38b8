#include "harness/counters.hpp"

#include "harness/axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#if __has_include(<cupti_profiler_host.h>) && __has_include(<cupti_target.h>)
#include <cupti_profiler_host.h>
#include <cupti_target.h>
#define MEMSCOPE_HAS_CUPTI_HEADERS 1
#else
#define MEMSCOPE_HAS_CUPTI_HEADERS 0
#endif

namespace memscope::counters {

const std::vector<counter>& default_set() {
  static const std::vector<counter> set{
      {"dram__bytes_read.sum", "DRAM", "bytes read from DRAM"},
      {"dram__bytes_write.sum", "DRAM", "bytes written to DRAM"},
      {"lts__t_sectors.sum", "L2", "32-byte sectors the L2 served or took"},
      {"lts__t_sector_hit_rate.pct", "L2", "share of L2 sectors that hit"},
      {"lts__t_sectors_srcunit_ltcfabric.sum", "L2", "L2 sectors that crossed between the L2 partitions"},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "L1", "global load requests (one per warp instruction)"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "L1",
       "sectors those requests touched (per request: what coalescing costs)"},
      {"l1tex__t_sector_hit_rate.pct", "L1", "share of L1/texture sectors that hit"},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "shared", "shared-memory wavefronts (passes over the banks)"},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "shared", "shared-memory bank conflicts"},
      {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "local", "local-memory sectors loaded (spills read back)"},
      {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "local", "local-memory sectors stored (spills)"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", "atomics", "sectors of global atomics at L1"},
      {"lts__t_sectors_op_atom.sum", "atomics", "L2 sectors of atomics that return a value"},
      {"lts__t_sectors_op_red.sum", "atomics", "L2 sectors of reductions (atomics whose value is unused)"},
      {"idc__requests.sum", "constant", "constant-cache requests"},
      {"idc__request_hit_rate.pct", "constant", "share of constant-cache requests that hit"},
      {"pcie__read_bytes.sum", "host link", "bytes read over PCIe"},
      {"pcie__write_bytes.sum", "host link", "bytes written over PCIe"},
      {"nvlrx__bytes.sum", "NVLink", "bytes received over NVLink"},
      {"nvltx__bytes.sum", "NVLink", "bytes sent over NVLink"},
  };
  return set;
}

std::string unknown_metric_message(const chip_metrics& chip, const std::string& metric) {
  // The base name, up to the rollup (".sum", ".pct", ...), then shorter prefixes of it until
  // something matches: what the user most likely meant.
  std::string base = metric.substr(0, metric.find('.'));
  std::vector<std::string> near;
  for (;;) {
    near = chip.base_metrics(base);
    const auto cut = base.find_last_of('_');
    if (!near.empty() || cut == std::string::npos || cut < 3) break;
    base.resize(cut);
  }
  std::string text = "no metric '" + metric + "' on " + chip.chip();
  if (near.empty()) return text + " (memscope counters --list PREFIX lists the chip's metrics)";
  constexpr std::size_t shown = 5;
  text += "; metrics starting " + base + ": ";
  for (std::size_t i = 0; i < std::min(near.size(), shown); ++i) text += (i ? ", " : "") + near[i];
  if (near.size() > shown) text += fmt::format(" and {} more (memscope counters --list {})", near.size() - shown, base);
  return text;
}

#if MEMSCOPE_HAS_CUPTI_HEADERS

namespace {

template <class Params>
Params params(std::size_t size) {
  Params p{};
  p.structSize = size;
  return p;
}

/// Calls a CUPTI entry point by name and returns its result; throws where CUPTI lacks it.
template <class Fn, class Params>
CUptiResult try_call(const cupti::library& lib, const char* name, Params& p) {
  const auto fn = lib.entry<Fn>(name);
  if (!fn) throw std::runtime_error(std::string("CUPTI at ") + lib.path() + " lacks " + name);
  return fn(&p);
}

/// As try_call; throws naming the call and CUPTI's result where it fails.
template <class Fn, class Params>
void call(const cupti::library& lib, const char* name, Params& p) {
  if (const CUptiResult r = try_call<Fn>(lib, name, p); r != CUPTI_SUCCESS)
    throw std::runtime_error(std::string(name) + " failed: " + lib.result_name(static_cast<int>(r)));
}

CUpti_Profiler_Host_Object* host_object(const cupti::library& lib, const std::string& chip) {
  auto p = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  call<decltype(&cuptiProfilerHostInitialize)>(lib, "cuptiProfilerHostInitialize", p);
  return p.pHostObject;
}

void release(const cupti::library& lib, CUpti_Profiler_Host_Object* host) {
  if (!host) return;
  auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = host;
  if (const auto fn = lib.entry<decltype(&cuptiProfilerHostDeinitialize)>("cuptiProfilerHostDeinitialize")) fn(&p);
}

/// A host object released on every way out of the scope that made it.
struct scoped_host {
  const cupti::library& lib;
  CUpti_Profiler_Host_Object* host;
  scoped_host(const cupti::library& l, const std::string& chip) : lib(l), host(host_object(l, chip)) {}
  ~scoped_host() { release(lib, host); }
  scoped_host(const scoped_host&) = delete;
  scoped_host& operator=(const scoped_host&) = delete;
};

const char* type_name(CUpti_MetricType t) {
  switch (t) {
    case CUPTI_METRIC_TYPE_COUNTER:
      return "counter";
    case CUPTI_METRIC_TYPE_RATIO:
      return "ratio";
    case CUPTI_METRIC_TYPE_THROUGHPUT:
      return "throughput";
    default:
      return "metric";
  }
}

}  // namespace

std::vector<std::string> supported_chips(const cupti::library& lib) {
  auto p =
      params<CUpti_Profiler_Host_GetSupportedChips_Params>(CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  call<decltype(&cuptiProfilerHostGetSupportedChips)>(lib, "cuptiProfilerHostGetSupportedChips", p);
  return {p.ppChipNames, p.ppChipNames + p.numChips};
}

std::string chip_of_device(const cupti::library& lib, int ordinal) {
  auto p = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  p.deviceIndex = static_cast<std::size_t>(ordinal);
  const auto fn = lib.entry<decltype(&cuptiDeviceGetChipName)>("cuptiDeviceGetChipName");
  const CUptiResult r = fn ? fn(&p) : CUPTI_ERROR_NOT_SUPPORTED;
  if (r != CUPTI_SUCCESS || !p.pChipName)
    throw usage_error(fmt::format("CUPTI cannot name GPU {}'s chip ({}): name one with --chip (see --list-chips)",
                                  ordinal, fn ? lib.result_name(static_cast<int>(r)) : "no cuptiDeviceGetChipName"));
  return p.pChipName;
}

chip_metrics::chip_metrics(const cupti::library& lib, const std::string& chip) : lib_(lib), chip_(chip) {
  const auto chips = supported_chips(lib);
  if (std::find(chips.begin(), chips.end(), chip) == chips.end())
    throw usage_error(fmt::format("CUPTI knows no chip '{}'; it knows {}", chip, fmt::join(chips, ", ")));
  host_ = host_object(lib, chip);
}

chip_metrics::~chip_metrics() { release(lib_, static_cast<CUpti_Profiler_Host_Object*>(host_)); }

std::optional<metric_properties> chip_metrics::find(const std::string& metric) const {
  auto p = params<CUpti_Profiler_Host_GetMetricProperties_Params>(
      CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
  p.pHostObject = static_cast<CUpti_Profiler_Host_Object*>(host_);
  p.pMetricName = metric.c_str();
  const auto fn = lib_.entry<decltype(&cuptiProfilerHostGetMetricProperties)>("cuptiProfilerHostGetMetricProperties");
  if (!fn || fn(&p) != CUPTI_SUCCESS) return std::nullopt;
  const auto text = [](const char* s) { return s ? std::string(s) : std::string(); };
  return metric_properties{metric, text(p.pDescription), text(p.pHwUnit), text(p.pDimUnit), type_name(p.metricType)};
}

std::optional<std::size_t> chip_metrics::passes(const std::vector<std::string>& metrics) const {
  for (const auto& m : metrics)
    if (!find(m)) throw usage_error(unknown_metric_message(*this, m));
  return config_passes(metrics);
}

std::optional<std::size_t> chip_metrics::config_passes(const std::vector<std::string>& metrics) const {
  if (metrics.empty()) return 0;
  const scoped_host scope(lib_, chip_);  // a host object of its own: metrics added to one accumulate
  std::vector<const char*> names;
  for (const auto& m : metrics) names.push_back(m.c_str());
  auto add =
      params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = scope.host;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  const CUptiResult added =
      try_call<decltype(&cuptiProfilerHostConfigAddMetrics)>(lib_, "cuptiProfilerHostConfigAddMetrics", add);
  if (added == CUPTI_ERROR_NOT_SUPPORTED) return std::nullopt;  // not together in one configuration
  if (added != CUPTI_SUCCESS)
    throw std::runtime_error("cuptiProfilerHostConfigAddMetrics failed: " + lib_.result_name(static_cast<int>(added)));
  auto size =
      params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = scope.host;
  call<decltype(&cuptiProfilerHostGetConfigImageSize)>(lib_, "cuptiProfilerHostGetConfigImageSize", size);
  std::vector<std::uint8_t> image(size.configImageSize);
  auto get = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  get.pHostObject = scope.host;
  get.pConfigImage = image.data();
  get.configImageSize = image.size();
  call<decltype(&cuptiProfilerHostGetConfigImage)>(lib_, "cuptiProfilerHostGetConfigImage", get);
  auto n = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  n.pConfigImage = image.data();
  n.configImageSize = image.size();
  call<decltype(&cuptiProfilerHostGetNumOfPasses)>(lib_, "cuptiProfilerHostGetNumOfPasses", n);
  return n.numOfPasses;
}

std::vector<counter_group> chip_metrics::plan(const std::vector<std::string>& metrics) const {
  for (const auto& m : metrics)
    if (!find(m)) throw usage_error(unknown_metric_message(*this, m));
  std::vector<counter_group> groups;
  for (const auto& m : metrics) {
    bool placed = false;
    for (auto& g : groups) {
      auto with = g.metrics;
      with.push_back(m);
      if (const auto n = config_passes(with)) {
        g = counter_group{std::move(with), *n};
        placed = true;
        break;
      }
    }
    if (placed) continue;
    const auto n = config_passes({m});
    if (!n) throw usage_error("CUPTI cannot collect " + m + " on " + chip_ + " in any configuration");
    groups.push_back(counter_group{{m}, *n});
  }
  return groups;
}

std::vector<std::string> chip_metrics::base_metrics(const std::string& prefix) const {
  std::vector<std::string> out;
  for (const auto type : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    auto p = params<CUpti_Profiler_Host_GetBaseMetrics_Params>(CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
    p.pHostObject = static_cast<CUpti_Profiler_Host_Object*>(host_);
    p.metricType = type;
    call<decltype(&cuptiProfilerHostGetBaseMetrics)>(lib_, "cuptiProfilerHostGetBaseMetrics", p);
    for (std::size_t i = 0; i < p.numMetrics; ++i)
      if (std::string name = p.ppMetricNames[i]; name.compare(0, prefix.size(), prefix) == 0)
        out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());  // a metric can be of several types
  return out;
}

#else  // built without CUPTI's headers: every use says so

namespace {
[[noreturn]] void no_headers() {
  throw usage_error(
      "this memscope was built without CUPTI's headers (cupti_profiler_host.h): rebuild with a CUDA "
      "toolkit that has CUPTI to read hardware counters");
}
}  // namespace

std::vector<std::string> supported_chips(const cupti::library&) { no_headers(); }
std::string chip_of_device(const cupti::library&, int) { no_headers(); }
chip_metrics::chip_metrics(const cupti::library& lib, const std::string& chip) : lib_(lib), chip_(chip) {
  no_headers();
}
chip_metrics::~chip_metrics() = default;
std::optional<metric_properties> chip_metrics::find(const std::string&) const { no_headers(); }
std::optional<std::size_t> chip_metrics::passes(const std::vector<std::string>&) const { no_headers(); }
std::optional<std::size_t> chip_metrics::config_passes(const std::vector<std::string>&) const { no_headers(); }
std::vector<counter_group> chip_metrics::plan(const std::vector<std::string>&) const { no_headers(); }
std::vector<std::string> chip_metrics::base_metrics(const std::string&) const { no_headers(); }

#endif

}  // namespace memscope::counters
