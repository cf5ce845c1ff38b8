#include "harness/progress.hpp"

#include <unistd.h>

#include <cmath>

namespace memscope {
namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

progress_printer::progress_printer(style s, std::size_t total, std::FILE* out)
    : style_(s), total_(total), out_(out), t0_(std::chrono::steady_clock::now()), case_t0_(t0_) {}

progress_printer::style progress_printer::style_for(std::FILE* out, bool quiet) {
  if (quiet) return style::quiet;
  return isatty(fileno(out)) ? style::terminal : style::lines;
}

std::string progress_printer::clock(double s) {
  if (!std::isfinite(s) || s < 0) s = 0;
  const long t = std::lround(s);
  char buf[32];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

void progress_printer::case_line() {
  if (case_.empty() || style_ != style::lines || case_finished_ == 0) return;
  const double elapsed = since(t0_);
  const double left =
      finished_ > 0 ? elapsed / static_cast<double>(finished_) * static_cast<double>(total_ - finished_) : 0;
  std::fprintf(out_, "memscope: %s: %zu point%s in %.1f s; %zu/%zu points, elapsed %s, about %s left\n", case_.c_str(),
               case_finished_, case_finished_ == 1 ? "" : "s", since(case_t0_), finished_, total_,
               clock(elapsed).c_str(), clock(left).c_str());
  std::fflush(out_);
}

void progress_printer::point(const std::string& case_id, const std::string& axes) {
  ++started_;
  if (case_id != case_) {
    case_line();
    case_ = case_id;
    case_finished_ = 0;
    case_t0_ = std::chrono::steady_clock::now();
  }
  if (style_ == style::terminal) {
    std::fprintf(out_, "\r\033[K[%zu/%zu %s] %s %s", started_, total_, clock(since(t0_)).c_str(), case_id.c_str(),
                 axes.c_str());
    std::fflush(out_);
  }
}

void progress_printer::point_finished() {
  ++finished_;
  ++case_finished_;
}

void progress_printer::done() {
  if (closed_) return;
  closed_ = true;
  if (style_ == style::terminal) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }
  case_line();
}

}  // namespace memscope
