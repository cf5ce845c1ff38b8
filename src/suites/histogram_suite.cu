// Suite `histogram`: memscope::histogram_even with every strategy forced and chosen
// automatically, against cub::DeviceHistogram::HistogramEven in the same run. Counts must
// equal a reference computed from the very samples the GPU binned (on the CPU for `verify`,
// by one plain atomic per sample on the GPU for a run) exactly.
// `even` sweeps bin counts across block, cluster and global capacity; `adversarial` and `sizes`
// every input shape and sample count; `interfaces` and `pixels` CUB's other forms (ranges,
// types, counters; channels and pitched rows); `seed_table` is the seed's A100 table (10M
// samples, global atomics / shared + global / DSMEM / 8-block DSMEM).

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/histogram/device_reference.cuh"
#include "memscope/histogram/histogram.cuh"
#include "memscope/histogram/reference.hpp"
#include "suites/histogram_inputs.cuh"
#include "suites/histogram_photos.cuh"
#include "suites/last_kept.hpp"

#include <cub/device/device_histogram.cuh>
#include <cuda/std/array>

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <memory>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace memscope::suites {
namespace {

namespace hg = memscope::histogram;

const char* const strategy_names[] = {"auto",     "global_atomics", "global_private", "block_smem",
                                      "cluster2", "cluster4",       "cluster8",       "cluster16",
                                      "split2",   "split4",         "split8",         "cub"};

/// auto; global_atomics; global_private (copies chosen) or privateG (G copies); block_smem;
/// clusterC; splitC; a global one (global_ for global_atomics) with the suffix _agg adds warp
/// aggregation, _win a shared-memory window.
hg::options options_for(std::string name) {
  hg::options o;
  const auto strip = [&](const std::string& suffix) {
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      return false;
    name.resize(name.size() - suffix.size());
    return true;
  };
  for (bool more = true; more;) {
    more = false;
    if (strip("_agg")) more = o.warp_aggregate = true;
    if (strip("_win")) more = o.window = true;
  }
  const auto number = [&](const std::string& digits, const char* what) {
    if (digits.empty() || digits.size() > 2 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument(std::string(what) + " '" + digits + "' is not a number");
    return std::stoi(digits);
  };
  const auto global_only = [&] {
    if ((o.warp_aggregate || o.window) && o.kind != hg::strategy::global_atomics &&
        o.kind != hg::strategy::global_private)
      throw std::invalid_argument("_agg and _win apply to global_atomics, global_private and privateG only");
    return o;
  };
  if (name == "auto") return global_only();
  if (name == "global_atomics" || ((o.warp_aggregate || o.window) && name == "global"))
    return o.kind = hg::strategy::global_atomics, global_only();
  if (name == "global_private") return o.kind = hg::strategy::global_private, global_only();
  if (name == "block_smem") return o.kind = hg::strategy::block_smem, global_only();
  if (name.rfind("private", 0) == 0) {
    o.kind = hg::strategy::global_private;
    o.copies = number(name.substr(7), "copies");
    throw_if_error(hg::try_check_copies(o.copies));
    return o;
  }
  const auto sized = [&](hg::strategy kind, const std::string& size) {
    for (const char* c : {"1", "2", "4", "8", "16"})
      if (size == c) {
        o.kind = kind;
        o.cluster_size = std::stoi(size);
        return global_only();
      }
    throw std::invalid_argument("cluster size '" + size + "' is not 1, 2, 4, 8 or 16");
  };
  if (name.rfind("cluster", 0) == 0) return sized(hg::strategy::cluster_dsmem, name.substr(7));
  if (name.rfind("split", 0) == 0) return sized(hg::strategy::cluster_split, name.substr(5));
  throw std::invalid_argument("unknown histogram strategy '" + name + "'");
}

std::string distribution_list() {
  std::string all;
  for (const auto& d : hg::input_shapes) all += std::string(all.empty() ? "" : ", ") + d.name;
  return all;
}

void check_distribution(const std::string& v) {
  if (!hg::find_input_shape(v)) throw usage_error("histogram distribution '" + v + "': one of " + distribution_list());
}

/// cub::DeviceHistogram::HistogramEven or HistogramRange with its temporary storage, for the
/// same-run ratio.
template <class T, class LevelT, class CounterT>
struct cub_histogram {
  const T* samples;
  CounterT* histogram;
  int levels;
  LevelT lower, upper;
  const LevelT* d_levels;  // HistogramRange where not null
  std::int64_t n;
  std::size_t temp_bytes = 0;
  device_buffer<unsigned char> temp;

  cub_histogram(const T* s, CounterT* h, int l, LevelT lo, LevelT hi, const LevelT* range, std::int64_t count)
      : samples(s), histogram(h), levels(l), lower(lo), upper(hi), d_levels(range), n(count) {
    call(nullptr, nullptr);
    temp = device_buffer<unsigned char>(temp_bytes);
  }
  void operator()(cudaStream_t s) { call(temp.data(), s); }

 private:
  void call(void* t, cudaStream_t s) {
    if (d_levels != nullptr)
      MEMSCOPE_CUDA_CALL(
          cub::DeviceHistogram::HistogramRange(t, temp_bytes, samples, histogram, levels, d_levels, n, s));
    else
      MEMSCOPE_CUDA_CALL(
          cub::DeviceHistogram::HistogramEven(t, temp_bytes, samples, histogram, levels, lower, upper, n, s));
  }
};

/// The plan's kind as a stable label: global, block, cluster (the seed's DSMEM layout), split.
std::string strategy_tag(hg::strategy k) {
  switch (k) {
    case hg::strategy::global_atomics:
      return "global";
    case hg::strategy::global_private:
      return "private";
    case hg::strategy::block_smem:
      return "block";
    case hg::strategy::cluster_dsmem:
      return "cluster";
    case hg::strategy::cluster_split:
      return "split";
    default:
      return "auto";
  }
}

std::string plan_label(const std::string& tag, int cluster_size) {
  if (tag == "global") return "global atomics";
  if (tag == "private") return fmt::format("{} copies in global memory", cluster_size);
  if (tag == "block") return "block shared memory";
  if (tag == "cluster") return fmt::format("DSMEM cluster of {}", cluster_size);
  if (tag == "split") return fmt::format("split cluster of {}", cluster_size);
  return tag;
}

/// The levels a case bins over: [0, 1) for floating point, [0, 2^24) for 32-bit integers,
/// and for 8-bit samples int levels [0, 256) (CUB's image histogram: 256 bins of 8-bit values).
template <class T, class LevelT>
struct case_levels {
  LevelT lower, upper;
  static case_levels get() {
    if constexpr (sizeof(T) == 1) return {LevelT(0), LevelT(256)};
    else return {static_cast<LevelT>(hg::sample_range<T>::lower), static_cast<LevelT>(hg::sample_range<T>::upper)};
  }
};

/// The reference counts of the input the points of one comparison share: every strategy bins
/// the same samples (the baseline gives them one seed) and plan_run runs them back to back, so
/// the last input's counts are kept and each input is counted once. `memscope verify` counts
/// on the host (an independent path through the CPU); a run counts on the GPU, where copying a
/// gigabyte of samples out would cost more than every measurement of them.
class reference_cache {
 public:
  /// The counts of `input` (everything that decides them but the seed and counter type),
  /// from `count()` when the input is not the last one's; valid until the next call.
  template <class CountT, class Count>
  const std::vector<CountT>& get(case_state& st, const std::string& input, Count&& count) {
    const std::string key = fmt::format("{}|{}|{}|{}", st.result().id(), typeid(CountT).name(), input, st.seed());
    const auto& counts = kept_.get(
        key, [&] { return std::shared_ptr<const void>(std::make_shared<const std::vector<CountT>>(count())); });
    return *std::static_pointer_cast<const std::vector<CountT>>(counts);
  }

 private:
  last_kept<std::shared_ptr<const void>> kept_;  // the counts' type is in the key
};

reference_cache& references() {
  static reference_cache cache;
  return cache;
}

/// One point: memscope (a strategy) or CUB, even or range bins, checked against the
/// reference counts of the very samples binned, then timed.
template <class T, class LevelT, class CounterT>
void histogram_case(case_state& st) {
  const auto n = static_cast<std::size_t>(st.get_int("samples"));
  const int bins = static_cast<int>(st.get_int("bins"));
  const std::string& strategy = st.get_string("strategy");
  const bool range = st.has_axis("interface") && st.get_string("interface") == "range";
  const auto shape = hg::find_input_shape(st.has_axis("distribution") ? st.get_string("distribution") : "uniform")
                         .value_or(hg::input_shape{});
  // Named copies, not a structured binding: lambdas below capture them (C++20 to capture a binding).
  const auto levels = case_levels<T, LevelT>::get();
  const LevelT lower = levels.lower, upper = levels.upper;
  const cudaStream_t s = st.stream();
  if constexpr (sizeof(T) == 1)
    if (bins > 256) st.skip("8-bit samples take 256 distinct values: more than 256 bins would stay empty");

  hg::options opt;
  if (strategy != "cub") {
    opt = options_for(strategy);
    try {
      if (range) (void)hg::plan_for<T, hg::range_rule<T, LevelT>, CounterT>(bins, static_cast<std::int64_t>(n), opt);
      else (void)hg::plan_for<T, hg::even_rule<T, LevelT>, CounterT>(bins, static_cast<std::int64_t>(n), opt);
    } catch (const hg::unsupported& e) {
      st.skip(e.what());
    }
  }
  // Range levels: the even levels as an array, so the two interfaces bin alike and the ratio
  // between them is the binary search's cost.
  std::vector<LevelT> h_levels;
  device_buffer<LevelT> d_levels;
  if (range) {
    h_levels.resize(static_cast<std::size_t>(bins) + 1);
    for (int b = 0; b <= bins; ++b)
      h_levels[static_cast<std::size_t>(b)] = static_cast<LevelT>(
          static_cast<double>(lower) + (static_cast<double>(upper) - static_cast<double>(lower)) * b / bins);
    d_levels = device_buffer<LevelT>(h_levels.size());
    MEMSCOPE_CUDA_CALL(
        cudaMemcpy(d_levels.data(), h_levels.data(), h_levels.size() * sizeof(LevelT), cudaMemcpyHostToDevice));
  }

  device_buffer<T> samples(n);
  device_buffer<CounterT> histogram(static_cast<std::size_t>(bins));
  hg::make_samples(samples.data(), n, shape, bins, st.seed(), s);
  hg::plan ran;
  std::function<void(cudaStream_t)> launch;
  std::unique_ptr<cub_histogram<T, LevelT, CounterT>> cub;
  const auto count = static_cast<std::int64_t>(n);
  if (strategy == "cub") {
    cub = std::make_unique<cub_histogram<T, LevelT, CounterT>>(samples.data(), histogram.data(), bins + 1, lower, upper,
                                                               range ? d_levels.data() : nullptr, count);
    launch = [&](cudaStream_t st_) { (*cub)(st_); };
  } else if (range) {
    launch = [&](cudaStream_t st_) {
      ran = hg::histogram_range(samples.data(), histogram.data(), bins + 1, d_levels.data(), count, st_, opt);
    };
  } else {
    launch = [&](cudaStream_t st_) {
      ran = hg::histogram_even(samples.data(), histogram.data(), bins + 1, lower, upper, count, st_, opt);
    };
  }

  const auto counted = [&]() -> std::vector<CounterT> {
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));  // the case stream does not order with cudaMemcpy
    if (st.verify_only()) {
      const std::vector<T> h_samples = samples.to_host();
      if (range)
        return hg::histogram_reference<CounterT>(h_samples.data(), n,
                                                 hg::make_range_rule<T>(bins + 1, h_levels.data()));
      return hg::histogram_reference<CounterT>(h_samples.data(), n, hg::make_even_rule<T>(bins + 1, lower, upper));
    }
    device_buffer<CounterT> d_want(static_cast<std::size_t>(bins));
    if (range)
      hg::histogram_reference_on_device(samples.data(), n, hg::make_range_rule<T>(bins + 1, d_levels.data()),
                                        d_want.data(), s);
    else
      hg::histogram_reference_on_device(samples.data(), n, hg::make_even_rule<T>(bins + 1, lower, upper), d_want.data(),
                                        s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    return d_want.to_host();
  };
  const auto& want = references().get<CounterT>(
      st, fmt::format("{}|{}|{}|{}|{}", typeid(T).name(), range, bins, shape.name, n), counted);
  // Twice: the second run must overwrite the first's counts, not add to them.
  for (int round = 0; round < 2; ++round) {
    histogram.poison(s);
    launch(s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    const auto got = histogram.to_host();
    st.check(compare_exact(got.data(), got.size(), [&](std::size_t b) { return want[b]; }));
  }
  if (strategy != "cub") {  // the plan that ran, as the launcher settled it for these samples
    const bool clustered = ran.kind == hg::strategy::cluster_dsmem || ran.kind == hg::strategy::cluster_split;
    st.add_label("plan_strategy", strategy_tag(ran.kind));
    st.add_label("plan", plan_label(strategy_tag(ran.kind), clustered ? ran.cluster_size : ran.copies) +
                             (ran.byte_values ? ", raw 8-bit values" : "") +
                             (ran.warp_aggregate ? ", warp-aggregated" : "") +
                             (ran.window_bins > 0 ? fmt::format(", {}-bin window", ran.window_bins) : std::string()));
    st.add_metric("plan_cluster_size", clustered ? ran.cluster_size : 0);
    st.add_metric("smem_per_block", static_cast<double>(ran.smem_bytes + static_cast<std::size_t>(ran.window_bins) *
                                                                             sizeof(std::uint32_t)));
    st.add_metric("plan_copies", ran.kind == hg::strategy::global_private ? ran.copies : 1);
    st.add_metric("plan_window_bins", ran.window_bins);
    st.add_metric("plan_warp_aggregate", ran.warp_aggregate ? 1 : 0);
  }
  st.add_bytes_read(n * sizeof(T));
  st.add_elements(n);
  st.exec(launch);
}

/// Sample type (and the level type CUB users pair with it) and counter width from the axes.
void histogram_body(case_state& st) {
  const std::string& type = st.get_string("type");
  const bool wide = st.has_axis("counter") && st.get_string("counter") == "u64";
  const auto with_counter = [&](auto sample, auto level) {
    using T = decltype(sample);
    using L = decltype(level);
    if (wide) histogram_case<T, L, unsigned long long>(st);
    else histogram_case<T, L, std::uint32_t>(st);
  };
  if (type == "f32") with_counter(float{}, float{});
  else if (type == "i32") with_counter(int{}, int{});
  else if (type == "u8") with_counter(std::uint8_t{}, int{});
  else if (type == "f64") with_counter(double{}, double{});
  else throw usage_error("histogram type '" + type + "': f32, i32, u8 or f64");
}

/// CUB's image forms: interleaved channels (MultiHistogramEven) and pitched rows (the 2D
/// forms), memscope against CUB on the same pixels. Pitched rows are `width` pixels wide
/// (3001 unless asked) with the pitch rounded up to 512 bytes, as cudaMallocPitch pads; the
/// padding is never counted.
constexpr std::size_t k_default_width = 3001;  // odd, so no row of any sample type is whole vectors

/// `fill(samples, count, stream)` writes the pixels' samples; `source` names them for the
/// reference cache (the same seed fills synthetic pixels alike, a photograph's name its own).
template <class T, int Channels, int Active, class Fill>
void pixels_case(case_state& st, const Fill& fill, const std::string& source) {
  using LevelT = std::conditional_t<sizeof(T) == 1, int, T>;
  using CounterT = std::uint32_t;
  const auto pixels = static_cast<std::size_t>(st.get_int("pixels"));
  const int bins = static_cast<int>(st.get_int("bins"));
  const std::string& strategy = st.get_string("strategy");
  const bool pitched = st.has_axis("layout") && st.get_string("layout") == "pitched";
  const auto width = st.has_axis("width") ? static_cast<std::size_t>(st.get_int("width")) : k_default_width;
  const cudaStream_t s = st.stream();
  if constexpr (sizeof(T) == 1)
    if (bins > 256) st.skip("8-bit samples take 256 distinct values: more than 256 bins would stay empty");
  if (!pitched && width != k_default_width)
    st.skip(fmt::format(
        "contiguous pixels have no rows: the width applies to the pitched layout (contiguous runs at width {})",
        k_default_width));
  const std::size_t row_pixels = pitched ? std::min(pixels, width) : pixels;
  const std::size_t rows = pitched ? (pixels == 0 ? 0 : ceil_div(pixels, width)) : 1;
  if (strategy == "cub" && pitched && rows > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    st.skip(fmt::format("CUB's pitched forms count rows in an int: {} rows are more", rows));
  const std::size_t row_bytes = row_pixels * Channels * sizeof(T);
  const std::size_t pitch = pitched ? ceil_div(row_bytes, std::size_t{512}) * 512 : row_bytes;
  const std::size_t elems = std::max<std::size_t>(1, rows * pitch / sizeof(T));
  const auto levels = case_levels<T, LevelT>::get();
  const LevelT lower = levels.lower, upper = levels.upper;
  cuda::std::array<int, Active> num_levels;
  cuda::std::array<LevelT, Active> lo, hi;
  for (int a = 0; a < Active; ++a) num_levels[a] = bins + 1, lo[a] = lower, hi[a] = upper;
  hg::options opt;
  if (strategy != "cub") opt = options_for(strategy);

  device_buffer<T> samples(elems);
  fill(samples.data(), elems, s);
  std::vector<device_buffer<CounterT>> outs;
  cuda::std::array<CounterT*, Active> ptrs;
  for (int a = 0; a < Active; ++a) {
    outs.emplace_back(static_cast<std::size_t>(bins));
    ptrs[a] = outs.back().data();
  }
  const auto rows_i = static_cast<std::int64_t>(rows), row_i = static_cast<std::int64_t>(row_pixels);
  std::size_t temp_bytes = 0;
  device_buffer<unsigned char> temp;
  hg::plan ran;
  const auto call = [&](void* t, cudaStream_t st_) {
    if (strategy == "cub") {
      if (pitched)
        MEMSCOPE_CUDA_CALL((cub::DeviceHistogram::MultiHistogramEven<Channels, Active>(
            t, temp_bytes, samples.data(), ptrs, num_levels, lo, hi, static_cast<int>(row_i), static_cast<int>(rows_i),
            pitch, st_)));
      else
        MEMSCOPE_CUDA_CALL((cub::DeviceHistogram::MultiHistogramEven<Channels, Active>(
            t, temp_bytes, samples.data(), ptrs, num_levels, lo, hi, static_cast<std::int64_t>(pixels), st_)));
    } else if (pitched) {
      ran = hg::multi_histogram_even<Channels, Active>(t, temp_bytes, samples.data(), ptrs, num_levels, lo, hi, row_i,
                                                       rows_i, pitch, st_, opt);
    } else {
      ran = hg::multi_histogram_even<Channels, Active>(t, temp_bytes, samples.data(), ptrs, num_levels, lo, hi,
                                                       static_cast<std::int64_t>(pixels), st_, opt);
    }
  };
  try {
    call(nullptr, s);
  } catch (const hg::unsupported& e) {
    st.skip(e.what());
  }
  temp = device_buffer<unsigned char>(temp_bytes);
  const std::function<void(cudaStream_t)> launch = [&](cudaStream_t st_) { call(temp.data(), st_); };

  hg::even_rule<T, LevelT> rules[Active];
  for (auto& r : rules) r = hg::make_even_rule<T>(bins + 1, lower, upper);
  // Every channel's counts in one array, channel a's from a * bins.
  const auto counted = [&]() -> std::vector<CounterT> {
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    std::vector<CounterT> all;
    if (st.verify_only()) {
      const std::vector<T> h = samples.to_host();
      for (auto& c :
           hg::multi_histogram_reference<CounterT, Channels>(h.data(), rows, row_pixels, pitch / sizeof(T), rules))
        all.insert(all.end(), c.begin(), c.end());
      return all;
    }
    device_buffer<CounterT> d_want(static_cast<std::size_t>(bins) * Active);
    hg::multi_histogram_reference_on_device<CounterT, Channels>(samples.data(), rows, row_pixels, pitch / sizeof(T),
                                                                rules, d_want.data(), s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    return d_want.to_host();
  };
  const auto& want = references().get<CounterT>(
      st,
      fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", source, typeid(T).name(), Channels, Active, bins, rows, row_pixels, pitch),
      counted);
  for (int round = 0; round < 2; ++round) {
    for (auto& o : outs) o.poison(s);
    launch(s);
    MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
    for (int a = 0; a < Active; ++a) {
      const auto got = outs[a].to_host();
      const std::size_t first = static_cast<std::size_t>(a) * static_cast<std::size_t>(bins);
      st.check(compare_exact(got.data(), got.size(), [&](std::size_t b) { return want[first + b]; }));
    }
  }
  if (strategy != "cub") {
    st.add_label("plan_strategy", strategy_tag(ran.kind));
    st.add_label("plan", plan_label(strategy_tag(ran.kind),
                                    ran.kind == hg::strategy::global_private ? ran.copies : ran.cluster_size) +
                             (ran.byte_values ? ", raw 8-bit values" : ""));
  }
  st.add_bytes_read(rows * row_bytes);
  st.add_elements(rows * row_pixels);
  st.exec(launch);
}

template <class T, int Channels, int Active>
struct synthetic_pixels {
  void operator()(case_state& st) const {
    const int bins = static_cast<int>(st.get_int("bins"));
    const std::uint64_t seed = st.seed();
    pixels_case<T, Channels, Active>(
        st, [&](T* d, std::size_t n, cudaStream_t s) { hg::make_samples(d, n, hg::input_shape{}, bins, seed, s); },
        "synthetic");
  }
};

template <class T, int Channels, int Active>
struct photo_pixels_of {
  void operator()(case_state& st) const {
    const auto& photo = load_photo(st, st.get_string("photo"));
    pixels_case<T, Channels, Active>(
        st, [&](T* d, std::size_t n, cudaStream_t s) { photo_pixels<T, Channels>(photo, d, n, s); }, photo.name);
  }
};

template <template <class, int, int> class Body>
void image_body(case_state& st) {
  const std::string& image = st.get_string("image");
  if (image == "rgba_u8") Body<std::uint8_t, 4, 3>{}(st);
  else if (image == "gray_u8") Body<std::uint8_t, 1, 1>{}(st);
  else if (image == "gray_f32") Body<float, 1, 1>{}(st);
  else if (image == "rgb_f32") Body<float, 3, 3>{}(st);
  else throw usage_error("histogram image '" + image + "': rgba_u8, gray_u8, gray_f32 or rgb_f32");
}

void pixels_body(case_state& st) { image_body<synthetic_pixels>(st); }
void photos_body(case_state& st) { image_body<photo_pixels_of>(st); }

std::uint64_t histogram_footprint(const axis_point& p) {
  // Samples, the output, and CUB's per-block private histograms beyond 256 bins.
  if (p.has("pixels")) {  // up to 4 samples of 4 bytes a pixel, the channels' outputs, and pitched rows' padding
    const auto pixels = static_cast<std::uint64_t>(p.get_int("pixels"));
    std::uint64_t padded = 0;
    if (p.has("layout") && p.get_string("layout") == "pitched") {
      const std::uint64_t width = std::min<std::uint64_t>(pixels, static_cast<std::uint64_t>(p.get_int("width")));
      if (width > 0) padded = ceil_div(pixels, width) * ceil_div(width * 16, std::uint64_t{512}) * 512;
    }
    return pixels * 20 + padded + static_cast<std::uint64_t>(p.get_int("bins")) * 64 + (1 << 20);
  }
  const auto n = static_cast<std::uint64_t>(p.get_int("samples"));
  const auto bins = static_cast<std::uint64_t>(p.get_int("bins"));
  const std::uint64_t sample_bytes = p.has("type") && p.get_string("type") == "f64" ? 8 : 4;
  const std::uint64_t counter_bytes = p.has("counter") && p.get_string("counter") == "u64" ? 8 : 4;
  return n * sample_bytes + bins * counter_bytes * 1100 + (1 << 20);
}

void check_strategy(const std::string& v) {
  if (v == "cub") return;
  try {
    options_for(v);
  } catch (const std::exception& e) {
    throw usage_error("histogram strategy '" + v + "' (" + e.what() +
                      "): auto, global_atomics, global_private, privateG (G = 1, 2, 4 .. 64), block_smem, clusterC, "
                      "splitC (C = 1, 2, 4, 8, 16), a global one with _agg, or cub");
  }
}

axis strategy_axis(std::vector<std::string> values) {
  return axis::strings(
             "strategy", std::move(values),
             "memscope's automatic choice; global atomics; G copies of the counters in global memory; one "
             "block's shared memory; a cluster of C blocks sharing the bins through DSMEM (remote atomics); a "
             "cluster of C blocks splitting the bin range, each reading every sample; CUB HistogramEven")
      .with_validator(check_strategy);
}

axis type_axis(std::vector<std::string> values) {
  return axis::strings(
             "type", std::move(values),
             "sample type: f32/f64 in [0, 1), i32 in [0, 2^24), u8 with int levels [0, 256) (256 bins at most)")
      .with_verify({std::string("f32"), std::string("i32"), std::string("u8"), std::string("f64")})
      .with_validator([](const std::string& v) {
        if (v != "f32" && v != "i32" && v != "u8" && v != "f64")
          throw usage_error("histogram type takes f32, i32, u8 or f64");
      });
}

std::vector<std::string> all_distributions() {
  std::vector<std::string> v;
  for (const auto& d : hg::input_shapes) v.emplace_back(d.name);
  return v;
}

axis distribution_axis(std::vector<std::string> values) {
  return axis::strings(
             "distribution", std::move(values),
             "uniform; normal bells (standard deviation 1/16 of the range, 10%, 1%, 0.1%); Zipf with exponent "
             "0.5-2 (hot bins scattered); sorted and reverse-sorted; 4 hot bins; hot/uniform runs alternating; "
             "90% out of range; 90% NaN; all in one bin; dirty (NaN, infinities, out of range)")
      .with_verify([] {
        std::vector<axis_value> v;
        for (const auto& d : all_distributions()) v.emplace_back(d);
        return v;
      }())
      .with_validator(check_distribution);
}

/// "a 2-block split cluster": the plan as the findings name it.
std::string plan_phrase(const case_result& r) {
  const auto tag = r.label("plan_strategy");
  const int c = static_cast<int>(r.metric("plan_cluster_size"));
  if (tag == "global") return "global atomics";
  if (tag == "private") return fmt::format("{} copies in global memory", static_cast<int>(r.metric("plan_copies")));
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

/// The automatic choice's rows of a case against CUB: at the largest sample count, per type.
present::row_list auto_rows(const present::suite_view& v, const char* case_name) {
  return v.rows([&](const case_result& r) {
    return r.name == case_name && r.string_axis("strategy") == "auto" && r.metrics.count("speedup_vs_cub") != 0;
  });
}

/// The rows' worst, median and best speedup over CUB (worst and best are null for no rows).
struct cub_spread {
  const case_result* worst = nullptr;
  const case_result* best = nullptr;
  double median = 0;
};
cub_spread spread_vs_cub(const present::row_list& rows) {
  const auto ratio = present::metric_of("speedup_vs_cub");
  cub_spread s{present::worst_by(rows, ratio), present::best_by(rows, ratio), 0};
  std::vector<double> all;
  for (const auto* r : rows) all.push_back(r->metric("speedup_vs_cub"));
  std::sort(all.begin(), all.end());
  if (!all.empty()) s.median = all[all.size() / 2];
  return s;
}

/// Per bin count, the worst input for the automatic choice against CUB (the figure a library
/// is judged by), with the median and best beside it.
void adversarial_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto rows = auto_rows(v, "adversarial");
  if (rows.empty()) return;
  const auto n = present::largest(rows, "samples");
  const case_result* overall = nullptr;
  for (const auto& type : present::string_values(rows, "type"))
    for (const auto b : present::int_values(rows, "bins")) {
      const auto at = present::filter(rows, [&](const case_result& r) {
        return r.int_axis("samples") == n && r.int_axis("bins") == b && r.string_axis("type") == type;
      });
      const auto s = spread_vs_cub(at);
      if (!s.worst || !s.best) continue;
      out.push_back(
          fmt::format("{} bins, {} {} samples, {} input shapes: automatic choice ({}) worst {:.2f}x CUB HistogramEven "
                      "({}), median {:.2f}x, best {:.2f}x ({})",
                      b, n, type, at.size(), s.worst->label("plan"), s.worst->metric("speedup_vs_cub"),
                      s.worst->string_axis("distribution"), s.median, s.best->metric("speedup_vs_cub"),
                      s.best->string_axis("distribution")));
      if (!overall || s.worst->metric("speedup_vs_cub") < overall->metric("speedup_vs_cub")) overall = s.worst;
    }
  if (overall)
    out.push_back(fmt::format("worst point of the adversarial set: {} bins, {} samples ({}): {:.2f}x CUB ({})",
                              overall->int_axis("bins").value_or(0), overall->string_axis("distribution"),
                              overall->string_axis("type"), overall->metric("speedup_vs_cub"), overall->label("plan")));
}

/// Small inputs: the per-call time of the automatic choice and of CUB at the smallest count.
void sizes_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto all = v.rows(present::case_is("sizes"));
  const auto rows = auto_rows(v, "sizes");
  if (rows.empty()) return;
  const std::int64_t smallest = present::smallest(rows, "samples");
  const auto* worst = present::worst_by(rows, present::metric_of("speedup_vs_cub"));
  for (const auto b : present::int_values(rows, "bins")) {
    const auto mine = present::filter(rows, [&](const case_result& r) {
      return r.int_axis("bins") == b && r.int_axis("samples") == smallest && r.string_axis("distribution") == "uniform";
    });
    const auto cub = present::filter(all, [&](const case_result& r) {
      return r.int_axis("bins") == b && r.int_axis("samples") == smallest &&
             r.string_axis("distribution") == "uniform" && r.string_axis("strategy") == "cub";
    });
    if (mine.empty() || cub.empty()) continue;
    out.push_back(
        fmt::format("{} bins, {} samples per call: automatic choice {} per histogram, CUB HistogramEven {} ({:.2f}x)",
                    b, smallest, format_seconds(mine.front()->stats.median), format_seconds(cub.front()->stats.median),
                    mine.front()->metric("speedup_vs_cub")));
  }
  if (worst)
    out.push_back(fmt::format(
        "sample counts {}..{}: the automatic choice's worst point {:.2f}x CUB ({} bins, {} samples, {})", smallest,
        present::largest(rows, "samples"), worst->metric("speedup_vs_cub"), worst->int_axis("bins").value_or(0),
        worst->int_axis("samples").value_or(0), worst->string_axis("distribution")));
}

/// The axes that name a row in a finding: a function of the row, since an axis can mean nothing
/// for some rows (a contiguous image has no row width).
using axes_of = std::function<std::vector<std::string>(const case_result&)>;

/// CUB's other forms (level ranges, sample and counter types, pixel layouts): the automatic
/// choice against CUB over every point of the case, the worst and best named by `axes`.
void forms_findings(const present::suite_view& v, const char* case_name, const axes_of& axes, const char* what,
                    std::vector<std::string>& out) {
  const auto rows = auto_rows(v, case_name);
  const auto s = spread_vs_cub(rows);
  if (!s.worst || !s.best) return;
  out.push_back(fmt::format("{}, {} points: automatic choice worst {:.2f}x CUB ({}), median {:.2f}x, best {:.2f}x ({})",
                            what, rows.size(), s.worst->metric("speedup_vs_cub"),
                            present::axes_text(*s.worst, axes(*s.worst)), s.median, s.best->metric("speedup_vs_cub"),
                            present::axes_text(*s.best, axes(*s.best))));
}

std::vector<std::string> pixels_axes(const case_result& r) {
  if (r.string_axis("layout") == "pitched") return {"image", "layout", "width", "bins"};
  return {"image", "layout", "bins"};
}

/// Photographs: per image format, the automatic choice's worst ratio to CUB over every
/// photograph and size, with the per-call times at the smallest size.
void photos_findings(const present::suite_view& v, std::vector<std::string>& out) {
  forms_findings(
      v, "photos",
      [](const case_result&) {
        return std::vector<std::string>{"photo", "image", "pixels"};
      },
      "photographs (CUB's interleaved form)", out);
  const auto rows = auto_rows(v, "photos");
  for (const std::string image : {"rgba_u8", "gray_u8", "gray_f32", "rgb_f32"}) {
    const auto mine = present::filter(rows, present::axis_is("image", image));
    const auto* worst = present::worst_by(mine, present::metric_of("speedup_vs_cub"));
    if (!worst) continue;
    const std::int64_t smallest = present::smallest(mine, "pixels");
    const auto small = present::filter(mine, [&](const case_result& r) { return r.int_axis("pixels") == smallest; });
    const auto* slow = present::worst_by(small, present::metric_of("speedup_vs_cub"));
    out.push_back(
        fmt::format("photographs {}: automatic choice worst {:.2f}x CUB ({}, {} pixels, {}); at {} pixels "
                    "worst {:.2f}x ({}: {} a call)",
                    image, worst->metric("speedup_vs_cub"), worst->string_axis("photo"),
                    worst->int_axis("pixels").value_or(0), worst->label("plan"), smallest,
                    slow->metric("speedup_vs_cub"), slow->string_axis("photo"), format_seconds(slow->stats.median)));
  }
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
      text += fmt::format("; fastest forced strategy {} {:.2f}x", best->string_axis("strategy"),
                          best->metric("speedup_vs_cub"));
    if (const auto* skew = at_bins(even_rows(v, "one_bin", "auto"), b))
      text += fmt::format("; all samples in one bin: {:.2f}x", skew->metric("speedup_vs_cub"));
    out.push_back(text);
  }
  adversarial_findings(v, out);
  sizes_findings(v, out);
  forms_findings(
      v, "interfaces",
      [](const case_result&) {
        return std::vector<std::string>{"interface", "type", "counter", "bins"};
      },
      "CUB's interface beyond float even bins (level ranges, u8/i32/f64 samples, 64-bit counters)", out);
  forms_findings(v, "pixels", pixels_axes, "CUB's image forms (interleaved channels, pitched rows)", out);
  photos_findings(v, out);
  const auto seed = v.rows(present::case_is("seed_table"));
  if (!seed.empty()) {
    std::string text = "the seed's table (10M floats, 2048 bins):";
    for (const auto* r : seed)
      text += fmt::format(" {} {}", r->string_axis("strategy"), format_seconds(r->stats.median));
    out.push_back(text);
  }
}

std::optional<present::fact_value> grid_counters_fact(const present::suite_view& v, std::optional<double> bins) {
  const auto rows = even_rows(v, "uniform", "auto");
  const auto* r =
      bins ? present::nearest(rows, "bins", *bins) : present::best_by(rows, present::metric_of("speedup_vs_cub"));
  if (!r) return std::nullopt;
  present::fact_value f{
      fmt::format("histogram of {} uniform samples into {} bins: memscope's automatic choice ({}) {:.2f}x CUB "
                  "HistogramEven",
                  r->int_axis("samples").value_or(0), r->int_axis("bins").value_or(0), r->label("plan"),
                  r->metric("speedup_vs_cub")),
      r->metric("speedup_vs_cub"), r->label("plan_strategy"), ""};
  // The worst input shape measured at that bin count, where the adversarial set ran.
  const auto shapes = present::filter(auto_rows(v, "adversarial"),
                                      [&](const case_result& a) { return a.int_axis("bins") == r->int_axis("bins"); });
  if (const auto* worst = present::worst_by(shapes, present::metric_of("speedup_vs_cub")))
    f.text += fmt::format("; on its worst input shape ({}) {:.2f}x", worst->string_axis("distribution"),
                          worst->metric("speedup_vs_cub"));
  if (bins && static_cast<double>(r->int_axis("bins").value_or(0)) != std::round(*bins))
    f.nearest_note = fmt::format("nearest measured bin count to {:.0f}: {}", *bins, r->int_axis("bins").value_or(0));
  return f;
}

std::optional<present::fact_value> grid_counters_by_size_fact(const present::suite_view& v, std::optional<double>) {
  const auto rows = even_rows(v, "uniform", "auto");
  if (rows.empty()) return std::nullopt;
  std::string text = "automatic choice against CUB HistogramEven, uniform samples:";
  for (const auto b : present::int_values(rows, "bins"))
    text += fmt::format(" {} bins {:.2f}x ({}),", b, at_bins(rows, b)->metric("speedup_vs_cub"),
                        at_bins(rows, b)->label("plan"));
  text.pop_back();
  return present::fact_value{text, 0, "", ""};
}

std::optional<present::fact_value> remote_atomics_fact(const present::suite_view& v, std::optional<double>) {
  const auto dsmem = even_rows(v, "uniform", "cluster2"), split = even_rows(v, "uniform", "split2");
  // At the measured bin count nearest 2^16, where both layouts run.
  const auto both = present::filter(
      dsmem, [&](const case_result& r) { return at_bins(split, r.int_axis("bins").value_or(0)) != nullptr; });
  const auto* d = present::nearest(both, "bins", 65536);
  if (!d) return std::nullopt;
  const auto* s = at_bins(split, d->int_axis("bins").value_or(0));
  return present::fact_value{
      fmt::format("the seed's DSMEM layout (bins spread over a cluster, remote atomics) measured {:.2f}x CUB at {} "
                  "bins against "
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

/// Speed relative to CUB against an integer axis (log-log), one line per `line_axis` value.
present::chart_spec ratio_lines(std::string title, present::row_pred keep, std::string fixed, std::string panel,
                                const std::string& line_axis, const std::string& x_axis) {
  present::chart_spec c;
  c.kind = present::chart_kind::lines;
  c.title = std::move(title);
  c.keep = std::move(keep);
  c.fixed_axis = std::move(fixed);
  c.panel_axis = std::move(panel);
  c.label = present::label_axes({line_axis});
  c.x = present::int_axis_of(x_axis);
  c.y = present::metric_of("speedup_vs_cub");
  c.x_label = x_axis;
  c.y_label = "x CUB (higher is better)";
  c.x_scale = present::scale::log2;
  c.y_scale = present::scale::log10;
  return c;
}

}  // namespace

void register_histogram(registry& reg) {
  suite s{reg, "histogram", "histogram_even against CUB HistogramEven"};
  s.add("even", histogram_body)
      .summary("histogram_even over n samples: every strategy and CUB HistogramEven, counts checked exactly")
      .axis(strategy_axis({std::begin(strategy_names), std::end(strategy_names)})
                .with_verify({std::string("auto"), std::string("global_atomics"), std::string("global_agg"),
                              std::string("global_private"), std::string("private2"), std::string("private64_agg"),
                              std::string("global_win"), std::string("private4_agg_win"), std::string("block_smem"),
                              std::string("cluster1"), std::string("cluster2"), std::string("cluster16"),
                              std::string("split1"), std::string("split2"), std::string("split16"), std::string("cub")})
                .with_validator(check_strategy))
      .axis(axis::integers("bins", {256, 4096, 16384, 65536, 262144, 524288, 1048576},
                           "bins (num_levels - 1); 2^20 is past the largest cluster's shared memory")
                .with_range(1, hg::policy::max_bins)
                .with_verify({std::int64_t{1}, std::int64_t{255}, std::int64_t{4099}, std::int64_t{65536},
                              std::int64_t{524289}}))
      .axis(distribution_axis({"uniform", "normal", "one_bin"}))
      .axis(type_axis({"f32"}))
      .axis(axis::pow2("samples", {28}, "samples binned")
                .with_quick({std::int64_t{1} << 26})
                .with_range(0, hg::policy::max_samples)
                .with_verify({std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{1000003}}))
      .footprint(histogram_footprint)
      .baseline("strategy", std::string("cub"), "speedup_vs_cub");
  s.add("adversarial", histogram_body)
      .summary(
          "the automatic choice against CUB HistogramEven on every input shape: skews, sorted data, hot bins, "
          "out-of-range and NaN-heavy samples")
      .axis(strategy_axis({"auto", "cub"}))
      .axis(axis::integers("bins", {256, 4096, 16384, 65536, 262144, 1048576}, "bins (num_levels - 1)")
                .with_range(1, hg::policy::max_bins)
                .with_verify({std::int64_t{7}, std::int64_t{65536}, std::int64_t{262147}}))
      .axis(distribution_axis(all_distributions()))
      .axis(type_axis({"f32"}))
      .axis(axis::pow2("samples", {28}, "samples binned")
                .with_quick({std::int64_t{1} << 24})
                .with_range(0, hg::policy::max_samples)
                .with_verify({std::int64_t{1000003}}))
      .footprint(histogram_footprint)
      .baseline("strategy", std::string("cub"), "speedup_vs_cub");
  s.add("sizes", histogram_body)
      .summary(
          "the automatic choice against CUB HistogramEven from 2^10 to 2^30 samples: per-call cost of small "
          "histograms, bandwidth of large ones")
      .axis(strategy_axis({"auto", "cub"}))
      .axis(axis::integers("bins", {256, 16384, 262144, 1048576}, "bins (num_levels - 1)")
                .with_range(1, hg::policy::max_bins)
                .with_verify({std::int64_t{256}, std::int64_t{1048576}}))
      .axis(distribution_axis({"uniform", "zipf_1.5", "normal_0.1pct"}))
      .axis(type_axis({"f32"}).with_verify({std::string("f32")}))
      .axis(axis::pow2("samples", {10, 14, 18, 22, 26, 30}, "samples binned")
                .with_quick({std::int64_t{1} << 10, std::int64_t{1} << 16, std::int64_t{1} << 22})
                .with_range(0, hg::policy::max_samples)
                .with_verify({std::int64_t{1} << 10, std::int64_t{1} << 14}))
      .footprint(histogram_footprint)
      .baseline("strategy", std::string("cub"), "speedup_vs_cub");
  s.add("interfaces", histogram_body)
      .summary(
          "CUB's interface beyond float even bins: HistogramRange (binary search over a level array), 8-bit "
          "samples with int levels, double samples, 64-bit counters; memscope against CUB, counts checked exactly")
      .axis(strategy_axis({"auto", "cub"}))
      .axis(
          axis::strings("interface", {"even", "range"}, "even bins (histogram_even) or a level array (histogram_range)")
              .with_validator([](const std::string& v) {
                if (v != "even" && v != "range") throw usage_error("histogram interface takes even or range");
              }))
      .axis(type_axis({"u8", "i32", "f32", "f64"}))
      .axis(axis::strings("counter", {"u32", "u64"}, "counter type: 32- or 64-bit unsigned")
                .with_validator([](const std::string& v) {
                  if (v != "u32" && v != "u64") throw usage_error("histogram counter takes u32 or u64");
                }))
      .axis(axis::integers("bins", {256, 4096, 65536}, "bins (num_levels - 1)")
                .with_range(1, hg::policy::max_bins)
                .with_verify({std::int64_t{256}, std::int64_t{4099}, std::int64_t{262147}}))
      .axis(axis::pow2("samples", {28}, "samples binned")
                .with_quick({std::int64_t{1} << 24})
                .with_range(0, hg::policy::max_samples)
                .with_verify({std::int64_t{0}, std::int64_t{1}, std::int64_t{1000003}}))
      .footprint(histogram_footprint)
      .baseline("strategy", std::string("cub"), "speedup_vs_cub");
  s.add("pixels", pixels_body)
      .summary(
          "CUB's image forms: interleaved channels (MultiHistogramEven, RGBA with 3 channels counted) and pitched "
          "rows (3001 pixels a row unless asked, 512-byte pitch); memscope against CUB, counts checked exactly")
      .axis(strategy_axis({"auto", "cub"}))
      .axis(axis::strings("image", {"rgba_u8", "gray_u8", "gray_f32", "rgb_f32"},
                          "pixels: RGBA 8-bit (levels 0..256, alpha not counted), gray 8-bit, gray float, RGB float")
                .with_validator([](const std::string& v) {
                  if (v != "rgba_u8" && v != "gray_u8" && v != "gray_f32" && v != "rgb_f32")
                    throw usage_error("histogram image takes rgba_u8, gray_u8, gray_f32 or rgb_f32");
                }))
      .axis(axis::strings("layout", {"contiguous", "pitched"},
                          "contiguous pixels, or rows of `width` pixels at a 512-byte pitch")
                .with_validator([](const std::string& v) {
                  if (v != "contiguous" && v != "pitched")
                    throw usage_error("histogram layout takes contiguous or pitched");
                }))
      .axis(axis::integers("width", {static_cast<std::int64_t>(k_default_width)},
                           "pixels a pitched row (an image's width): the pixels round up to whole rows")
                .with_range(1, std::int64_t{1} << 24)
                .with_verify({std::int64_t{7}, std::int64_t{45}, static_cast<std::int64_t>(k_default_width)}))
      .axis(axis::integers("bins", {256, 4096}, "bins per channel (num_levels - 1)")
                .with_range(1, hg::policy::max_bins)
                .with_verify({std::int64_t{256}, std::int64_t{70001}}))
      .axis(axis::pow2("pixels", {26}, "pixels binned")
                .with_quick({std::int64_t{1} << 22})
                .with_range(0, hg::policy::max_samples)
                .with_verify({std::int64_t{0}, std::int64_t{1}, std::int64_t{3001}, std::int64_t{1000003}}))
      .footprint(histogram_footprint)
      .baseline("strategy", std::string("cub"), "speedup_vs_cub");
  s.add("photos", photos_body)
      .summary(
          "CUB's interleaved image form over real photographs (python3-skimage, scripts/data.sh) tiled to "
          "2^16-2^26 pixels: RGBA 8-bit with an opaque alpha, RGB float, gray; memscope against CUB")
      .axis(strategy_axis({"auto", "cub"}))
      .axis(axis::strings("photo", {std::begin(photo_names), std::end(photo_names)},
                          "astronaut 512x512, coffee 600x400, chelsea 451x300, rocket 640x427, hubble_deep_field "
                          "1000x872, retina 1411x1411: repeated top to bottom to the pixel count")
                .with_quick({std::string("retina")})
                .with_verify({std::string("chelsea"), std::string("retina")}))
      .axis(axis::strings("image", {"rgba_u8", "gray_u8", "gray_f32", "rgb_f32"},
                          "RGBA 8-bit (alpha 255, not counted), BT.601 luma 8-bit or as float, RGB float; floats "
                          "are (v + 0.5) / 256 of the 8-bit values")
                .with_quick({std::string("rgba_u8"), std::string("rgb_f32")}))
      .axis(axis::integers("bins", {256}, "bins per channel (num_levels - 1)").with_range(1, hg::policy::max_bins))
      .axis(axis::pow2("pixels", {16, 20, 24, 26}, "pixels binned")
                .with_quick({std::int64_t{1} << 20, std::int64_t{1} << 24})
                .with_range(0, hg::policy::max_samples)
                .with_verify({std::int64_t{1}, std::int64_t{3001}, std::int64_t{1000003}}))
      .footprint(histogram_footprint)
      .baseline("strategy", std::string("cub"), "speedup_vs_cub");
  s.add("seed_table", histogram_body)
      .summary("the seed's table: 10M uniform floats into 2048 bins (its 8-block cluster holds 256 bins per block)")
      .axis(strategy_axis({"global_atomics", "block_smem", "cluster2", "cluster8", "auto", "cub"}))
      .axis(axis::integers("bins", {2048}, "bins").with_range(1, hg::policy::max_bins))
      .axis(axis::strings("distribution", {"uniform"}, "sample distribution").with_validator(check_distribution))
      .axis(type_axis({"f32"}).with_verify({std::string("f32")}))
      .axis(axis::integers("samples", {10000000}, "samples binned")
                .with_range(0, hg::policy::max_samples)
                .with_verify({std::int64_t{1000003}}))
      .footprint(histogram_footprint)
      .baseline("strategy", std::string("cub"), "speedup_vs_cub")
      .baseline("strategy", std::string("global_atomics"), "speedup_vs_global_atomics");

  // Ratio to CUB against the bin count, one line per strategy, one panel per distribution:
  // where each cluster size wins and where global atomics take over.
  const auto ratio = ratio_lines(
      "Histogram of {fixed} {panel} samples: speed relative to CUB HistogramEven",
      [](const case_result& r) { return r.name == "even" && r.string_axis("strategy") != "cub"; }, "samples",
      "distribution", "strategy", "bins");
  // Every input shape at every bin count: the worst line is the figure that matters.
  const auto adversarial = ratio_lines(
      "Automatic choice on {fixed} {panel} samples of every input shape, relative to CUB HistogramEven (below 1 CUB "
      "wins)",
      [](const case_result& r) { return r.name == "adversarial" && r.string_axis("strategy") == "auto"; }, "samples",
      "type", "distribution", "bins");
  const auto sizes = ratio_lines(
      "Automatic choice from 2^10 to 2^30 samples ({panel}), relative to CUB HistogramEven",
      [](const case_result& r) { return r.name == "sizes" && r.string_axis("strategy") == "auto"; }, "", "distribution",
      "bins", "samples");
  present::chart_spec seed;
  seed.title = "The seed's table on this GPU: 10M floats, 2048 bins";
  seed.keep = present::case_is("seed_table");
  seed.label = present::label_axes({"strategy"});
  seed.y = [](const case_result& r) { return r.stats.median * 1e6; };
  seed.y_label = "microseconds per histogram (lower is better)";
  seed.with_spread(present::time_spread(1e6), "the fastest to the slowest sample");
  seed.peer = present::axis_is("strategy", "cub");
  seed.peer_key = "CUB HistogramEven";
  s.chart(ratio).chart(adversarial).chart(sizes).chart(seed).finding(histogram_findings).upgrade(upgrade_row);
  s.fact(advise::question::grid_counters, {"even", "adversarial"},
         "counters written by the whole grid: the measured strategy at N bins", grid_counters_fact);
  s.fact(advise::question::grid_counters_by_size, {"even"},
         "the automatic choice against CUB at every measured bin count", grid_counters_by_size_fact);
  s.fact(advise::question::remote_atomics_cost, {"even"}, "remote DSMEM atomics against a split cluster",
         remote_atomics_fact);
}

MEMSCOPE_REGISTER_SUITE(110, register_histogram);

}  // namespace memscope::suites
