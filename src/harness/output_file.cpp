#include "harness/output_file.hpp"

#include "harness/axis.hpp"
#include "harness/gzip.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
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
    if (!fs::is_regular_file(st)) return;  // a device or a pipe is written in place
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

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
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
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw io_error("cannot write '" + path + "': " + why());
    const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size() && std::fflush(f) == 0;
    const int err = errno;
    const bool closed = std::fclose(f) == 0;
    if (!ok || !closed) throw io_error("cannot write '" + path + "': " + std::strerror(ok ? errno : err));
    return;
  }
  // A symbolic link is kept: the file it names is replaced (the temporary file beside that
  // file, so the rename stays on its file system), as an editor saving through a link would.
  fs::path target(path);
  for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    // read_symlink, not canonical: the file a link names need not exist yet.
    const fs::path next = fs::read_symlink(target, ec);
    if (ec || hops == 40) throw io_error("cannot write '" + path + "': cannot follow its symbolic link");
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device rd;
  const fs::path tmp = dir / ("." + target.filename().string() + ".memscope-" + std::to_string(rd()) + ".tmp");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw io_error("cannot write '" + path + "': " + why());
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
  if (ok && ::rename(tmp.c_str(), target.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    throw io_error("cannot write '" + path + "': " + std::strerror(err ? err : EIO));
  }
}

}  // namespace memscope
