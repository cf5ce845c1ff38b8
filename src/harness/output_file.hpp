#pragma once
// Every file memscope writes goes through here: checked before any work starts, written to a
// temporary file beside the target and renamed into place only after a checked flush and
// close, so a failed write never leaves a truncated or emptied file behind. Pure C++.

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace memscope {

/// A file that cannot be read or written (exit code 4).
class io_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Whether two paths name one file (the same inode where both exist, else the same resolved path).
bool same_file(const std::string& a, const std::string& b);

/// Throws io_error for an output that cannot be written (no such directory, no permission, a
/// directory) and usage_error for an output that is also an input or named twice. Empty paths
/// are ignored.
void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs = {});

/// Creates the directories an output path names that do not exist yet (mkdir -p of its
/// parent); throws io_error when that fails.
void create_parent_directories(const std::string& path);

/// A command's outputs, replaced together only when every one was written: each is rendered
/// and written to a temporary file beside its target when added, and commit() renames them all
/// into place (devices and pipes, /dev/stdout or a FIFO, are written in place first, every
/// write checked). A path ending in .gz is written gzip-compressed; a symbolic link is kept and
/// the file it names replaced. What was not committed is removed by the destructor, and by a
/// fatal signal (SIGINT, SIGTERM, SIGHUP) where the process does not handle it itself.
class output_batch {
 public:
  output_batch() = default;
  output_batch(const output_batch&) = delete;
  output_batch& operator=(const output_batch&) = delete;
  ~output_batch();
  /// Renders `write` and stages it for `path` (ignored when empty). Throws io_error.
  void add(const std::string& path, const std::function<void(std::ostream&)>& write);
  /// Throws io_error: no file is replaced when a device or pipe fails.
  void commit();

 private:
  struct staged {
    std::string path, target, temporary, in_place;
    int slot = -1;
  };
  std::vector<staged> staged_;
};

/// One output, written as a batch of one. Throws io_error; the target is untouched on failure.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace memscope
