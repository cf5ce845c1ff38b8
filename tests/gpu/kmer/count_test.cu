// Tests of include/memscope/kmer/{encode,table,sort_count,dense,check}.cuh on the GPU: every
// counter's k-mers and counts equal the host reference's, on fresh random reads of awkward
// lengths (empty, one base, shorter than k, a prime count of bases, more windows than the
// grid's tiles) with N, lower case and IUPAC bytes; and the on-GPU checks catch a wrong count.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/kmer/check.cuh"
#include "memscope/kmer/compare.hpp"
#include "memscope/kmer/dense.cuh"
#include "memscope/kmer/encode.cuh"
#include "memscope/kmer/reference.hpp"
#include "memscope/kmer/sort_count.cuh"
#include "memscope/kmer/table.cuh"

#include <random>
#include <string>
#include <vector>

using namespace memscope;
namespace km = memscope::kmer;

namespace {

/// Reads of the given lengths over a small alphabet that repeats k-mers (a genome of `genome`
/// bases sampled at random offsets), with an occasional N, lower-case base or IUPAC code.
km::read_set random_reads(const std::vector<std::size_t>& lengths, std::size_t genome, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string g(genome, 'A');
  for (auto& c : g) c = "ACGT"[rng() % 4];
  km::read_set reads;
  for (const std::size_t len : lengths) {
    const std::size_t at = genome > len ? rng() % (genome - len) : 0;
    for (std::size_t i = 0; i < len; ++i) {
      char c = g[(at + i) % genome];
      const auto r = rng() % 1000;
      if (r == 0) c = 'N';
      else if (r == 1) c = 'R';
      else if (r < 20) c = static_cast<char>(c - 'A' + 'a');
      reads.bases += c;
    }
    reads.starts.push_back(reads.bases.size());
  }
  return reads;
}

struct uploaded {
  std::string text;
  device_buffer<char> d_text;
  explicit uploaded(const km::read_set& reads) : text(km::joined_bases(reads)), d_text(text.size()) {
    if (!text.empty()) MEMSCOPE_CUDA_CALL(cudaMemcpy(d_text.data(), text.data(), text.size(), cudaMemcpyHostToDevice));
  }
};

std::string context(const char* counter, int k, std::size_t bases) {
  return std::string(counter) + ", k " + std::to_string(k) + ", " + std::to_string(bases) + " bases";
}

void expect_table_counts(const uploaded& in, int k, const km::kmer_counts& want) {
  const std::size_t windows = km::text_windows(in.text.size(), k);
  km::kmer_table table(km::table_slots_for(windows));
  km::count_kmers_in_table(in.d_text.data(), in.text.size(), k, table, nullptr);
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  EXPECT_EQ(table.lost(), 0u);
  std::vector<std::uint64_t> codes;
  std::vector<unsigned long long> counts;
  table.entries(codes, counts);
  EXPECT_EQ(km::counts_difference(want, codes, counts, k), "") << context("hash table", k, in.text.size());
}

/// The sort-and-count runs of `in`, checked against `want`; returns the counter for further checks.
km::sort_counter expect_sort_counts(const uploaded& in, int k, const km::kmer_counts& want,
                                    device_buffer<std::uint64_t>& codes) {
  const std::size_t windows = km::text_windows(in.text.size(), k);
  codes = device_buffer<std::uint64_t>(windows);
  codes.poison();
  km::encode_kmers(in.d_text.data(), in.text.size(), k, codes.data(), nullptr);
  km::sort_counter sorter(windows);
  sorter.count(codes.data(), windows, k, nullptr);
  std::vector<std::uint64_t> unique;
  std::vector<std::uint32_t> counts;
  sorter.entries(unique, counts, nullptr);
  EXPECT_EQ(km::counts_difference(want, unique, counts, k), "") << context("sort and count", k, in.text.size());
  return sorter;
}

void expect_dense_counts(const uploaded& in, int k, const km::kmer_counts& want, histogram::options opt) {
  const std::size_t windows = km::text_windows(in.text.size(), k);
  device_buffer<std::uint32_t> codes(windows), dense(static_cast<std::size_t>(km::dense_bins(k)));
  codes.poison();
  dense.poison();
  km::encode_kmers(in.d_text.data(), in.text.size(), k, codes.data(), nullptr);
  km::count_kmers_dense(codes.data(), windows, k, dense.data(), nullptr, opt);
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  std::vector<std::uint64_t> found;
  std::vector<std::uint32_t> counts;
  km::dense_entries(dense.to_host(), found, counts);
  EXPECT_EQ(km::counts_difference(want, found, counts, k), "")
      << context("dense table", k, in.text.size()) << ", " << histogram::to_string(opt.kind) << " of "
      << opt.cluster_size;
}

const std::vector<std::size_t> awkward_lengths = {0, 1, 4, 31, 32, 33, 35, 100, 0, 150, 997, 5};

}  // namespace

TEST(KmerCountGpu, EveryCounterMatchesTheReference) {
  MEMSCOPE_REQUIRE_GPU();
  for (const int k : {1, 5, 11, 16, 21, 31, 32}) {
    std::vector<std::size_t> lengths = awkward_lengths;
    for (int r = 0; r < 3000; ++r) lengths.push_back(30 + r % 71);  // many reads, windows past a tile
    const auto reads = random_reads(lengths, 20011, memscope::testing::fresh_seed());
    const auto want = km::count_reference(reads, k);
    const uploaded in(reads);
    expect_table_counts(in, k, want);
    device_buffer<std::uint64_t> codes;
    expect_sort_counts(in, k, want, codes);
    if (k <= 11) expect_dense_counts(in, k, want, {});
  }
}

TEST(KmerCountGpu, TinyTextsCountNothingOrOneKmer) {
  MEMSCOPE_REQUIRE_GPU();
  for (const std::string text : {"", "A", "ACG", "NNNN", "acgt", "ACGTN"}) {
    km::read_set reads;
    reads.bases = text;
    reads.starts.push_back(text.size());
    const auto want = km::count_reference(reads, 4);
    const uploaded in(reads);
    expect_table_counts(in, 4, want);
    device_buffer<std::uint64_t> codes;
    expect_sort_counts(in, 4, want, codes);
    expect_dense_counts(in, 4, want, {});
  }
}

TEST(KmerCountGpu, DenseCountsMatchInEveryPlacement) {
  MEMSCOPE_REQUIRE_GPU();
  const int k = 8;  // 4^8 32-bit counters: 256 KiB, more than one block holds
  const auto reads = random_reads(std::vector<std::size_t>(4000, 101), 70001, memscope::testing::fresh_seed());
  const auto want = km::count_reference(reads, k);
  const uploaded in(reads);
  histogram::options global;
  global.kind = histogram::strategy::global_atomics;
  expect_dense_counts(in, k, want, global);
  if (!memscope::testing::has_clusters()) GTEST_SKIP() << "no thread-block clusters here: cluster placements not run";
  for (const int c : {2, 4, 8, 16}) {
    histogram::options opt;
    opt.kind = histogram::strategy::cluster_dsmem;
    opt.cluster_size = c;
    try {
      expect_dense_counts(in, k, want, opt);
    } catch (const memscope::unsupported& e) {
      std::printf("cluster of %d not run: %s\n", c, e.what());
    }
  }
}

TEST(KmerCountGpu, ChecksOnTheGpuAgreeAndCatchAWrongCount) {
  MEMSCOPE_REQUIRE_GPU();
  const int k = 9;
  const auto reads = random_reads(std::vector<std::size_t>(2000, 77), 5003, memscope::testing::fresh_seed());
  const auto want = km::count_reference(reads, k);
  const uploaded in(reads);
  const std::size_t n = in.text.size(), windows = km::text_windows(n, k);
  device_buffer<std::uint64_t> codes;
  auto sorter = expect_sort_counts(in, k, want, codes);
  const std::size_t runs = sorter.distinct(nullptr);
  ASSERT_GT(runs, 0u);

  km::kmer_table table(km::table_slots_for(windows));
  km::count_kmers_in_table(in.d_text.data(), n, k, table, nullptr);
  EXPECT_EQ(km::table_matches_runs(table, sorter.unique(), sorter.counts(), runs, nullptr), "");

  device_buffer<std::uint32_t> codes32(windows), dense(static_cast<std::size_t>(km::dense_bins(k)));
  km::encode_kmers(in.d_text.data(), n, k, codes32.data(), nullptr);
  km::count_kmers_dense(codes32.data(), windows, k, dense.data(), nullptr);
  EXPECT_EQ(km::dense_matches_runs(dense.data(), dense.size(), sorter.unique(), sorter.counts(), runs, nullptr), "");

  // One count off by one in each: both checks must say so.
  std::vector<std::uint64_t> first_code(1);
  MEMSCOPE_CUDA_CALL(cudaMemcpy(first_code.data(), sorter.unique(), 8, cudaMemcpyDeviceToHost));
  std::uint32_t bumped = 0;
  MEMSCOPE_CUDA_CALL(cudaMemcpy(&bumped, dense.data() + first_code[0], 4, cudaMemcpyDeviceToHost));
  ++bumped;
  MEMSCOPE_CUDA_CALL(cudaMemcpy(dense.data() + first_code[0], &bumped, 4, cudaMemcpyHostToDevice));
  EXPECT_NE(km::dense_matches_runs(dense.data(), dense.size(), sorter.unique(), sorter.counts(), runs, nullptr), "");
  const unsigned long long extra = 7;
  const auto slots = table.slots();
  std::vector<km::table_slot> h(slots);
  MEMSCOPE_CUDA_CALL(cudaMemcpy(h.data(), table.data(), slots * sizeof(km::table_slot), cudaMemcpyDeviceToHost));
  for (std::size_t s = 0; s < slots; ++s)
    if (h[s].key != km::no_kmer<std::uint64_t>) {
      h[s].count += extra;
      break;
    }
  MEMSCOPE_CUDA_CALL(cudaMemcpy(table.view().slots, h.data(), slots * sizeof(km::table_slot), cudaMemcpyHostToDevice));
  EXPECT_NE(km::table_matches_runs(table, sorter.unique(), sorter.counts(), runs, nullptr), "");
}

TEST(KmerCountGpu, RefusesKBeyondItsCodes) {
  MEMSCOPE_REQUIRE_GPU();
  device_buffer<char> text(64);
  device_buffer<std::uint32_t> codes32(64);
  EXPECT_THROW(km::encode_kmers(text.data(), 64, 17, codes32.data(), nullptr), std::invalid_argument);
  EXPECT_THROW(km::encode_kmers(text.data(), 64, 0, codes32.data(), nullptr), std::invalid_argument);
  km::kmer_table table(64);
  EXPECT_THROW(km::count_kmers_in_table(text.data(), 64, 33, table, nullptr), std::invalid_argument);
  EXPECT_THROW(km::dense_bins(15), std::invalid_argument);
  EXPECT_THROW(km::kmer_table(48), std::invalid_argument);
}
