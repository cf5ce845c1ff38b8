// Suite `histogram`: memscope::histogram_even with every strategy forced and chosen
// automatically, against cub::DeviceHistogram::HistogramEven in the same run. Counts must
// equal a CPU reference (computed from the very samples the GPU binned) exactly.
// `even` sweeps bin counts across block, cluster and global capacity; `seed_table` is the
// seed's A100 table (10M samples, global atomics / shared + global / DSMEM / 8-block DSMEM).

#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
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

/// The plan's kind as a stable label: global, block, cluster (the seed's DSMEM layout), split.
std::string strategy_tag(hg::strategy k) {
  switch (k) {
    case hg::strategy::global_atomics: return "global";
    case hg::strategy::block_smem: return "block";
    case hg::strategy::cluster_dsmem: return "cluster";
    case hg::strategy::cluster_split: return "split";
    default: return "auto";
  }
}

std::string plan_label(const std::string& tag, int cluster_size) {
  if (tag == "global") return "global atomics";
  if (tag == "block") return "block shared memory";
  if (tag == "cluster") return fmt::format("DSMEM cluster of {}", cluster_size);
  if (tag == "split") return fmt::format("split cluster of {}", cluster_size);
  return tag;
}

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
      const bool clustered = p.kind == hg::strategy::cluster_dsmem || p.kind == hg::strategy::cluster_split;
      st.add_label("plan_strategy", strategy_tag(p.kind));
      st.add_label("plan", plan_label(strategy_tag(p.kind), clustered ? p.cluster_size : 0));
      st.add_metric("plan_cluster_size", clustered ? p.cluster_size : 0);
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


/// "a 2-block split cluster": the plan as the findings name it.
std::string plan_phrase(const case_result& r) {
  const auto tag = r.label("plan_strategy");
  const int c = static_cast<int>(r.metric("plan_cluster_size"));
  if (tag == "global") return "global atomics";
  if (tag == "block") return "block shared memory";
  if (tag == "cluster") return fmt::format("a {}-block DSMEM cluster", c);
  if (tag == "split") return fmt::format("a {}-block split cluster", c);
  return "?";
}

/// Rows of histogram/even at the largest sample count, for one distribution (and strategy).
present::row_list even_rows(const present::suite_view& v, const std::string& dist, const std::string& strategy = {}) {
  const auto all = v.rows(present::case_is("even"));
  const auto n = present::largest(all, "samples");
  return present::filter(all, [&](const case_result& r) {
    return r.int_axis("samples") == n && r.string_axis("distribution") == dist &&
           (strategy.empty() ? r.string_axis("strategy") != "cub" : r.string_axis("strategy") == strategy);
  });
}

const case_result* at_bins(const present::row_list& rows, std::int64_t bins) {
  for (const auto* r : rows)
    if (r->int_axis("bins") == bins) return r;
  return nullptr;
}

void histogram_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto uniform = even_rows(v, "uniform");
  const auto n = present::largest(v.rows(present::case_is("even")), "samples");
  for (const auto b : present::int_values(uniform, "bins")) {
    const auto rows = present::filter(uniform, [&](const case_result& r) { return r.int_axis("bins") == b; });
    const auto* autop = at_bins(present::filter(rows, present::axis_is("strategy", "auto")), b);
    const auto* best = present::best_by(rows, present::metric_of("speedup_vs_cub"));
    if (!autop || !best) continue;
    std::string text = fmt::format("{} bins, {} uniform samples: automatic choice ({}) {:.2f}x CUB HistogramEven", b, n,
                                   plan_phrase(*autop), autop->metric("speedup_vs_cub"));
    if (best != autop && best->string_axis("strategy") != "auto")
      text += fmt::format("; fastest forced strategy {} {:.2f}x", best->string_axis("strategy"), best->metric("speedup_vs_cub"));
    if (const auto* skew = at_bins(even_rows(v, "one_bin", "auto"), b))
      text += fmt::format("; all samples in one bin: {:.2f}x", skew->metric("speedup_vs_cub"));
    out.push_back(text);
  }
  const auto seed = v.rows(present::case_is("seed_table"));
  if (!seed.empty()) {
    std::string text = "the seed's table (10M floats, 2048 bins):";
    for (const auto* r : seed) text += fmt::format(" {} {}", r->string_axis("strategy"), format_seconds(r->stats.median));
    out.push_back(text);
  }
}

std::optional<present::fact_value> grid_counters_fact(const present::suite_view& v, std::optional<double> bins) {
  const auto rows = even_rows(v, "uniform", "auto");
  const auto* r = bins ? present::nearest(rows, "bins", *bins) : present::best_by(rows, present::metric_of("speedup_vs_cub"));
  if (!r) return std::nullopt;
  present::fact_value f{fmt::format("histogram of {} uniform samples into {} bins: memscope's automatic choice ({}) {:.2f}x CUB "
                                    "HistogramEven", r->int_axis("samples").value_or(0), r->int_axis("bins").value_or(0),
                                    r->label("plan"), r->metric("speedup_vs_cub")),
                        r->metric("speedup_vs_cub"), r->label("plan_strategy"), ""};
  if (bins && static_cast<double>(r->int_axis("bins").value_or(0)) != std::round(*bins))
    f.nearest_note = fmt::format("nearest measured bin count to {:.0f}: {}", *bins, r->int_axis("bins").value_or(0));
  return f;
}

std::optional<present::fact_value> grid_counters_by_size_fact(const present::suite_view& v, std::optional<double>) {
  const auto rows = even_rows(v, "uniform", "auto");
  if (rows.empty()) return std::nullopt;
  std::string text = "automatic choice against CUB HistogramEven, uniform samples:";
  for (const auto b : present::int_values(rows, "bins"))
    text += fmt::format(" {} bins {:.2f}x ({}),", b, at_bins(rows, b)->metric("speedup_vs_cub"), at_bins(rows, b)->label("plan"));
  text.pop_back();
  return present::fact_value{text, 0, "", ""};
}

std::optional<present::fact_value> remote_atomics_fact(const present::suite_view& v, std::optional<double>) {
  const auto dsmem = even_rows(v, "uniform", "cluster2"), split = even_rows(v, "uniform", "split2");
  // At the measured bin count nearest 2^16, where both layouts run.
  const auto both = present::filter(dsmem, [&](const case_result& r) { return at_bins(split, r.int_axis("bins").value_or(0)) != nullptr; });
  const auto* d = present::nearest(both, "bins", 65536);
  if (!d) return std::nullopt;
  const auto* s = at_bins(split, d->int_axis("bins").value_or(0));
  return present::fact_value{
      fmt::format("the seed's DSMEM layout (bins spread over a cluster, remote atomics) measured {:.2f}x CUB at {} bins against "
                  "{:.2f}x for a split cluster without remote atomics: remote atomics are the slow part",
                  d->metric("speedup_vs_cub"), d->int_axis("bins").value_or(0), s->metric("speedup_vs_cub")),
      d->metric("speedup_vs_cub") / s->metric("speedup_vs_cub"), "", ""};
}

/// Version 1 stored the plan as ordinals (plan_strategy 1 global, 2 block, 3 cluster, 4 split).
void upgrade_row(case_result& r, int from_version) {
  if (from_version >= 2) return;
  const auto it = r.metrics.find("plan_strategy");
  if (it == r.metrics.end()) return;
  static const char* const tags[] = {"auto", "global", "block", "cluster", "split"};
  const auto k = static_cast<int>(it->second);
  if (k >= 0 && k <= 4) {
    r.labels["plan_strategy"] = tags[k];
    r.labels["plan"] = plan_label(tags[k], static_cast<int>(r.metric("plan_cluster_size")));
  }
  r.metrics.erase(it);
}

}  // namespace

void register_histogram(registry& reg) {
  suite s{reg, "histogram", "histogram_even against CUB HistogramEven"};
  s.add("even", histogram_body)
      .summary("histogram_even over n samples: every strategy and CUB HistogramEven, counts checked exactly")
      .axis(strategy_axis({std::begin(strategy_names), std::end(strategy_names)})
                .with_verify({std::string("auto"), std::string("global_atomics"), std::string("block_smem"), std::string("cluster1"),
                              std::string("cluster2"), std::string("cluster16"), std::string("split1"), std::string("split2"),
                              std::string("split16"), std::string("cub")})
                .with_validator([](const std::string& v) {
                  if (v == "cub") return;
                  try {
                    options_for(v);
                  } catch (const std::exception&) {
                    throw usage_error("histogram strategy '" + v + "': auto, global_atomics, block_smem, clusterC, splitC (C = 1, 2, 4, 8, 16) or cub");
                  }
                }))
      .axis(axis::integers("bins", {256, 4096, 16384, 65536, 262144, 524288, 1048576},
                           "bins (num_levels - 1); 2^20 is past the largest cluster's shared memory")
                .with_range(1, hg::policy::max_bins)
                .with_verify({std::int64_t{1}, std::int64_t{255}, std::int64_t{4099}, std::int64_t{65536}, std::int64_t{524289}}))
      .axis(axis::strings("distribution", {"uniform", "normal", "one_bin"},
                          "uniform; a bell over a tenth of the range; every sample in one bin; dirty (NaN, infinities, out of range)")
                .with_verify({std::string("uniform"), std::string("normal"), std::string("one_bin"), std::string("dirty")})
                .with_validator(check_distribution))
      .axis(axis::strings("type", {"f32"}, "sample type: float in [0, 1) or int in [0, 2^24)")
                .with_verify({std::string("f32"), std::string("i32")})
                .with_validator([](const std::string& v) {
                  if (v != "f32" && v != "i32") throw usage_error("histogram type takes f32 or i32");
                }))
      .axis(axis::pow2("samples", {28}, "samples binned")
                .with_quick({std::int64_t{1} << 26})
                .with_range(0, hg::policy::max_samples)
                .with_verify({std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{1000003}}))
      .footprint(histogram_footprint)
      .baseline("strategy", std::string("cub"), "speedup_vs_cub");
  s.add("seed_table", histogram_body)
      .summary("the seed's table: 10M uniform floats into 2048 bins (its 8-block cluster holds 256 bins per block)")
      .axis(strategy_axis({"global_atomics", "block_smem", "cluster2", "cluster8", "auto", "cub"}))
      .axis(axis::integers("bins", {2048}, "bins").with_range(1, hg::policy::max_bins))
      .axis(axis::strings("distribution", {"uniform"}, "sample distribution").with_validator(check_distribution))
      .axis(axis::strings("type", {"f32"}, "sample type"))
      .axis(axis::integers("samples", {10000000}, "samples binned")
                .with_range(0, hg::policy::max_samples)
                .with_verify({std::int64_t{1000003}}))
      .footprint(histogram_footprint)
      .baseline("strategy", std::string("cub"), "speedup_vs_cub")
      .baseline("strategy", std::string("global_atomics"), "speedup_vs_global_atomics");

  // Ratio to CUB against the bin count, one line per strategy, one panel per distribution:
  // where each cluster size wins and where global atomics take over.
  present::chart_spec ratio;
  ratio.kind = present::chart_kind::lines;
  ratio.title = "Histogram of {fixed} {panel} samples: speed relative to CUB HistogramEven";
  ratio.keep = [](const case_result& r) { return r.name == "even" && r.string_axis("strategy") != "cub"; };
  ratio.fixed_axis = "samples";
  ratio.panel_axis = "distribution";
  ratio.label = present::label_axes({"strategy"});
  ratio.x = present::int_axis_of("bins");
  ratio.y = present::metric_of("speedup_vs_cub");
  ratio.x_label = "bins";
  ratio.y_label = "x CUB (higher is better)";
  ratio.x_scale = present::scale::log2;
  ratio.y_scale = present::scale::log10;
  present::chart_spec seed;
  seed.title = "The seed's table on this GPU: 10M floats, 2048 bins";
  seed.keep = present::case_is("seed_table");
  seed.label = present::label_axes({"strategy"});
  seed.y = [](const case_result& r) { return r.stats.median * 1e6; };
  seed.y_label = "microseconds per histogram (lower is better)";
  seed.peer = present::axis_is("strategy", "cub");
  seed.peer_key = "CUB HistogramEven";
  s.chart(ratio).chart(seed).finding(histogram_findings).upgrade(upgrade_row);
  s.fact(advise::question::grid_counters, "counters written by the whole grid: the measured strategy at N bins", grid_counters_fact);
  s.fact(advise::question::grid_counters_by_size, "the automatic choice against CUB at every measured bin count", grid_counters_by_size_fact);
  s.fact(advise::question::remote_atomics_cost, "remote DSMEM atomics against a split cluster", remote_atomics_fact);
}

}  // namespace memscope::suites
