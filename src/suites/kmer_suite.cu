// Suite `kmer`: counting the k-mers of real sequencing data (scripts/data.sh prepares it from
// Debian packages) three ways on the GPU, each from the reads' text in device memory to the
// finished counts: a dense table of all 4^k codes through memscope::histogram (small k), a hash
// table in global memory (any k up to 32), and CUB's radix sort with run-length encoding (the
// baseline). And the seeds' claim that a 16-block cluster's distributed shared memory raised
// k-mer counting from 5 to 12 million sequences a minute, tested by placing the dense table's
// counters in global memory, one block, or clusters of 2 to 16.
//
// Checked exactly: in `memscope verify` against the host reference (whose counts equal
// Jellyfish's, tests/host/test_kmer.cpp); in a run against the other GPU counter that shares no
// counting code with it (the sort against the hash table, the others against the sort).

#include "harness/data_file.hpp"
#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "harness/suite.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"
#include "suites/last_kept.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/kmer/check.cuh"
#include "memscope/kmer/compare.hpp"
#include "memscope/kmer/dense.cuh"
#include "memscope/kmer/encode.cuh"
#include "memscope/kmer/reads.hpp"
#include "memscope/kmer/reference.hpp"
#include "memscope/kmer/sort_count.cuh"
#include "memscope/kmer/table.cuh"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace memscope::suites {
namespace {

namespace km = memscope::kmer;

const char* const data_names[] = {"velvet_reads", "lambda_reads", "klebsiella"};
const char* const data_files[] = {"kmer/velvet_reads.fa.gz", "kmer/lambda_reads.fq.gz", "kmer/klebsiella.fa.gz"};

/// One data set's reads and their joined text, loaded once and kept while points of the same
/// data set follow each other (the plan runs a case's points in axis order).
class data_set {
 public:
  std::string name;
  km::read_set reads;
  std::string text;
  /// Windows that are k-mers (hold only A, C, G and T), counted once per k.
  std::uint64_t kmers(int k) const {
    const auto found = kmers_.find(k);
    if (found != kmers_.end()) return found->second;
    std::uint64_t n = 0;
    for (std::size_t r = 0; r < reads.reads(); ++r) {
      const auto read = reads.read(r);
      km::for_each_canonical(read.data(), read.size(), k, [&](std::uint64_t) { ++n; });
    }
    return kmers_[k] = n;
  }

 private:
  mutable std::map<int, std::uint64_t> kmers_;
};

const data_set& load(case_state& st, const std::string& name) {
  static last_kept<data_set> kept;
  return kept.get(name, [&] {
    const char* file = data_files[choice<std::size_t>(data_names, name)];
    const auto text = read_data_file(file);
    if (!text) st.skip(missing_data_reason(file));
    data_set d;
    d.name = name;
    std::istringstream in(*text);
    d.reads = km::parse_reads(in, data_path(file));
    d.text = km::joined_bases(d.reads);
    return d;
  });
}

/// The host reference of one (data set, k), kept for the next counter of the same point.
const km::kmer_counts& reference(const data_set& d, int k) {
  static last_kept<km::kmer_counts> kept;
  return kept.get(d.name + "/" + std::to_string(k), [&] { return km::count_reference(d.reads, k); });
}

/// The text in device memory.
device_buffer<char> upload(const data_set& d, cudaStream_t s) {
  device_buffer<char> t(d.text.size());
  if (!d.text.empty())
    MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(t.data(), d.text.data(), d.text.size(), cudaMemcpyHostToDevice, s));
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  return t;
}

/// The sort-and-count of the text, the cross-check of the other counters.
struct sorted_count {
  device_buffer<std::uint64_t> codes;
  km::sort_counter sorter;
  std::size_t distinct = 0;
  sorted_count(const device_buffer<char>& text, int k, cudaStream_t s)
      : codes(km::text_windows(text.size(), k)), sorter(codes.size()) {
    run(text, k, s);
    distinct = sorter.distinct(s);
  }
  void run(const device_buffer<char>& text, int k, cudaStream_t s) {
    km::encode_kmers(text.data(), text.size(), k, codes.data(), s);
    sorter.count(codes.data(), codes.size(), k, s);
  }
};

verify_result verdict(const std::string& difference, const char* what) {
  return difference.empty() ? verify_result::pass(what) : verify_result::fail(difference);
}

template <class Count>
verify_result against_reference(const data_set& d, int k, const std::vector<std::uint64_t>& codes,
                                const std::vector<Count>& counts) {
  return verdict(km::counts_difference(reference(d, k), codes, counts, k),
                 "every k-mer's count equal to the host reference's");
}

void set_figures(case_state& st, const data_set& d, int k) {
  const std::size_t windows = km::text_windows(d.text.size(), k);
  st.add_bytes_read(d.text.size());
  st.add_elements(windows);
  st.add_metric("reads", static_cast<double>(d.reads.reads()));
  st.add_metric("kmers", static_cast<double>(d.kmers(k)));
}

void dense_count(case_state& st, const data_set& d, int k, histogram::options opt) {
  const cudaStream_t s = st.stream();
  if (k > km::max_dense_k)
    st.skip(fmt::format("a dense table holds 4^k counters: k up to {} (the histogram's bin limit)", km::max_dense_k));
  const auto text = upload(d, s);
  const std::size_t windows = km::text_windows(text.size(), k);
  device_buffer<std::uint32_t> codes(windows), dense(static_cast<std::size_t>(km::dense_bins(k)));
  const auto launch = [&](cudaStream_t q) {
    km::encode_kmers(text.data(), text.size(), k, codes.data(), q);
    return km::count_kmers_dense(codes.data(), windows, k, dense.data(), q, opt);
  };
  dense.poison(s);
  histogram::plan p;
  try {
    p = launch(s);
  } catch (const memscope::unsupported& e) {
    st.skip(e.what());
  }
  st.add_label("plan", p.kind == histogram::strategy::cluster_dsmem ? fmt::format("cluster_dsmem of {}", p.cluster_size)
                                                                    : std::string(histogram::to_string(p.kind)));
  if (st.verify_only()) {
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    std::vector<std::uint64_t> found;
    std::vector<std::uint32_t> counts;
    km::dense_entries(dense.to_host(), found, counts);
    st.check(against_reference(d, k, found, counts));
  } else {
    sorted_count sorted(text, k, s);
    st.check(verdict(km::dense_matches_runs(dense.data(), dense.size(), sorted.sorter.unique(), sorted.sorter.counts(),
                                            sorted.distinct, s),
                     "every count equal to the sort-and-count's"));
  }
  set_figures(st, d, k);
  st.exec([&](cudaStream_t q) { launch(q); });
}

void table_count(case_state& st, const data_set& d, int k) {
  const cudaStream_t s = st.stream();
  const auto text = upload(d, s);
  km::kmer_table table(km::table_slots_for(km::text_windows(text.size(), k)));
  km::count_kmers_in_table(text.data(), text.size(), k, table, s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  if (table.lost()) st.check(verify_result::fail(fmt::format("{} k-mers found no free slot", table.lost())));
  if (st.verify_only()) {
    std::vector<std::uint64_t> codes;
    std::vector<unsigned long long> counts;
    table.entries(codes, counts);
    st.check(against_reference(d, k, codes, counts));
  } else {
    sorted_count sorted(text, k, s);
    st.check(verdict(km::table_matches_runs(table, sorted.sorter.unique(), sorted.sorter.counts(), sorted.distinct, s),
                     "every count equal to the sort-and-count's"));
  }
  set_figures(st, d, k);
  st.add_metric("table_mib", static_cast<double>(table.bytes()) / (1 << 20));
  st.exec([&](cudaStream_t q) { km::count_kmers_in_table(text.data(), text.size(), k, table, q); });
}

void sort_count(case_state& st, const data_set& d, int k) {
  const cudaStream_t s = st.stream();
  const auto text = upload(d, s);
  sorted_count sorted(text, k, s);
  if (st.verify_only()) {
    std::vector<std::uint64_t> codes;
    std::vector<std::uint32_t> counts;
    sorted.sorter.entries(codes, counts, s);
    st.check(against_reference(d, k, codes, counts));
  } else {
    km::kmer_table table(km::table_slots_for(sorted.codes.size()));
    km::count_kmers_in_table(text.data(), text.size(), k, table, s);
    st.check(verdict(km::table_matches_runs(table, sorted.sorter.unique(), sorted.sorter.counts(), sorted.distinct, s),
                     "every count equal to the hash table's"));
  }
  set_figures(st, d, k);
  st.add_metric("sort_mib", static_cast<double>(sorted.sorter.bytes() + sorted.codes.bytes()) / (1 << 20));
  st.exec([&](cudaStream_t q) { sorted.run(text, k, q); });
}

void count_case(case_state& st) {
  const auto& d = load(st, st.get_string("data"));
  const int k = static_cast<int>(st.get_int("k"));
  const std::string& counter = st.get_string("counter");
  if (counter == "dense") dense_count(st, d, k, {});
  else if (counter == "hash_table") table_count(st, d, k);
  else sort_count(st, d, k);
}

/// The seeds' claim: the dense table's counters in global memory, one block's shared memory, or
/// spread over a cluster's.
void placement_case(case_state& st) {
  const auto& d = load(st, st.get_string("data"));
  const int k = static_cast<int>(st.get_int("k"));
  const std::string& counters = st.get_string("counters");
  histogram::options opt;
  if (counters == "global") {
    opt.kind = histogram::strategy::global_atomics;
  } else if (counters == "block") {
    opt.kind = histogram::strategy::block_smem;
  } else {
    opt.kind = histogram::strategy::cluster_dsmem;
    opt.cluster_size = std::stoi(counters.substr(counters.find('_') + 1));
  }
  dense_count(st, d, k, opt);
}

double sequences_per_minute(const case_result& r) {
  return r.timed && r.stats.median > 0 ? r.metric("reads") * 60 / r.stats.median : NAN;
}

present::chart_spec rate_bars(const std::string& data) {
  present::chart_spec c;
  c.title = "k-mers counted per second, " + data + " (k = {panel})";
  c.keep = [data](const case_result& r) { return r.name == "count" && r.string_axis("data") == data; };
  c.panel_axis = "k";
  c.label = present::label_axes({"counter"});
  c.y = [](const case_result& r) { return r.elements_per_s / 1e9; };
  c.y_label = "billion windows per second";
  c.peer = present::axis_is("counter", "sort_count");
  c.peer_key = "CUB radix sort + run-length encode";
  c.with_sample_spread();
  return c;
}

void kmer_findings(const present::suite_view& v, std::vector<std::string>& out) {
  for (const char* data : data_names) {
    for (const int k : {21, 31}) {
      const auto rows = v.rows(present::where("count", {{"data", std::string(data)}, {"k", std::int64_t{k}}}));
      const auto* table = present::best_by(present::filter(rows, present::axis_is("counter", "hash_table")),
                                           [](const case_result& r) { return r.elements_per_s; });
      const auto* sorted = present::best_by(present::filter(rows, present::axis_is("counter", "sort_count")),
                                            [](const case_result& r) { return r.elements_per_s; });
      if (table && sorted)
        out.push_back(
            fmt::format("{} k={}: hash table {:.2f}x CUB sort-and-count ({:.0f} vs {:.0f} us; {:.2f} "
                        "billion k-mers/s)",
                        data, k, sorted->stats.median / table->stats.median, table->stats.median * 1e6,
                        sorted->stats.median * 1e6, table->metric("kmers") / table->stats.median / 1e9));
    }
  }
  const auto placed = v.rows(present::case_is("placement"));
  for (const std::int64_t k : {std::int64_t{8}, std::int64_t{9}}) {
    const auto at_k = present::filter(placed, [k](const case_result& r) { return r.int_axis("k") == k; });
    const auto* best = present::best_by(at_k, sequences_per_minute);
    const auto global = present::filter(at_k, present::axis_is("counters", "global"));
    const auto c16 = present::filter(at_k, present::axis_is("counters", "cluster_16"));
    if (!best || global.empty()) continue;
    std::string text = fmt::format(
        "k={} dense table ({} counters): global atomics {:.0f} M sequences/min; best {} {:.0f} M ({:.2f}x)", k,
        std::int64_t{1} << (2 * k), sequences_per_minute(*global[0]) / 1e6, best->string_axis("counters"),
        sequences_per_minute(*best) / 1e6, sequences_per_minute(*best) / sequences_per_minute(*global[0]));
    if (!c16.empty())
      text += fmt::format("; cluster of 16 {:.0f} M ({:.2f}x; the seeds claim 5 -> 12 M, 2.4x)",
                          sequences_per_minute(*c16[0]) / 1e6,
                          sequences_per_minute(*c16[0]) / sequences_per_minute(*global[0]));
    out.push_back(text);
  }
}

}  // namespace

void register_kmer(registry& reg) {
  suite s{reg, "kmer", "k-mer counting of real reads and genomes: dense, hash table, sort"};
  s.add("count", count_case)
      .summary("canonical k-mers of a data set counted from its text on the GPU, three ways")
      .axis(axis::strings("data", {std::begin(data_names), std::end(data_names)},
                          "velvet's 142,858 simulated 35-base reads; bowtie2's 10,000 simulated Illumina reads of "
                          "phage lambda (with N); four Klebsiella pneumoniae assemblies, 22 Mbp (scripts/data.sh)")
                .with_quick({std::string("klebsiella")})
                .with_verify({std::string("lambda_reads")}))
      .axis(axis::integers("k", {8, 9, 21, 31}, "bases per k-mer").with_quick({21, 31}))
      .axis(axis::strings("counter", {"dense", "hash_table", "sort_count"},
                          "a histogram of 4^k bins (memscope::histogram, automatic placement), a hash table in "
                          "global memory (16-byte slots, linear probing), CUB radix sort + run-length encode"))
      .footprint([](const axis_point& p) {
        // The sort's buffers and the hash table: about 60 bytes a base.
        return std::uint64_t{p.get_string("data") == "klebsiella" ? 1536u : 384u} << 20;
      })
      .baseline("counter", std::string("sort_count"), "speedup_vs_sort");
  s.add("placement", placement_case)
      .summary("the dense k-mer table's counters in global memory, a block, or a cluster (the seeds' claim)")
      .axis(axis::strings("data", {"velvet_reads"}, "velvet's simulated reads (sequences per minute)"))
      .axis(axis::integers("k", {8, 9}, "4^8 counters (256 KiB) or 4^9 (1 MiB): more than a block holds"))
      .axis(axis::strings("counters", {"global", "block", "cluster_2", "cluster_4", "cluster_8", "cluster_16"},
                          "global atomics, one block's shared memory, a cluster of 2-16 blocks' distributed "
                          "shared memory")
                .with_quick({std::string("global"), std::string("cluster_16")}))
      .footprint([](const axis_point&) { return std::uint64_t{64} << 20; })
      .baseline("counters", std::string("global"), "speedup_vs_global");
  for (const char* data : data_names) s.chart(rate_bars(data));
  present::chart_spec placed;
  placed.title = "k-mer counting of velvet's reads by counter placement (k = {panel})";
  placed.keep = present::case_is("placement");
  placed.panel_axis = "k";
  placed.label = present::label_axes({"counters"});
  placed.y = sequences_per_minute;
  placed.y_label = "sequences per minute";
  placed.peer = present::axis_is("counters", "global");
  placed.peer_key = "global atomics";
  placed.with_sample_spread();
  s.chart(placed).finding(kmer_findings);
}

MEMSCOPE_REGISTER_SUITE(115, register_kmer);

}  // namespace memscope::suites
