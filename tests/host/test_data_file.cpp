// Data sets read by the suites (src/harness/data_file): plain or gzip text under the data
// directory; an absent one is a skip with the way to make it, a bad one an error.
#include "harness/data_file.hpp"

#include "harness/gzip.hpp"
#include "harness/input_file.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

struct data_dir_here {
  std::string dir = ::testing::TempDir() + "memscope_data_test";
  data_dir_here() {
    std::filesystem::create_directories(dir + "/kmer");
    ::setenv(memscope::data_dir_variable, dir.c_str(), 1);
  }
  ~data_dir_here() {
    ::unsetenv(memscope::data_dir_variable);
    std::filesystem::remove_all(dir);
  }
};

}  // namespace

TEST(DataFile, ReadsPlainAndGzipText) {
  data_dir_here d;
  std::ofstream(d.dir + "/kmer/plain.fa", std::ios::binary) << ">r\nACGT\n";
  std::ofstream(d.dir + "/kmer/packed.fa.gz", std::ios::binary) << memscope::gzip(">r\nGGCC\n");
  EXPECT_EQ(memscope::data_dir(), d.dir);
  EXPECT_EQ(memscope::read_data_file("kmer/plain.fa").value_or("?"), ">r\nACGT\n");
  EXPECT_EQ(memscope::read_data_file("kmer/packed.fa.gz").value_or("?"), ">r\nGGCC\n");
}

TEST(DataFile, AnAbsentSetIsASkipThatSaysHowToMakeIt) {
  data_dir_here d;
  EXPECT_FALSE(memscope::read_data_file("kmer/none.fa.gz").has_value());
  const std::string why = memscope::missing_data_reason("kmer/none.fa.gz");
  EXPECT_NE(why.find(d.dir + "/kmer/none.fa.gz"), std::string::npos) << why;
  EXPECT_NE(why.find("scripts/data.sh"), std::string::npos) << why;
  EXPECT_NE(why.find("MEMSCOPE_DATA"), std::string::npos) << why;
}

TEST(DataFile, ACorruptOrOddSetIsAnError) {
  data_dir_here d;
  std::string packed = memscope::gzip(std::string(1000, 'A'));
  packed.resize(packed.size() / 2);  // cut short
  std::ofstream(d.dir + "/kmer/cut.fa.gz", std::ios::binary) << packed;
  EXPECT_THROW(memscope::read_data_file("kmer/cut.fa.gz"), memscope::gzip_error);
  EXPECT_THROW(memscope::read_data_file("kmer"), memscope::input_error);  // a directory
}

TEST(DataFile, TheDefaultDirectoryIsDataHere) {
  ::unsetenv(memscope::data_dir_variable);
  EXPECT_EQ(memscope::data_dir(), "data");
}
