// Tests of include/memscope/kmer: codes, canonical k-mers, the FASTA/FASTQ reader's handling of
// awkward and bad input, and the host reference's counts against Jellyfish's on real reads.

#include "memscope/kmer/kmer.hpp"
#include "memscope/kmer/reads.hpp"
#include "memscope/kmer/reference.hpp"
#include "memscope/kmer/table_plan.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

using namespace memscope::kmer;

namespace {

read_set parse(const std::string& text) {
  std::istringstream in(text);
  return parse_reads(in, "test");
}

std::map<std::string, std::uint32_t> by_string(const kmer_counts& c, int k) {
  std::map<std::string, std::uint32_t> out;
  for (const auto& [code, n] : c.counts) out[kmer_string(code, k)] = n;
  return out;
}

std::string error_of(const std::string& text) {
  try {
    (void)parse(text);
  } catch (const read_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Kmer, CodesReverseComplementsAndCanonicalForms) {
  EXPECT_EQ(kmer_string(0b00011011, 4), "ACGT");
  EXPECT_EQ(reverse_complement(0b00011011, 4), 0b00011011u);             // ACGT is its own
  EXPECT_EQ(kmer_string(reverse_complement(0b00000001, 4), 4), "GTTT");  // AAAC
  EXPECT_EQ(kmer_string(canonical(0b11111110, 4), 4), "CAAA");           // TTTG and its complement
  for (int k : {1, 5, 21, 31, 32}) {
    const std::uint64_t code = 0x0123456789abcdefull & kmer_mask(k);
    EXPECT_EQ(reverse_complement(reverse_complement(code, k), k), code) << k;
    EXPECT_EQ(canonical(code, k), canonical(reverse_complement(code, k), k)) << k;
  }
}

TEST(Kmer, RollingCanonicalKmersSkipNonAcgtWindows) {
  const std::string read = "acgTNACGTAC";  // lower case counts; N ends the run
  std::vector<std::string> got;
  const auto skipped =
      for_each_canonical(read.data(), read.size(), 3, [&](std::uint64_t c) { got.push_back(kmer_string(c, 3)); });
  // ACG CGT | ACG CGT GTA(->TAC) TAC ; the windows holding the N: GTN TNA NAC
  EXPECT_EQ(got, (std::vector<std::string>{"ACG", "ACG", "ACG", "ACG", "GTA", "GTA"}));
  EXPECT_EQ(skipped, 3u);
}

TEST(KmerReads, FastaAndFastqWithAwkwardReads) {
  const auto expect_reads = [](const read_set& got, read_format format, const std::vector<std::string>& want) {
    EXPECT_EQ(got.format, format);
    ASSERT_EQ(got.reads(), want.size());
    for (std::size_t r = 0; r < want.size(); ++r) EXPECT_EQ(got.read(r), want[r]) << "read " << r;
  };
  const auto fa = parse("\n>r1 multi-line\nACGT\nac\r\n>empty\n>r3\nNNNN\n\n>r4\nACG");
  expect_reads(fa, read_format::fasta, {"ACGTac", "", "NNNN", "ACG"});
  expect_reads(parse("@a\nACGTN\n+\nIIIII\n@b\n\n+b\n\n@c\nacg\n+\n!!!\n"), read_format::fastq, {"ACGTN", "", "acg"});
  EXPECT_EQ(parse("").reads(), 0u);
  EXPECT_EQ(parse("\n\n").reads(), 0u);
  // Reads shorter than k count nothing, and are counted as short.
  const auto c = count_reference(fa, 5);
  EXPECT_EQ(c.counted, 2u);  // ACGTA, CGTAC (r1 is ACGTac)
  EXPECT_EQ(c.short_reads, 3u);
  EXPECT_THROW(count_reference(fa, 0), std::invalid_argument);
  EXPECT_THROW(count_reference(fa, 33), std::invalid_argument);
}

// The GPU counters' window code (kmer.hpp, run in encode.cuh's kernels) against canonical() of
// the window's bases, an independent path: every window of a text with N, lower case and read
// separators, every k, both code widths.
TEST(Kmer, WindowCodesAreTheCanonicalCodeOrNoKmer) {
  std::mt19937_64 rng(12345);
  std::string text(3000, 'A');
  for (auto& c : text) {
    const auto r = rng() % 100;
    c = r == 0 ? 'N' : r == 1 ? '\n' : r < 10 ? "acgt"[rng() % 4] : "ACGT"[rng() % 4];
  }
  for (int k = 1; k <= max_k; ++k)
    for (std::size_t i = 0; i + static_cast<std::size_t>(k) <= text.size(); ++i) {
      std::uint64_t code = 0;
      bool valid = true;
      for (int j = 0; j < k; ++j) {
        const int b = base_code(text[i + static_cast<std::size_t>(j)]);
        valid = valid && b >= 0;
        code = (code << 2) | static_cast<std::uint64_t>(b < 0 ? 0 : b);
      }
      const std::uint64_t want = valid ? canonical(code, k) : no_kmer<std::uint64_t>;
      ASSERT_EQ(window_code<std::uint64_t>(text.data() + i, k), want) << "k " << k << " at " << i;
      if (k <= max_k_for<std::uint32_t>) {
        ASSERT_EQ(window_code<std::uint32_t>(text.data() + i, k),
                  valid ? static_cast<std::uint32_t>(want) : no_kmer<std::uint32_t>);
      }
    }
  EXPECT_EQ(text_windows(0, 5), 0u);
  EXPECT_EQ(text_windows(4, 5), 0u);
  EXPECT_EQ(text_windows(5, 5), 1u);
}

// The mark of a window that is no k-mer is never a canonical code, and lies past 4^k where the
// code type has room, so a dense table's histogram leaves it out.
TEST(Kmer, NoKmerIsNeverCanonical) {
  for (int k = 1; k <= max_k; ++k) {
    EXPECT_EQ(canonical(kmer_mask(k), k), 0u) << "all T's is all A's reverse complement, k " << k;
    if (k < 32) {
      EXPECT_GE(no_kmer<std::uint64_t>, std::uint64_t{1} << (2 * k));
    }
    if (k < 16) {
      EXPECT_GE(no_kmer<std::uint32_t>, std::uint32_t{1} << (2 * k));
    }
  }
}

TEST(Kmer, HashTablesArePowersOfTwoWithAQuarterSpare) {
  for (const std::size_t windows : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{5},
                                    std::size_t{1000}, std::size_t{22000000}}) {
    const std::size_t slots = table_slots_for(windows);
    EXPECT_EQ(slots & (slots - 1), 0u) << windows;
    EXPECT_GT(slots * 4, windows * 5) << windows;
    EXPECT_LE(slots, 2 * (windows * 5 / 4 + 1)) << windows;
  }
  EXPECT_NE(slot_hash(1) & 1023, slot_hash(2) & 1023);  // neighbouring codes start apart
}

TEST(KmerReads, JoinedBasesSeparateReadsSoNoKmerSpansTwo) {
  read_set reads;
  for (const char* r : {"ACG", "", "TT", "GCA"}) {
    reads.bases += r;
    reads.starts.push_back(reads.bases.size());
  }
  EXPECT_EQ(joined_bases(reads), "ACG\n\nTT\nGCA");
  EXPECT_EQ(joined_bases(read_set{}), "");
  std::uint64_t windows = 0;
  const std::string text = joined_bases(reads);
  for_each_canonical(text.data(), text.size(), 3, [&](std::uint64_t) { ++windows; });
  EXPECT_EQ(windows, 2u);  // ACG and GCA; none across a separator
}

TEST(KmerReads, BadInputIsRefusedNamingTheLine) {
  EXPECT_NE(error_of("ACGT\n").find("neither FASTA"), std::string::npos);
  EXPECT_NE(error_of(">r\nAC1GT\n").find("test:2: byte 49 at column 3"), std::string::npos);
  EXPECT_NE(error_of("@r\nACGT\n+\nIII\n").find("test:4: 3 quality characters for 4 bases"), std::string::npos);
  EXPECT_NE(error_of("@r\nACGT\n+\n").find("test:1: the FASTQ record starting here ends before its quality line"),
            std::string::npos);
  EXPECT_NE(error_of("@r\nACGT\n").find("ends before its '+' line"), std::string::npos);
  EXPECT_NE(error_of("@r\nACGT\nIIII\nIIII\n").find("expected the FASTQ '+' line"), std::string::npos);
  EXPECT_NE(error_of("@r\nACGT\n+\nIIII\nACGT\n").find("test:5: expected a FASTQ '@' header"), std::string::npos);
}

namespace {

/// A Debian example file decompressed into a temporary file; "" when it is not installed.
std::string unpacked(const std::string& packed, const char* tool, const char* name) {
  if (!std::filesystem::exists(packed)) return "";
  const auto out = std::filesystem::temp_directory_path() / (std::string("memscope_") + name);
  const std::string cmd = std::string(tool) + " -dc " + packed + " > " + out.string();
  return std::system(cmd.c_str()) == 0 ? out.string() : "";
}

/// Runs `command` (a counter writing "KMER COUNT" lines into DIR/counts.txt; DIR is replaced by
/// a fresh temporary directory) and reads its counts: false when `tool` is not installed.
bool counts_from(const char* tool, const std::string& command, std::map<std::string, std::uint32_t>& out) {
  if (std::system((std::string("command -v ") + tool + " > /dev/null 2>&1").c_str()) != 0) return false;
  const auto dir =
      std::filesystem::temp_directory_path() / ("memscope_" + std::string(tool) + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string cmd = command;
  for (std::size_t at; (at = cmd.find("DIR")) != std::string::npos;) cmd.replace(at, 3, dir.string());
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(dir / "counts.txt");
  std::string kmer;
  std::uint32_t n = 0;
  while (in >> kmer >> n) out[kmer] = n;
  std::filesystem::remove_all(dir);
  return true;
}

/// Jellyfish's canonical counts of `fasta_or_fastq` at k.
bool jellyfish_counts(const std::string& path, int k, std::map<std::string, std::uint32_t>& out) {
  return counts_from("jellyfish",
                     "jellyfish count -C -m " + std::to_string(k) + " -s 4M -t 2 -o DIR/counts.jf " + path +
                         " && jellyfish dump -c DIR/counts.jf > DIR/counts.txt",
                     out);
}

/// KMC's canonical counts of a FASTQ file at k (counts up to 10^6, not capped at 255).
bool kmc_counts(const std::string& fastq, int k, std::map<std::string, std::uint32_t>& out) {
  return counts_from("kmc",
                     "kmc -k" + std::to_string(k) + " -ci1 -cs1000000 -t2 -fq " + fastq +
                         " DIR/counts DIR > /dev/null 2>&1 && kmc_dump DIR/counts DIR/counts.txt",
                     out);
}

}  // namespace

// bowtie2-examples' reads (Debian): 10,000 simulated Illumina reads of phage lambda, most with
// N bases. Every k-mer count equals KMC's (the second counter users trust) at 21 and 31.
TEST(KmerReference, CountsEqualKmcOnRealReads) {
  const std::string fq = unpacked("/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz", "gzip", "lambda.fq");
  if (fq.empty()) GTEST_SKIP() << "bowtie2-examples is not installed (scripts/setup.sh installs it)";
  std::ifstream in(fq);
  const auto reads = parse_reads(in, fq);
  ASSERT_EQ(reads.reads(), 10000u);
  for (const int k : {21, 31}) {
    std::map<std::string, std::uint32_t> want;
    if (!kmc_counts(fq, k, want)) GTEST_SKIP() << "kmc is not installed (scripts/setup.sh installs it)";
    const auto got = count_reference(reads, k);
    EXPECT_GT(got.skipped, 0u) << "the reads hold N bases";
    EXPECT_EQ(by_string(got, k), want) << fq << " k=" << k;
  }
  std::filesystem::remove(fq);
}

// velvet-example's reads (Debian): 142,858 simulated 35-base FASTA reads, and 1,000 Illumina
// FASTQ reads with N bases. Every k-mer count equals Jellyfish's, at a small k (every 4^k
// k-mer present), the lengths real counters use (21, 31) and k = 32.
TEST(KmerReference, CountsEqualJellyfishOnRealReads) {
  const std::string fa = unpacked("/usr/share/doc/velvet/examples/test_reads.fa.xz", "xz", "reads.fa");
  const std::string fq = unpacked("/usr/share/doc/velvet/contrib/read_prepare/read1.fq.gz", "gzip", "read1.fq");
  if (fa.empty() || fq.empty()) GTEST_SKIP() << "velvet-example is not installed (scripts/setup.sh installs it)";
  for (const auto& [path, ks] : {std::pair<std::string, std::vector<int>>{fa, {5, 21, 31}},
                                 std::pair<std::string, std::vector<int>>{fq, {21, 32}}}) {
    std::ifstream in(path);
    const auto reads = parse_reads(in, path);
    ASSERT_GT(reads.reads(), 999u);
    for (const int k : ks) {
      std::map<std::string, std::uint32_t> want;
      if (!jellyfish_counts(path, k, want)) GTEST_SKIP() << "jellyfish is not installed (scripts/setup.sh installs it)";
      const auto got = count_reference(reads, k);
      EXPECT_EQ(by_string(got, k), want) << path << " k=" << k;
      std::uint64_t total = 0;
      for (const auto& [kmer, n] : want) total += n;
      EXPECT_EQ(got.counted, total) << path << " k=" << k;
    }
  }
  std::filesystem::remove(fa);
  std::filesystem::remove(fq);
}
