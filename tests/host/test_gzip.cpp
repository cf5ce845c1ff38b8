// harness/gzip: compressed results files read and written like plain ones, and every broken
// stream refused with a reason rather than read as something else.

#include "harness/gzip.hpp"
#include "harness/input_file.hpp"
#include "harness/output_file.hpp"
#include "harness/results.hpp"
#include "host/test_rows.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>

using namespace memscope;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

std::string error_of(std::string_view bytes, std::size_t max_bytes = 1 << 20) {
  try {
    gunzip(bytes, max_bytes);
  } catch (const gzip_error& e) {
    return e.what();
  }
  return "";
}

/// Text that compresses well but not trivially: JSON-like lines with varying numbers.
std::string sample_text(std::size_t lines) {
  std::mt19937 rng(7);
  std::string t;
  for (std::size_t i = 0; i < lines; ++i)
    t += "{\"case\": \"row" + std::to_string(i) + "\", \"median_s\": " + std::to_string(rng()) + "}\n";
  return t;
}

}  // namespace

TEST(Gzip, RoundTripsEmptyTinyAndLargeTexts) {
  for (const std::string& text : {std::string(), std::string("x"), std::string(1, '\0'), sample_text(50000)}) {
    const auto packed = gzip(text);
    EXPECT_TRUE(is_gzip(packed));
    EXPECT_EQ(gunzip(packed, text.size()), text);
  }
  EXPECT_LT(gzip(sample_text(50000)).size(), sample_text(50000).size() / 3);
  EXPECT_EQ(gzip("same text"), gzip("same text"));  // no time stamp in the header
}

TEST(Gzip, MagicBytesAndNamesAreToldApart) {
  EXPECT_FALSE(is_gzip(""));
  EXPECT_FALSE(is_gzip("\x1f"));
  EXPECT_FALSE(is_gzip("{\"results\": []}"));
  EXPECT_TRUE(is_gzip("\x1f\x8b"));
  EXPECT_TRUE(names_gzip("run.json.gz"));
  EXPECT_TRUE(names_gzip("RUN.JSON.GZ"));
  EXPECT_FALSE(names_gzip("run.json"));
  EXPECT_FALSE(names_gzip("run.gzip"));
  EXPECT_FALSE(names_gzip("gz"));
  EXPECT_FALSE(names_gzip("run.xgz"));
}

TEST(Gzip, BrokenStreamsAreRefusedWithTheReason) {
  const std::string text = sample_text(2000);
  const std::string packed = gzip(text);
  EXPECT_NE(error_of(packed.substr(0, packed.size() / 2)).find("truncated"), std::string::npos);
  EXPECT_NE(error_of(packed.substr(0, packed.size() - 1)).find("truncated"), std::string::npos);
  EXPECT_NE(error_of("\x1f\x8b").find("truncated"), std::string::npos);
  EXPECT_NE(error_of(packed + "more").find("4 bytes follow the end"), std::string::npos);
  EXPECT_NE(error_of(packed + "\x1f").find("1 bytes follow the end"), std::string::npos);
  EXPECT_NE(error_of(packed + packed.substr(0, 20)).find("truncated"), std::string::npos);
  std::string bad_crc = packed;
  bad_crc[bad_crc.size() - 6] ^= 0x5a;  // the trailer's CRC-32
  EXPECT_NE(error_of(bad_crc).find("corrupt"), std::string::npos) << error_of(bad_crc);
  std::string bad_method = packed;
  bad_method[2] = 7;  // compression method: only 8 (deflate) exists
  EXPECT_NE(error_of(bad_method).find("corrupt"), std::string::npos) << error_of(bad_method);
}

// Several members read as their texts one after the other, as `gzip -d` and `gzip -t` take them
// (`cat a.gz b.gz`, pigz, bgzip); the limit counts all of them.
TEST(Gzip, MembersReadOneAfterTheOther) {
  const std::string a = sample_text(3000), b = sample_text(5000) + "tail";
  EXPECT_EQ(gunzip(gzip(a) + gzip(b), 1 << 20), a + b);
  EXPECT_EQ(gunzip(gzip(a) + gzip("") + gzip(b), 1 << 20), a + b);
  EXPECT_THROW(gunzip(gzip(a) + gzip(b), a.size() + 10), gzip_error);
}

TEST(Gzip, ABombStopsAtTheLimitInsteadOfFillingMemory) {
  const std::string packed = gzip(std::string(std::size_t{64} << 20, 'a'));  // 64 MiB in about 64 KiB
  EXPECT_LT(packed.size(), std::size_t{1} << 20);
  EXPECT_NE(error_of(packed, std::size_t{8} << 20).find("more than 8 MiB"), std::string::npos);
  EXPECT_EQ(gunzip(packed, std::size_t{64} << 20).size(), std::size_t{64} << 20);  // exactly the limit: read
}

// A small results file that inflates past what memscope reads is refused at the cap, before
// parsing: a 1 MB gzip of a gigabyte string once cost report 5 GB of memory.
TEST(Gzip, AResultsFileInflatingPastTheCapIsRefused) {
  const std::string dir = ::testing::TempDir();
  write_bytes(dir + "bomb.json.gz", gzip(std::string(memscope::max_results_bytes + 1, ' ')));
  try {
    load_results(dir + "bomb.json.gz");
    ADD_FAILURE() << "a results file past the cap was read";
  } catch (const results_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 256 MiB"), std::string::npos) << e.what();
  }
}

TEST(Gzip, OutputsNamedGzAreWrittenCompressed) {
  const std::string dir = ::testing::TempDir();
  write_output(dir + "plain.md", [](std::ostream& o) { o << "| a |\n"; });
  write_output(dir + "packed.md.gz", [](std::ostream& o) { o << "| a |\n"; });
  EXPECT_EQ(read_bytes(dir + "plain.md"), "| a |\n");
  EXPECT_EQ(gunzip(read_bytes(dir + "packed.md.gz"), 1 << 10), "| a |\n");
}

TEST(Gzip, ResultsFilesLoadCompressedWhateverTheirName) {
  const std::string dir = ::testing::TempDir();
  save_results(memscope::testing::doc_of(), dir + "r.json.gz");
  const std::string packed = read_bytes(dir + "r.json.gz");
  ASSERT_TRUE(is_gzip(packed));
  EXPECT_EQ(load_results(dir + "r.json.gz").device.name, "Test GPU");
  write_bytes(dir + "named-plain.json", packed);  // a compressed file without .gz
  EXPECT_EQ(load_results(dir + "named-plain.json").copy_ceiling_gbps, 4000);
  write_bytes(dir + "cut.json.gz", packed.substr(0, packed.size() - 9));
  try {
    load_results(dir + "cut.json.gz");
    ADD_FAILURE() << "a truncated compressed file was read";
  } catch (const results_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cut.json.gz' is gzip-compressed but cannot be read: truncated"), std::string::npos) << what;
  }
  write_bytes(dir + "not-json.json.gz", gzip("{\"tool\": "));
  try {
    load_results(dir + "not-json.json.gz");
    ADD_FAILURE() << "compressed text that is not JSON was read";
  } catch (const results_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not valid JSON"), std::string::npos) << e.what();
  }
}
