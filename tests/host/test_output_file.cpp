// Outputs replaced together or not at all, and no temporary file left behind
// (src/harness/output_file).
#include "harness/output_file.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::path(::testing::TempDir()) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(OutputBatch, NothingIsReplacedUntilEveryOutputIsWritten) {
  const auto dir = fresh_dir("batch");
  const std::string keep = (dir / "keep.html").string();
  std::ofstream(keep) << "old";
  {
    memscope::output_batch out;
    out.add(keep, [](std::ostream& o) { o << "new"; });
    out.add("/dev/full", [](std::ostream& o) { o << "more"; });
    EXPECT_THROW(out.commit(), memscope::io_error);
  }
  EXPECT_EQ(slurp(keep), "old");
  EXPECT_EQ(entries(dir), 1) << "the temporary file is removed";

  {
    memscope::output_batch out;
    out.add(keep, [](std::ostream& o) { o << "new"; });
    out.add((dir / "b.txt").string(), [](std::ostream& o) { o << "b"; });
    out.add("", [](std::ostream& o) { o << "ignored"; });
    out.commit();
  }
  EXPECT_EQ(slurp(keep), "new");
  EXPECT_EQ(slurp((dir / "b.txt").string()), "b");
  EXPECT_EQ(entries(dir), 2);

  {  // abandoned: a failure while rendering a later output
    memscope::output_batch out;
    out.add(keep, [](std::ostream& o) { o << "newer"; });
    EXPECT_THROW(out.add((dir / "c.txt").string(), [](std::ostream&) { throw memscope::io_error("render"); }),
                 memscope::io_error);
  }
  EXPECT_EQ(slurp(keep), "new");
  EXPECT_EQ(entries(dir), 2);
}

TEST(OutputBatch, DevicesThatTakeNothingFailTheOutputCheck) {
  EXPECT_THROW(memscope::check_outputs({"/dev/full"}), memscope::io_error);
  EXPECT_NO_THROW(memscope::check_outputs({"/dev/null"}));
}

TEST(OutputBatch, AFatalSignalLeavesNoTemporaryFile) {
  const auto dir = fresh_dir("signal");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    memscope::output_batch out;
    out.add((dir / "big.json").string(), [](std::ostream& o) { o << std::string(1 << 20, 'x'); });
    std::raise(SIGINT);  // as Ctrl-C between the write and the rename
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
  EXPECT_EQ(entries(dir), 0);
}

}  // namespace
