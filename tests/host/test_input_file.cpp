// Inputs read whole, with bounds (src/harness/input_file): regular files only, up to a cap.
#include "harness/input_file.hpp"

#include "harness/gzip.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

std::string message_of(const std::string& path, std::size_t cap) {
  try {
    memscope::read_input(path, cap, "results file");
  } catch (const memscope::input_error& e) {
    return e.what();
  }
  return "";
}

// merge sums what its inputs hold before reading any: a gzip file's recorded inflated size.
TEST(InputFile, TextBytesAreThePlainSizeOrTheInflatedOne) {
  const std::string plain = ::testing::TempDir() + "text.json", packed = ::testing::TempDir() + "text.json.gz";
  const std::string text(10000, 'r');
  std::ofstream(plain, std::ios::binary) << text;
  std::ofstream(packed, std::ios::binary) << memscope::gzip(text);
  EXPECT_EQ(memscope::input_text_bytes(plain), 10000u);
  EXPECT_EQ(memscope::input_text_bytes(packed), 10000u);
  EXPECT_EQ(memscope::input_text_bytes(::testing::TempDir() + "no-such-file.json"), 0u);
}

TEST(InputFile, ReadsARegularFileWhole) {
  const std::string path = ::testing::TempDir() + "input.txt";
  std::ofstream(path, std::ios::binary) << std::string("abc\0def", 7);
  EXPECT_EQ(memscope::read_input(path, 7, "results file"), std::string("abc\0def", 7));
  const std::string empty = ::testing::TempDir() + "empty.txt";
  std::ofstream{empty};
  EXPECT_EQ(memscope::read_input(empty, 0, "results file"), "");
}

TEST(InputFile, RefusesWhatIsNotARegularFileOrIsTooLarge) {
  const std::string path = ::testing::TempDir() + "large.txt";
  std::ofstream(path) << std::string(100, 'x');
  EXPECT_NE(message_of(path, 99).find("holds 100 bytes; memscope reads at most 99"), std::string::npos);
  EXPECT_NE(message_of(::testing::TempDir(), 1 << 20).find("is a directory, not a results file"), std::string::npos);
  EXPECT_NE(message_of("/dev/zero", 1 << 20).find("is a device"), std::string::npos);
  EXPECT_NE(message_of("/nonexistent/x.json", 1 << 20).find("cannot open results file '/nonexistent/x.json'"),
            std::string::npos);
  // A FIFO with no writer: refused at once, not waited on.
  const std::string fifo = ::testing::TempDir() + "input.fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message_of(fifo, 1 << 20).find("is a pipe (FIFO)"), std::string::npos);
  std::remove(fifo.c_str());
}

}  // namespace
