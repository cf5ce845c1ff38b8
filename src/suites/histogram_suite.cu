// Suite `histogram`: memscope::histogram_even with every strategy forced and chosen
// automatically, against cub::DeviceHistogram::HistogramEven in the same run. Counts must
// equal a CPU reference (computed from the very samples the GPU binned) exactly.
// `even` sweeps bin counts across block, cluster and global capacity; `seed_table` is the
// seed's A100 table (10M samples, global atomics / shared + global / DSMEM / 8-block DSMEM).

#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "suites/suites.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/dsmem/histogram.cuh"
#include "memscope/dsmem/histogram_inputs.cuh"
#include "memscope/dsmem/histogram_reference.hpp"

#include <cub/device/device_histogram.cuh>

#include <functional>
#include <memory>

namespace memscope::suites {
namespace {

namespace hg = memscope::histogram;

const char* const strategy_names[] = {"auto",      "global_atomics", "block_smem", "cluster2", "cluster4", "cluster8",
                                      "cluster16", "split2",         "split4",     "split8",   "cub"};
const char* const distribution_names[] = {"uniform", "normal", "one_bin", "dirty"};

hg::options options_for(const std::string& name) {
  if (name == "auto") return {hg::strategy::automatic, 0};
  if (name == "global_atomics") return {hg::strategy::global_atomics, 0};
  if (name == "block_smem") return {hg::strategy::block_smem, 0};
  const auto sized = [&](hg::strategy kind, const std::string& size) {
    for (const char* c : {"1", "2", "4", "8", "16"})
      if (size == c) return hg::options{kind, std::stoi(size)};
    throw std::invalid_argument("cluster size '" + size + "' is not 1, 2, 4, 8 or 16");
  };
  if (name.rfind("cluster", 0) == 0) return sized(hg::strategy::cluster_dsmem, name.substr(7));
  if (name.rfind("split", 0) == 0) return sized(hg::strategy::cluster_split, name.substr(5));
  throw std::invalid_argument("unknown histogram strategy '" + name + "'");
}

void check_distribution(const std::string& v) {
  for (const char* d : distribution_names)
    if (v == d) return;
  throw usage_error("histogram distribution '" + v + "': uniform, normal, one_bin or dirty");
}

/// cub::DeviceHistogram::HistogramEven with its temporary storage, for the same-run ratio.
template <class T>
struct cub_histogram {
  const T* samples;
  std::uint32_t* histogram;
  int levels;
  T lower, upper;
  std::int64_t n;
  std::size_t temp_bytes = 0;
  device_buffer<unsigned char> temp;

  cub_histogram(const T* s, std::uint32_t* h, int l, T lo, T hi, std::int64_t count)
      : samples(s), histogram(h), levels(l), lower(lo), upper(hi), n(count) {
    MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples, histogram, levels, lower, upper, n));
    temp = device_buffer<unsigned char>(temp_bytes);
  }
  void operator()(cudaStream_t s) {
    MEMSCOPE_CUDA_CALL(cub::DeviceHistogram::HistogramEven(temp.data(), temp_bytes, samples, histogram, levels, lower,
                                                           upper, n, s));
  }
};

template <class T>
void histogram_case(case_state& st) {
  const auto n = static_cast<std::size_t>(st.get_int("samples"));
  const int bins = static_cast<int>(st.get_int("bins"));
  const std::string& strategy = st.get_string("strategy");
  const auto dist = choice<hg::distribution>(distribution_names, st.get_string("distribution"));
  const T lower = hg::sample_range<T>::lower, upper = hg::sample_range<T>::upper;
  const cudaStream_t s = st.stream();

  std::function<void(cudaStream_t)> launch;
  std::unique_ptr<cub_histogram<T>> cub;
  hg::options opt;
  if (strategy != "cub") {
    opt = options_for(strategy);
    try {
      const hg::plan p = hg::plan_for<T>(bins, opt);
      st.add_metric("plan_strategy", static_cast<double>(p.kind));  // 1 global, 2 block, 3 cluster, 4 split
      st.add_metric("plan_cluster_size", p.kind == hg::strategy::cluster_dsmem || p.kind == hg::strategy::cluster_split ? p.cluster_size : 0);
      st.add_metric("smem_per_block", static_cast<double>(p.smem_bytes));
    } catch (const hg::unsupported& e) {
      st.skip(e.what());
    }
  }

  device_buffer<T> samples(n);
  device_buffer<std::uint32_t> histogram(static_cast<std::size_t>(bins));
  hg::make_samples(samples.data(), n, dist, st.seed(), s);
  if (strategy == "cub") {
    cub = std::make_unique<cub_histogram<T>>(samples.data(), histogram.data(), bins + 1, lower, upper,
                                             static_cast<std::int64_t>(n));
    launch = [&](cudaStream_t st_) { (*cub)(st_); };
  } else {
    launch = [&](cudaStream_t st_) {
      hg::histogram_even(samples.data(), histogram.data(), bins + 1, lower, upper, static_cast<std::int64_t>(n), st_, opt);
    };
  }

  std::vector<std::uint32_t> want;
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));  // the case stream does not order with cudaMemcpy
  {
    const std::vector<T> h_samples = samples.to_host();
    want = hg::histogram_reference(h_samples.data(), n, hg::even_bins<T>::make(bins + 1, lower, upper));
  }
  // Twice: the second run must overwrite the first's counts, not add to them.
  for (int round = 0; round < 2; ++round) {
    histogram.poison(s);
    launch(s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    const auto got = histogram.to_host();
    st.check(compare_exact(got.data(), got.size(), [&](std::size_t b) { return want[b]; }));
  }
  st.add_bytes_read(n * sizeof(T));
  st.add_elements(n);
  st.exec(launch);
}

void histogram_body(case_state& st) {
  if (st.get_string("type") == "f32") histogram_case<float>(st);
  else histogram_case<int>(st);
}

std::uint64_t histogram_footprint(const axis_point& p) {
  // Samples, the output, and CUB's per-block private histograms beyond 256 bins.
  const auto n = static_cast<std::uint64_t>(p.get_int("samples"));
  const auto bins = static_cast<std::uint64_t>(p.get_int("bins"));
  return n * 4 + bins * 4 * 1100 + (1 << 20);
}

axis strategy_axis(std::vector<std::string> values) {
  return axis::strings("strategy", std::move(values),
                       "memscope's automatic choice; global atomics; one block's shared memory; a cluster of C "
                       "blocks sharing the bins through DSMEM (remote atomics); a cluster of C blocks splitting the bin "
                       "range, each reading every sample; CUB HistogramEven");
}

}  // namespace

void register_histogram(registry& reg) {
  {
    case_def c;
    c.suite = "histogram";
    c.name = "even";
    c.summary = "histogram_even over n samples: every strategy and CUB HistogramEven, counts checked exactly";
    c.axes.push_back(strategy_axis({std::begin(strategy_names), std::end(strategy_names)})
                         .with_verify({std::string("auto"), std::string("global_atomics"), std::string("block_smem"),
                                       std::string("cluster1"), std::string("cluster2"), std::string("cluster16"),
                                       std::string("split1"), std::string("split2"), std::string("split16"),
                                       std::string("cub")})
                         .with_validator([](const std::string& v) {
                           if (v == "cub") return;
                           try {
                             options_for(v);
                           } catch (const std::exception&) {
                             throw usage_error("histogram strategy '" + v + "': auto, global_atomics, block_smem, clusterC, splitC (C = 1, 2, 4, 8, 16) or cub");
                           }
                         }));
    c.axes.push_back(axis::integers("bins", {256, 4096, 16384, 65536, 262144, 524288, 1048576},
                                    "bins (num_levels - 1); 2^20 is past the largest cluster's shared memory")
                         .with_range(1, hg::policy::max_bins)
                         .with_verify({std::int64_t{1}, std::int64_t{255}, std::int64_t{4099}, std::int64_t{65536},
                                       std::int64_t{524289}}));
    c.axes.push_back(axis::strings("distribution", {"uniform", "normal", "one_bin"},
                                   "uniform; a bell over a tenth of the range; every sample in one bin; "
                                   "dirty (NaN, infinities, out of range)")
                         .with_verify({std::string("uniform"), std::string("normal"), std::string("one_bin"),
                                       std::string("dirty")})
                         .with_validator(check_distribution));
    c.axes.push_back(axis::strings("type", {"f32"}, "sample type: float in [0, 1) or int in [0, 2^24)")
                         .with_verify({std::string("f32"), std::string("i32")})
                         .with_validator([](const std::string& v) {
                           if (v != "f32" && v != "i32") throw usage_error("histogram type takes f32 or i32");
                         }));
    c.axes.push_back(axis::pow2("samples", {28}, "samples binned")
                         .with_quick({std::int64_t{1} << 26})
                         .with_range(0, hg::policy::max_samples)
                         .with_verify({std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{1000003}}));
    c.body = histogram_body;
    c.footprint = histogram_footprint;
    c.baselines.push_back({"strategy", std::string("cub"), "speedup_vs_cub", speedup});
    reg.add(std::move(c));
  }
  {
    case_def c;
    c.suite = "histogram";
    c.name = "seed_table";
    c.summary = "the seed's table: 10M uniform floats into 2048 bins (its 8-block cluster holds 256 bins per block)";
    c.axes.push_back(strategy_axis({"global_atomics", "block_smem", "cluster2", "cluster8", "auto", "cub"}));
    c.axes.push_back(axis::integers("bins", {2048}, "bins").with_range(1, hg::policy::max_bins));
    c.axes.push_back(axis::strings("distribution", {"uniform"}, "sample distribution")
                         .with_validator(check_distribution));
    c.axes.push_back(axis::strings("type", {"f32"}, "sample type"));
    c.axes.push_back(axis::integers("samples", {10000000}, "samples binned")
                         .with_range(0, hg::policy::max_samples)
                         .with_verify({std::int64_t{1000003}}));
    c.body = histogram_body;
    c.footprint = histogram_footprint;
    c.baselines.push_back({"strategy", std::string("cub"), "speedup_vs_cub", speedup});
    c.baselines.push_back({"strategy", std::string("global_atomics"), "speedup_vs_global_atomics", speedup});
    reg.add(std::move(c));
  }
}

}  // namespace memscope::suites
