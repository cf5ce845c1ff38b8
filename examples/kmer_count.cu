// memscope-kmer-count: counts the canonical k-mers of a FASTA or FASTQ file on the GPU with
// memscope's k-mer headers, the way a user's program would. Small k (4^k counters in a dense
// table) go through memscope::histogram; any k up to 32 through the hash table.
//
//   memscope-kmer-count -k 21 reads.fa            counts, distinct k-mers, the ten most frequent
//   memscope-kmer-count -k 21 --dump reads.fa     every k-mer and its count, "ACGT... 12" per line
//                                                 (what `jellyfish dump -c` prints, in code order)
//
// Exit status: 0 counted; 2 bad arguments or input (named with its line); 1 a CUDA error.

#include "memscope/core/device_buffer.hpp"
#include "memscope/kmer/compare.hpp"
#include "memscope/kmer/dense.cuh"
#include "memscope/kmer/encode.cuh"
#include "memscope/kmer/reads.hpp"
#include "memscope/kmer/table.cuh"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

namespace km = memscope::kmer;

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "memscope-kmer-count: %s\nusage: memscope-kmer-count -k K [--dump] FILE   (K 1 to 32; FILE FASTA "
               "or FASTQ, plain text)\n",
               why);
  return 2;
}

/// Codes and counts of every distinct k-mer, ascending by code.
void count(const std::string& text, int k, std::vector<std::uint64_t>& codes, std::vector<std::uint64_t>& counts) {
  memscope::device_buffer<char> d_text(text.size());
  if (!text.empty()) MEMSCOPE_CUDA_CALL(cudaMemcpy(d_text.data(), text.data(), text.size(), cudaMemcpyHostToDevice));
  const std::size_t windows = km::text_windows(text.size(), k);
  if (k <= 12) {  // 4^12 32-bit counters are 64 MiB: a dense table is the simplest count
    memscope::device_buffer<std::uint32_t> d_codes(windows), d_dense(static_cast<std::size_t>(km::dense_bins(k)));
    km::encode_kmers(d_text.data(), text.size(), k, d_codes.data(), nullptr);
    km::count_kmers_dense(d_codes.data(), windows, k, d_dense.data(), nullptr);
    km::dense_entries(d_dense.to_host(), codes, counts);
    return;
  }
  km::kmer_table table(km::table_slots_for(windows));
  km::count_kmers_in_table(d_text.data(), text.size(), k, table, nullptr);
  MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
  std::vector<unsigned long long> c;
  table.entries(codes, c);
  std::vector<std::size_t> order(codes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return codes[a] < codes[b]; });
  std::vector<std::uint64_t> sorted(codes.size());
  counts.resize(codes.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    sorted[i] = codes[order[i]];
    counts[i] = c[order[i]];
  }
  codes.swap(sorted);
}

}  // namespace

int main(int argc, char** argv) {
  int k = 0;
  bool dump = false;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-k" && i + 1 < argc) {
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > km::max_k) return usage("k must be a whole number from 1 to 32");
      k = static_cast<int>(v);
    } else if (a == "--dump") {
      dump = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage(("unknown option " + a).c_str());
    } else if (path.empty()) {
      path = a;
    } else {
      return usage("one input file");
    }
  }
  if (k == 0 || path.empty()) return usage("give -k and a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return usage(("cannot open " + path).c_str());
  try {
    const km::read_set reads = km::parse_reads(in, path);
    if (in.bad()) return usage(("cannot read " + path).c_str());
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> codes, counts;
    count(km::joined_bases(reads), k, codes, counts);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (dump) {
      for (std::size_t i = 0; i < codes.size(); ++i)
        std::printf("%s %llu\n", km::kmer_string(codes[i], k).c_str(), static_cast<unsigned long long>(counts[i]));
      return 0;
    }
    const auto total = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
    std::printf("%zu reads, %llu k-mers of %d bases, %zu distinct, counted in %.3f s (upload included)\n",
                reads.reads(), static_cast<unsigned long long>(total), k, codes.size(), s);
    std::vector<std::size_t> top(codes.size());
    std::iota(top.begin(), top.end(), 0);
    const std::size_t shown = std::min<std::size_t>(10, top.size());
    std::partial_sort(top.begin(), top.begin() + shown, top.end(),
                      [&](std::size_t a, std::size_t b) { return counts[a] > counts[b]; });
    for (std::size_t i = 0; i < shown; ++i)
      std::printf("  %s %llu\n", km::kmer_string(codes[top[i]], k).c_str(),
                  static_cast<unsigned long long>(counts[top[i]]));
    return 0;
  } catch (const km::read_error& e) {
    std::fprintf(stderr, "memscope-kmer-count: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "memscope-kmer-count: %s\n", e.what());
    return 1;
  }
}
