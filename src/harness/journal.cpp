#include "harness/journal.hpp"
#include "harness/input_file.hpp"

#include "harness/output_file.hpp"
#include "memscope/version.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

namespace memscope {

using nlohmann::json;

std::size_t journal_contents::rows() const {
  std::size_t n = 0;
  for (const auto& s : segments) n += s.rows.size();
  return n;
}

namespace {

json args_to_json(const journal_args& a) {
  json j = {{"patterns", a.patterns},
            {"axes", a.axes},
            {"quick", a.quick},
            {"verify", a.verify},
            {"device", a.device},
            {"timing", to_json(a.timing)},
            {"outputs",
             {{"json", a.json_path}, {"csv", a.csv_path}, {"markdown", a.markdown_path}, {"report", a.report_path}}}};
  put_cold(j, a.cold);
  if (a.map) j["map"] = true;
  return j;
}

template <class T>
T get(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) throw journal_error(where + ": lacks \"" + key + "\"");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw journal_error(where + ": \"" + key + "\" has the wrong type");
  }
}

journal_args args_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw journal_error(where + ": \"args\" must be an object");
  journal_args a;
  a.patterns = get<std::vector<std::string>>(j, "patterns", where);
  a.axes = get<std::vector<std::string>>(j, "axes", where);
  a.quick = get<bool>(j, "quick", where);
  a.cold = get<bool>(j, "cold", where) ? cold_mode::clean : cold_mode::off;
  if (j.contains("cold_flush")) {
    const auto m = flush_from(get<std::string>(j, "cold_flush", where));
    if (a.cold == cold_mode::off || !m)
      throw journal_error(where + ": \"cold_flush\" must be \"clean\" or \"dirty\", and only in a cold run");
    a.cold = *m;
  }
  a.verify = get<bool>(j, "verify", where);
  a.map = j.contains("map") && get<bool>(j, "map", where);
  a.device = get<int>(j, "device", where);
  if (!j.contains("timing")) throw journal_error(where + ": lacks \"timing\"");
  try {
    a.timing = timing_from_json(j.at("timing"), where, "args.timing");
  } catch (const results_error& e) {
    throw journal_error(e.what());
  }
  const json out = get<json>(j, "outputs", where);
  a.json_path = get<std::string>(out, "json", where + " outputs");
  a.csv_path = get<std::string>(out, "csv", where + " outputs");
  a.markdown_path = get<std::string>(out, "markdown", where + " outputs");
  a.report_path = get<std::string>(out, "report", where + " outputs");
  return a;
}

}  // namespace

journal_contents read_journal(const std::string& path) {
  std::string text;
  try {
    text = read_input(path, max_results_bytes, "journal");
  } catch (const input_error& e) {
    throw journal_error(e.what());
  }
  if (text.empty()) throw journal_error("journal '" + path + "' is empty: not a memscope journal");
  journal_contents jc;
  std::size_t pos = 0, line_no = 0;
  std::set<std::string> seen;
  while (pos < text.size()) {
    ++line_no;
    const std::size_t nl = text.find('\n', pos);
    const std::string where = "journal '" + path + "' line " + std::to_string(line_no);
    if (nl == std::string::npos)
      throw journal_error(where +
                          " is cut off (no end of line): the run stopped while writing it; delete that line to "
                          "resume from the rows before it");
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception&) {
      throw journal_error(where + " is not valid JSON" + (line_no == 1 ? ": not a memscope journal" : ""));
    }
    if (line_no == 1) {
      if (!j.is_object() || j.value("format", "") != journal_format_name)
        throw journal_error("'" + path + "' is not a memscope journal (its first line lacks \"format\": \"" +
                            journal_format_name + "\")");
      if (j.value("version", 0) != journal_format_version)
        throw journal_error(where + ": journal version " + j.value("version", json()).dump() + " is not " +
                            std::to_string(journal_format_version));
      jc.tool_version = get<std::string>(get<json>(j, "tool", where), "version", where);
      jc.commit = get<std::string>(get<json>(j, "tool", where), "commit", where);
      jc.command = get<std::string>(j, "command", where);
      jc.args = args_from_json(get<json>(j, "args", where), where);
      try {
        jc.device = device_info_from_json(get<json>(j, "device", where));
      } catch (const results_error& e) {
        throw journal_error(where + ": " + e.what());
      }
      continue;
    }
    if (!j.is_object() || j.size() != 1)
      throw journal_error(where + " must be one {\"segment\": ...} or {\"row\": ...}");
    if (j.contains("segment")) {
      const json& s = j.at("segment");
      journal_segment seg;
      seg.created_utc = get<std::string>(s, "created_utc", where);
      seg.command = get<std::string>(s, "command", where);
      seg.tool_version = get<std::string>(s, "tool_version", where);
      seg.commit = get<std::string>(s, "commit", where);
      seg.telemetry_note = get<std::string>(s, "telemetry_note", where);
      seg.copy_gbps = get<double>(s, "copy_gbps", where);
      seg.copy_bytes = get<std::uint64_t>(s, "copy_bytes", where);
      if (!(seg.copy_gbps >= 0)) throw journal_error(where + ": copy_gbps must be at least 0");
      if (s.contains("device")) {
        try {
          seg.device = device_info_from_json(get<json>(s, "device", where));
        } catch (const results_error& e) {
          throw journal_error(where + ": " + e.what());
        }
        if (!same_model(*seg.device, jc.device))
          throw journal_error(where + ": a process measured on " + seg.device->name + ", the run on " + jc.device.name);
      }
      if (s.contains("host")) seg.host = get<std::string>(s, "host", where);
      jc.segments.push_back(std::move(seg));
    } else if (j.contains("row")) {
      if (jc.segments.empty()) throw journal_error(where + ": a row before any segment line");
      case_result r;
      try {
        r = row_from_json(j.at("row"), "journal '" + path + "'", "line " + std::to_string(line_no),
                          results_format_version);
      } catch (const results_error& e) {
        throw journal_error(e.what());
      }
      if (!seen.insert(row_key(r)).second) throw journal_error(where + " repeats " + r.id() + " " + r.axes_label);
      jc.segments.back().rows.push_back(std::move(r));
    } else {
      throw journal_error(where + " must be one {\"segment\": ...} or {\"row\": ...}");
    }
  }
  return jc;
}

journal_writer::journal_writer(const std::string& path, const journal_args& args, const device_info& dev,
                               const std::string& command)
    : path_(path) {
  f_ = std::fopen(path.c_str(), "w");
  if (!f_) throw io_error("cannot write journal '" + path + "': " + std::strerror(errno));
  line(json{{"format", journal_format_name},
            {"version", journal_format_version},
            {"tool", {{"version", tool_version}, {"commit", git_commit}}},
            {"command", command},
            {"args", args_to_json(args)},
            {"device", to_json(dev)}}
           .dump());
}

journal_writer::journal_writer(const std::string& path) : path_(path) {
  f_ = std::fopen(path.c_str(), "a");
  if (!f_) throw io_error("cannot append to journal '" + path + "': " + std::strerror(errno));
}

journal_writer::~journal_writer() {
  if (f_) std::fclose(f_);
}

void journal_writer::line(const std::string& text) {
  if (std::fputs(text.c_str(), f_) < 0 || std::fputc('\n', f_) == EOF || std::fflush(f_) != 0)
    throw io_error("cannot write journal '" + path_ + "': " + std::strerror(errno));
}

void journal_writer::segment(const results_doc& h) {
  line(json{{"segment",
             {{"created_utc", h.created_utc},
              {"command", h.command},
              {"tool_version", h.tool_version},
              {"commit", h.commit},
              {"telemetry_note", h.telemetry_note},
              {"copy_gbps", h.copy_ceiling_gbps},
              {"copy_bytes", h.copy_ceiling_bytes},
              {"device", to_json(h.device)},
              {"host", h.host}}}}
           .dump());
}

void journal_writer::row(const case_result& r) { line(json{{"row", row_to_json(r)}}.dump()); }

results_doc journal_document(const journal_contents& j, const results_doc& header) {
  std::vector<results_doc> docs;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < j.segments.size(); ++i) {
    const auto& s = j.segments[i];
    results_doc d = header;
    d.created_utc = s.created_utc;
    d.command = s.command;
    d.tool_version = s.tool_version;
    d.commit = s.commit;
    d.telemetry_note = s.telemetry_note;
    d.copy_ceiling_gbps = s.copy_gbps;
    d.copy_ceiling_bytes = s.copy_bytes;
    // Each process's own board: older journals name only the first process's, in the header.
    if (s.device) d.device = *s.device;
    else if (i == 0) d.device = j.device;
    if (!s.host.empty()) d.host = s.host;
    d.results = s.rows;
    docs.push_back(std::move(d));
    names.push_back(i == 0 ? "first process" : "resumed process " + std::to_string(i));
  }
  if (docs.empty()) return header;
  merge_options opt;
  opt.names = names;
  return merge(docs, opt);
}

}  // namespace memscope
