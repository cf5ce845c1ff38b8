// The command line as a user meets it: bad input gets one clear line and a non-zero exit.
#include "cli/cli.hpp"
#include "core/device_query.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct outcome {
  int code;
  std::string out;  // stdout and stderr together
};

// MEMSCOPE_EXE in the environment overrides the build-tree path (binaries copied to a GPU host).
std::string exe() {
  const char* env = std::getenv("MEMSCOPE_EXE");
  return env && *env ? env : MEMSCOPE_EXE;
}

outcome run(const std::string& args) {
  const std::string cmd = exe() + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool has_gpu() {
  try {
    memscope::require_devices();
    return true;
  } catch (const memscope::no_device_error&) {
    return false;
  }
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void expect_one_line_error(const std::string& args, int code, const std::string& needle) {
  const auto r = run(args);
  EXPECT_EQ(r.code, code) << args << "\n" << r.out;
  EXPECT_EQ(lines(r.out), 1) << args << "\n" << r.out;
  EXPECT_NE(r.out.find("memscope: error:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

}  // namespace

TEST(Cli, HelpAndVersionWorkWithoutGpu) {
  const auto h = run("--help");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("run"), std::string::npos);
  const auto v = run("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.out.find("commit"), std::string::npos) << v.out;
}

TEST(Cli, ListWorksWithoutGpu) {
  const auto r = run("list");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("bandwidth/triad"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--axis bytes="), std::string::npos) << r.out;
}

TEST(Cli, BadInputIsOneLineAndUsageExit) {
  using memscope::exit_usage;
  expect_one_line_error("run nosuch", exit_usage, "no suite or case matches 'nosuch'");
  expect_one_line_error("list nosuch/*", exit_usage, "no suite or case matches");
  expect_one_line_error("run bandwidth --axis bytes=abc", exit_usage, "not a valid integer");
  expect_one_line_error("run bandwidth --axis bytes=0", exit_usage, "out of range");
  expect_one_line_error("run bandwidth --axis nosuch=1", exit_usage, "no selected case has an axis");
  expect_one_line_error("run bandwidth --axis type=f64", exit_usage, "has no value 'f64'");
  expect_one_line_error("run bandwidth --axis bytes", exit_usage, "malformed");
  expect_one_line_error("run bandwidth --device -1", exit_usage, "device");
  expect_one_line_error("frobnicate", exit_usage, "frobnicate");
  expect_one_line_error("", exit_usage, "subcommand");
}

TEST(Cli, NoGpuIsAClearError) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU; the no-GPU path cannot be exercised";
  expect_one_line_error("run bandwidth", memscope::exit_no_device, "no usable CUDA GPU");
  expect_one_line_error("info", memscope::exit_no_device, "no usable CUDA GPU");
  expect_one_line_error("verify", memscope::exit_no_device, "no usable CUDA GPU");
}

TEST(Cli, GpuBadInput) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU: device ordinals and memory limits are the device's";
  expect_one_line_error("info --device 999", memscope::exit_no_device, "out of range");
  expect_one_line_error("run bandwidth/copy --axis bytes=2^40", memscope::exit_usage, "needs");
}

TEST(Cli, GpuVerifyEndsWithSummary) {
  if (!has_gpu()) GTEST_SKIP() << "needs a CUDA GPU";
  const auto r = run("verify '*'");  // every suite, on its awkward sizes
  EXPECT_EQ(r.code, 0) << r.out;
  const auto last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  EXPECT_NE(last.find(" passed, 0 failed"), std::string::npos) << r.out;
}
