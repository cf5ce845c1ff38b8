#pragma once
// The results document: what `memscope run` writes with --json and what report/compare read.
// Field names are stable; docs/results-format.md describes them. Pure C++.

#include "harness/axis.hpp"
#include "harness/cold_mode.hpp"
#include "harness/stats.hpp"
#include "harness/timing_policy.hpp"
#include "memscope/core/device_info.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memscope {

/// 2: rows carry `labels` (typed strings such as a plan's name) where version 1 stored enum
/// ordinals as metrics; version 1 files are still read and brought up to date by their suites.
/// 3: merged documents (`sources`, row `source`). 4: the stopping rule and telemetry: rows carry
/// `samples.times_s`, `converged`, `stop`, `clock` and `telemetry`; the header `timing`.
/// 5: fleet documents (several boards' rows in one document, `fleet`); a merged document's
/// sources say which board measured them (`host`, `rank`, `device`). 6: a cold run says how its
/// flush left L2 (`cold_flush`: "clean" or "dirty"; absent in older files: clean).
inline constexpr int results_format_version = 6;
inline constexpr int results_oldest_format_version = 1;
inline constexpr const char* results_format_name = "memscope-results";

enum class case_status { ok, fail, skipped, error };
enum class verification_status { not_run, passed, failed };

const char* to_string(case_status s);
const char* to_string(verification_status s);

struct case_result {
  std::string suite, name, variant;
  std::vector<std::pair<std::string, axis_value>> axes;
  std::string axes_label;  // human form, "bytes=2^30 type=f32x4"
  case_status status = case_status::ok;
  verification_status verification = verification_status::not_run;
  std::string verification_detail;
  std::string message;  // skip reason or error text
  bool timed = false;
  sample_stats stats;         // seconds per launch
  std::vector<double> times;  // every sample's time per launch, in the order taken (format 4 on)
  /// This point's median in each of several processes of one board (merge --replicates), in
  /// seconds; empty for a row of one run. The row is the replicate whose median is their median.
  std::vector<double> replicates;
  bool converged = false;           // met the stopping rule (format 4 on; older rows read as converged)
  std::string stop;                 // why sampling stopped: see timing_policy.hpp ("" before format 4)
  int batch = 1;                    // launches per timed sample
  cold_mode cold = cold_mode::off;  // what L2 held at every sample's start
  std::uint64_t bytes_read = 0, bytes_written = 0, elements = 0;
  double gbps = 0;       // (bytes_read + bytes_written) / median, in 1e9 B/s
  double gbps_best = 0;  // the same over the fastest sample
  double elements_per_s = 0;
  double fraction_of_copy = 0;                // gbps / same-run device-to-device copy gbps
  std::map<std::string, double> metrics;      // suite-specific figures (ratios, cycles, ...)
  std::map<std::string, std::string> labels;  // suite-specific names ("plan": "split cluster of 2")
  /// The SM clock while the point was timed (%globaltimer against clock64 around each sample);
  /// 0 when not measured. `clock_throttled`: a sample ran below the throttle threshold.
  double clock_mhz = 0, clock_min_mhz = 0;
  bool clock_throttled = false;
  int throttle_discards = 0;  // throttled samples dropped and taken again (--resample-throttled)
  /// The NVIDIA management library's view at the end of the point, where it is present.
  bool has_telemetry = false;
  double power_w = 0, temperature_c = 0;
  std::vector<std::string> clock_limits;  // NVML's clock event (throttle) reasons, by name
  /// Which of the document's sources measured the row (merged documents; 0 otherwise).
  std::size_t source = 0;

  std::string id() const { return suite + "/" + name; }
  /// Timed under a recorded stopping rule that it did not meet (older rows recorded none).
  bool unconverged() const { return timed && !stop.empty() && !converged; }
  /// This point's median in each run that measured it: the replicates, or the row's own median.
  std::vector<double> run_medians() const {
    return replicates.empty() ? std::vector<double>{stats.median} : replicates;
  }
  /// The GPU time of the timed samples: each sample's time per launch times its launches.
  double sampled_seconds() const;
  /// The value of an integer axis, if the row has one of that name.
  std::optional<std::int64_t> int_axis(const std::string& axis_name) const;
  /// The value of a string axis, or "" when the row has none of that name.
  std::string string_axis(const std::string& axis_name) const;
  /// metrics[name], or NaN when the row lacks it.
  double metric(const std::string& metric_name) const;
  /// labels[name], or "" when the row lacks it.
  std::string label(const std::string& label_name) const;
};

/// One run that a merged document's rows come from: what its own header said.
struct results_source {
  std::string file, tool_version, commit, created_utc, command;
  double copy_ceiling_gbps = 0;
  std::size_t rows = 0;  // rows of the merged document that it measured
  /// Why the run stopped early (its document's `incomplete`); empty for a run that finished.
  std::string incomplete;
  /// The board that measured the run (format 5 on; older sources are the header's board).
  bool has_board = false;
  std::string host;
  int rank = -1;
  device_info device;
};

struct results_doc {
  int format_version = results_format_version;
  std::string tool_version, commit, created_utc, command, mode;  // mode: "run" or "verify"
  bool quick = false;
  cold_mode cold = cold_mode::off;
  device_info device;
  double copy_ceiling_gbps = 0;
  std::uint64_t copy_ceiling_bytes = 0;
  /// Empty for one run. A merged document lists its runs here; the header above is the first
  /// run's (device, options, ceiling) and every row names its run.
  std::vector<results_source> sources;
  /// The stopping rule the run used (format 4 on; absent in older files).
  std::optional<timing_policy> timing;
  /// What the run could say about the GPU's management library ("" when not recorded).
  std::string telemetry_note;
  /// The machine the run measured on (its host name; "" in files written before it was recorded).
  std::string host;
  /// The launcher's rank of the process that wrote it (srun, mpirun); -1 outside a launcher.
  int rank = -1;
  /// Non-empty when the run stopped before its last point: why (the case that lost the CUDA
  /// context). Such a document holds every row measured until then.
  std::string incomplete;
  /// Several boards' rows, kept apart (format 5 on): every source names its board, and a row
  /// is unique per board rather than per document. split_boards() gives one document per board.
  bool fleet = false;
  std::vector<case_result> results;
};

/// A results file that is missing, malformed, of another version or from another tool.
class results_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json to_json(const device_info& d);
device_info device_info_from_json(const nlohmann::json& j);
nlohmann::json to_json(const results_doc& doc);
/// Validates the whole document against docs/results-format.md (types, ranges, required fields,
/// finite non-negative figures, positive times, unique rows) and throws results_error naming
/// `where` (the file) and the JSON path of the first problem.
results_doc results_from_json(const nlohmann::json& j, const std::string& where = "results");

/// What identifies a row within a document: suite, case and every axis value.
std::string row_key(const case_result& r);

struct merge_options {
  /// A row (suite, case, axes) in several documents: without replace that is an error; with it,
  /// the later document's row takes the earlier one's place. The same for a case measured with
  /// other axes in a later document (the suite changed): with replace the later document's rows
  /// of it are the only ones kept.
  bool replace = false;
  /// What to call each document in sources and messages (file names); "input N" when absent.
  std::vector<std::string> names;
  /// The documents are runs of one build on one board, each in its own process: a row in
  /// several of them is one point measured again, and becomes one row that lists each run's
  /// median (case_result::replicates), so that compare can hold a difference against the
  /// spread a new process brings. Not with `replace`.
  bool replicates = false;
};

/// Several runs on one GPU model as one document: the first one's header, every row tagged
/// with its run, every run listed in `sources` with the board that measured it.
/// - Runs of several boards that measured the same points (every GPU of a node, every rank of a
///   job) stay apart as a fleet document (`fleet`; see split_boards), unless `replace` is given.
/// - Runs that measured different points join as one profile of the model, as do all runs
///   under `replace`, where a later row takes an earlier one's place.
/// Throws results_error when the models differ (name, compute capability, SMs, memory), when
/// the options differ (quick, cold, verify), when the memscope versions differ, when a row
/// repeats on one board without `replace`, when one rank of a job appears on two boards, or
/// when two ranks measured one GPU. Same-run ratios (baselines) are not recomputed here: see
/// apply_baselines.
results_doc merge(const std::vector<results_doc>& docs, const merge_options& opt = {});

/// Why `b` (read from `b_name`) cannot join `a` (from `a_name`): another GPU model, or another
/// mode, --quick or L2 regime; "" when it can. `joined` says how ("merged into one document").
/// merge and report apply this one rule.
std::string joining_problem(const results_doc& a, const std::string& a_name, const results_doc& b,
                            const std::string& b_name, const std::string& joined);

/// Which board measured a run: "host/GPU-uuid".
std::string board_key(const std::string& host, const device_info& device);
/// The board of a row's run in `doc` (the header's board where its source names none).
std::string board_of(const results_doc& doc, const case_result& row);
/// The device-to-device copy ceiling of the run that measured `row` (a merged document's header
/// carries its first run's; a row's throughput is judged against the ceiling of its own run).
double copy_ceiling_of(const results_doc& doc, const case_result& row);
/// What a row's GB/s is judged against. A row whose bytes crossed a link to host memory or to a
/// peer GPU names it in its `link` label and gives the link's theoretical bandwidth, for the
/// directions it moved, in its `link_gbps` metric: it is judged against that link, or against
/// nothing where the figure is unknown (a device-memory copy says nothing of a PCIe transfer).
/// Every other row is judged against its run's device-to-device copy (`fraction_of_copy`).
struct row_ceiling {
  std::string name;  // "link" or "copy"
  double fraction = 0;
};
inline constexpr const char* link_label = "link";
inline constexpr const char* link_gbps_metric = "link_gbps";
/// Empty for a row that moved no bytes, was not timed, or crossed a link of unknown bandwidth.
std::optional<row_ceiling> ceiling_of(const case_result& row);
/// "0.931x link", "0.972x copy", or "-": the table cell every printer shows.
std::string ceiling_cell(const case_result& row);

/// One document per board, in the order the boards first appear; a document that is not a
/// fleet comes back alone. Each board's document has that board's header and runs.
std::vector<results_doc> split_boards(const results_doc& doc);
/// Writes `cold` and, for a cold run, `cold_flush` ("clean" or "dirty") into a JSON object: a
/// results file's options and rows, and a journal's arguments, say the regime alike.
void put_cold(nlohmann::json& obj, cold_mode m);
/// How many boards a document's runs name (a run that names none is the header's board): more
/// than one where runs of one model were merged with --replace, or a run was resumed on another
/// board of its model. Such a document is still one board's to split_boards and the fleet table.
std::size_t boards_named(const results_doc& doc);

/// One row as the results file and the journal write it, and back (validated; `where` names
/// the file, `path` the row's place in it).
nlohmann::json row_to_json(const case_result& r);
case_result row_from_json(const nlohmann::json& j, const std::string& where, const std::string& path, int version);
nlohmann::json to_json(const timing_policy& p);
timing_policy timing_from_json(const nlohmann::json& j, const std::string& where, const std::string& path);

/// The document's JSON text for `path`; throws io_error where it would be larger than
/// memscope reads back (a merge of many large runs).
std::string results_text(const results_doc& doc, const std::string& path);
/// Written gzip-compressed where `path` ends in .gz.
void save_results(const results_doc& doc, const std::string& path);
/// Reads a plain or a gzip-compressed document (told apart by its first bytes, not its name).
results_doc load_results(const std::string& path);

}  // namespace memscope
