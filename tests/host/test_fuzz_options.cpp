// Hostile option values through the command line, in process, so that CI's sanitizer pass runs
// them too (Cli.RandomOptionValuesGetAClearAnswer runs them through the binary): every answer is
// an exit code docs/cli.md names, never an exception, a crash or undefined behaviour.
#include "cli/cli.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

int run_cli_quietly(std::vector<std::string> args) {
  args.insert(args.begin(), "memscope");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  auto* cout_was = std::cout.rdbuf(out.rdbuf());
  auto* cerr_was = std::cerr.rdbuf(err.rdbuf());
  const int rc = memscope::run_cli(static_cast<int>(argv.size()), argv.data());
  std::cout.rdbuf(cout_was);
  std::cerr.rdbuf(cerr_was);
  return rc;
}

TEST(FuzzOptions, HostileValuesGetAnExitCodeTheDocsName) {
  const std::string values[] = {
      "0",    "-1",  "1e308", "nan", "inf",    "-inf", "0x10", "1e-320", "99999999999999999999",
      "1.5",  "",    "2^64",  "1G",  "abc",    "3.",   ".5",   "1e6",    "-0",
      "1e-9", "1,2", "2^20",  "64K", "\x1b[2J"};
  const std::vector<std::vector<std::string>> options = {
      {"advise", "--bytes"},  {"advise", "--gpus"},      {"advise", "--written", "--sharing", "grid", "--contention"},
      {"advise", "--access"}, {"advise", "--from-host"}, {"list", "--facts"},
      {"map", "--from"},      {"report", "-o"}};
  int asked = 0;
  for (const auto& opt : options)
    for (const auto& v : values) {
      auto args = opt;
      args.push_back(v);
      if (args.front() == "report") args = {"report", "/nonexistent/" + v, "-o", "/nonexistent/dir/r.html"};
      const int rc = run_cli_quietly(args);
      ++asked;
      EXPECT_TRUE(rc >= 0 && rc <= 4) << args.front() << " " << v << " -> " << rc;
    }
  EXPECT_GT(asked, 150);
}

}  // namespace
