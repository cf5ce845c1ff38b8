#include "harness/output_file.hpp"

#include "harness/axis.hpp"
#include "harness/gzip.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace memscope {
namespace fs = std::filesystem;

namespace {

std::string why() { return std::strerror(errno); }

/// Where a path leads, as well as can be said before it exists.
fs::path resolved(const std::string& p) {
  std::error_code ec;
  auto r = fs::weakly_canonical(fs::path(p), ec);
  return ec ? fs::absolute(fs::path(p)) : r;
}

void check_writable(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  const auto st = fs::status(p, ec);
  if (fs::is_directory(st)) throw io_error("cannot write '" + path + "': it is a directory");
  if (fs::exists(st)) {
    if (::access(path.c_str(), W_OK) != 0) throw io_error("cannot write '" + path + "': " + why());
    if (!fs::is_regular_file(st)) {
      // A device is written in place at the end: probe it now with one byte, so that one that
      // takes nothing (/dev/full) fails before the work, not after. Terminals and pipes are
      // not probed (the byte would show, or reach the reader).
      if (fs::is_character_file(st)) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 && !::isatty(fd) && ::write(fd, "\n", 1) < 0 && errno != EAGAIN) {
          const int err = errno;
          ::close(fd);
          throw io_error("cannot write '" + path + "': " + std::strerror(err));
        }
        if (fd >= 0) ::close(fd);
      }
      return;
    }
  }
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) throw io_error("cannot write '" + path + "': no directory '" + dir.string() + "'");
  // Probe by creating the kind of file write_output will create: permission bits alone say
  // nothing to root, and some file systems (/proc) refuse new files whatever they say.
  std::random_device rd;
  const fs::path probe = dir / ("." + p.filename().string() + ".memscope-probe-" + std::to_string(rd()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw io_error("cannot write '" + path + "': " + why());
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace

void create_parent_directories(const std::string& path) {
  if (path.empty()) return;
  const fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) return;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  fs::create_directories(dir, ec);
  if (ec)
    throw io_error("cannot write '" + path + "': cannot create directory '" + dir.string() + "': " + ec.message());
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return resolved(a) == resolved(b);
}

void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].empty()) continue;
    for (const auto& in : inputs)
      if (!in.empty() && same_file(outputs[i], in))
        throw usage_error("'" + outputs[i] + "' is both an input and an output: it would be overwritten");
    for (std::size_t k = 0; k < i; ++k)
      if (!outputs[k].empty() && same_file(outputs[i], outputs[k]))
        throw usage_error("'" + outputs[i] + "' is named as two outputs: one would overwrite the other");
    check_writable(outputs[i]);
  }
}

namespace {

// Temporary files being written, removed by a fatal signal's handler: no temporary file
// outlives the process. Fixed storage, since the handler may only call async-signal-safe code.
constexpr int max_temporaries = 64;
char temporary_paths[max_temporaries][4096];
volatile std::sig_atomic_t temporary_used[max_temporaries];
const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP};
bool handler_installed = false;

void remove_temporaries_and_die(int sig) {
  for (int i = 0; i < max_temporaries; ++i)
    if (temporary_used[i]) ::unlink(temporary_paths[i]);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

/// Where a signal would end the process (its default action), remove the temporaries first;
/// where the process handles it (a run stopping cleanly), its own unwinding removes them.
void install_handler() {
  if (handler_installed) return;
  handler_installed = true;
  for (int sig : fatal_signals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
      struct sigaction act {};
      act.sa_handler = remove_temporaries_and_die;
      sigemptyset(&act.sa_mask);
      ::sigaction(sig, &act, nullptr);
    }
  }
}

int remember_temporary(const std::string& path) {
  install_handler();
  for (int i = 0; i < max_temporaries; ++i)
    if (!temporary_used[i] && path.size() < sizeof temporary_paths[i]) {
      std::memcpy(temporary_paths[i], path.c_str(), path.size() + 1);
      temporary_used[i] = 1;
      return i;
    }
  return -1;  // past the slots: still removed by the batch's destructor
}

void forget_temporary(int slot) {
  if (slot >= 0) temporary_used[slot] = 0;
}

/// Devices and pipes (/dev/stdout, a FIFO) are written in place, every write checked.
void write_in_place(const std::string& path, const std::string& data) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw io_error("cannot write '" + path + "': " + why());
  const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size() && std::fflush(f) == 0;
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) throw io_error("cannot write '" + path + "': " + std::strerror(ok ? errno : err));
}

/// The regular file an output replaces: a symbolic link is kept and the file it names is
/// replaced, as an editor saving through a link would.
fs::path link_target(const std::string& path) {
  std::error_code ec;
  fs::path target(path);
  for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    // read_symlink, not canonical: the file a link names need not exist yet.
    const fs::path next = fs::read_symlink(target, ec);
    if (ec || hops == 40) throw io_error("cannot write '" + path + "': cannot follow its symbolic link");
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  return target;
}

/// `data` into a new temporary file beside `target` (same file system, so the rename is
/// atomic), flushed to disk; returns its path. Removes it and throws io_error on failure.
std::string write_temporary(const std::string& path, const fs::path& target, const std::string& data, int& slot) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device rd;
  const fs::path tmp = dir / ("." + target.filename().string() + ".memscope-" + std::to_string(rd()) + ".tmp");
  slot = remember_temporary(tmp.string());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    forget_temporary(slot);
    throw io_error("cannot write '" + path + "': " + std::strerror(err));
  }
  std::size_t done = 0;
  bool ok = true;
  while (ok && done < data.size()) {
    const auto n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    else done += static_cast<std::size_t>(n);
  }
  int err = ok ? 0 : errno;
  if (ok && ::fsync(fd) != 0 && errno != EINVAL) {
    ok = false;
    err = errno;
  }
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    forget_temporary(slot);
    throw io_error("cannot write '" + path + "': " + std::strerror(err ? err : EIO));
  }
  return tmp.string();
}

}  // namespace

output_batch::~output_batch() {
  for (const auto& o : staged_)
    if (!o.temporary.empty()) {
      ::unlink(o.temporary.c_str());
      forget_temporary(o.slot);
    }
}

void output_batch::add(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) return;
  std::ostringstream text;
  write(text);  // render first: a failure here touches no file
  std::string data = text.str();
  if (names_gzip(path)) {
    try {
      data = gzip(data);
    } catch (const gzip_error& e) {
      throw io_error("cannot write '" + path + "': " + e.what());
    }
  }
  staged o;
  o.path = path;
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    o.in_place = std::move(data);  // written at commit, before any file is replaced
  } else {
    o.target = link_target(path).string();
    o.temporary = write_temporary(path, o.target, data, o.slot);
  }
  staged_.push_back(std::move(o));
}

void output_batch::commit() {
  // Devices and pipes first: one that fails (/dev/full) leaves every file as it was.
  for (auto& o : staged_)
    if (o.temporary.empty()) write_in_place(o.path, o.in_place);
  for (auto& o : staged_) {
    if (o.temporary.empty()) continue;
    if (::rename(o.temporary.c_str(), o.target.c_str()) != 0) {
      const int err = errno;
      throw io_error("cannot write '" + o.path + "': " + std::strerror(err));
    }
    forget_temporary(o.slot);
    o.temporary.clear();
  }
  staged_.clear();
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
  output_batch batch;
  batch.add(path, write);
  batch.commit();
}

}  // namespace memscope
