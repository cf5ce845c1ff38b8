#pragma once
// CUB's multi-channel histograms (MultiHistogramEven, MultiHistogramRange): samples interleave
// Channels channels (RGBA pixels: 4), the first ActiveChannels of them counted, each with its
// own levels and output. memscope bins all active channels in one pass over the pixels into
// one combined set of counters (multi_rule), run by the same strategies as one channel, and
// scatters the combined counts to the channels' outputs at the end. Direct, two-phase and try_
// forms, over contiguous pixels or pitched rows of pixels.

#include "memscope/histogram/dispatch.cuh"

#include <cuda/std/array>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace memscope::histogram {

namespace detail {

inline std::size_t align_scratch(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// One multi-channel call over `src` (its samples: pixels x Channels).
template <int Channels, int Active, class Source, class Rule, class CounterT>
status multi_run(void* d_temp, std::size_t* temp_bytes, const typename Source::value_type* d_samples, const Source& src,
                 CounterT* const* d_histogram, const multi_rule<Rule, Channels, Active>& rule, std::int64_t pixels,
                 cudaStream_t stream, const options& opt, plan& p) {
  using channels_rule = multi_rule<Rule, Channels, Active>;
  if (d_temp != nullptr || temp_bytes == nullptr) {
    if (d_histogram == nullptr) return status::invalid("multi-channel histogram: the output array is null");
    for (int a = 0; a < Active; ++a)
      if (d_histogram[a] == nullptr)
        return status::invalid("multi-channel histogram: channel " + std::to_string(a) + "'s output is null");
  }
  // One channel is the single-channel histogram: its own rule, so the same kernels run. The
  // one-channel wrapper adds each bin's channel offset, known only at run time, and ran
  // measurably slower on the same samples (docs/tuning.md, "Histogram register builds").
  using count_rule = std::conditional_t<Channels == 1, Rule, channels_rule>;
  const count_rule& counting = [&]() -> const count_rule& {
    if constexpr (Channels == 1) return rule.rules[0];
    else return rule;
  }();
  MEMSCOPE_RETURN_IF_ERROR((prepare<Source, count_rule, CounterT>(src, counting, pixels, opt, p)));
  // One active channel counts straight into its output; more count into combined counters.
  constexpr bool combine = Active > 1;
  const std::size_t combined_bytes =
      combine ? align_scratch(static_cast<std::size_t>(rule.num_bins) * sizeof(CounterT)) : 0;
  const std::size_t strategy_bytes = scratch_bytes(p, rule.num_bins, sizeof(CounterT));
  if (temp_bytes != nullptr) {
    bool query = false;
    MEMSCOPE_RETURN_IF_ERROR(
        two_phase_bytes("multi-channel histogram", d_temp, *temp_bytes, combined_bytes + strategy_bytes, query));
    if (query) return {};
  }
  scratch_lease lease;
  void* base = d_temp;
  if (temp_bytes == nullptr && combine) {
    MEMSCOPE_RETURN_IF_ERROR(lease.acquire(combined_bytes, stream));
    base = lease.ptr;
  }
  CounterT* combined = combine ? static_cast<CounterT*>(base) : d_histogram[0];
  void* strategy_scratch =
      temp_bytes != nullptr && strategy_bytes > 0 ? static_cast<char*>(base) + combined_bytes : nullptr;
  MEMSCOPE_RETURN_IF_ERROR(launch_histogram(strategy_scratch, d_samples, src, combined, counting, stream, opt, p));
  if constexpr (combine) {
    channel_outputs<CounterT, Active> to{};
    int most = 0;
    for (int a = 0; a < Active; ++a) {
      to.out[a] = d_histogram[a];
      to.first_bin[a] = rule.first_bin[a];
      to.num_bins[a] = rule.rules[a].num_bins;
      most = std::max(most, to.num_bins[a]);
    }
    unsigned grid = 1;
    MEMSCOPE_RETURN_IF_ERROR(try_persistent_grid(histogram_scatter_kernel<CounterT, Active>, 256, 0,
                                                 static_cast<std::size_t>(most), 256, grid));
    histogram_scatter_kernel<CounterT, Active><<<grid, 256, 0, stream>>>(combined, to);
    MEMSCOPE_RETURN_IF_LAUNCH_ERROR("histogram_scatter_kernel");
  }
  return lease.release();
}

/// Where the pixels lie: one contiguous run, or pitched rows of row_pixels pixels, row r
/// starting r * row_stride_bytes bytes after row 0.
struct pixel_rows {
  std::int64_t row_pixels = 0;
  std::int64_t rows = 1;
  std::size_t row_stride_bytes = 0;
  bool pitched = false;
};
inline pixel_rows contiguous_pixels(std::int64_t num_pixels) { return {num_pixels, 1, 0, false}; }
inline pixel_rows pitched_pixels(std::int64_t row_pixels, std::int64_t rows, std::size_t row_stride_bytes) {
  return {row_pixels, rows, row_stride_bytes, true};
}

template <int Channels, int Active, class SampleT, class LevelT>
status multi_even_rule(const int* num_levels, const LevelT* lower, const LevelT* upper,
                       multi_rule<even_rule<SampleT, LevelT>, Channels, Active>& rule) {
  if (num_levels == nullptr || lower == nullptr || upper == nullptr)
    return status::invalid("multi-channel histogram: a level array is null");
  even_rule<SampleT, LevelT> per[Active];
  for (int a = 0; a < Active; ++a)
    MEMSCOPE_RETURN_IF_ERROR(try_make_even_rule<SampleT>(num_levels[a], lower[a], upper[a], per[a]));
  return multi_rule<even_rule<SampleT, LevelT>, Channels, Active>::try_make(per, rule);
}

template <int Channels, int Active, class SampleT, class LevelT>
status multi_range_rule(const int* num_levels, const LevelT* const* d_levels,
                        multi_rule<range_rule<SampleT, LevelT>, Channels, Active>& rule) {
  if (num_levels == nullptr || d_levels == nullptr)
    return status::invalid("multi-channel histogram: a level array is null");
  range_rule<SampleT, LevelT> per[Active];
  for (int a = 0; a < Active; ++a)
    MEMSCOPE_RETURN_IF_ERROR(try_make_range_rule<SampleT>(num_levels[a], d_levels[a], per[a]));
  return multi_rule<range_rule<SampleT, LevelT>, Channels, Active>::try_make(per, rule);
}

/// One multi-channel call by `rule` over the pixels `shape` says.
template <int Channels, int Active, class SampleT, class CounterT, class Rule>
status multi_layout(void* d_temp, std::size_t* temp_bytes, const SampleT* d_samples, CounterT* const* d_histogram,
                    const multi_rule<Rule, Channels, Active>& rule, const pixel_rows& shape, cudaStream_t stream,
                    const options& opt, plan& p) {
  if (shape.row_pixels < 0 || shape.row_pixels > std::numeric_limits<std::int64_t>::max() / Channels)
    return status::invalid("multi-channel histogram of " + std::to_string(shape.row_pixels) + " pixels" +
                           (shape.pitched ? " per row" : "") + ": a count from 0 to 2^63 / channels");
  const std::int64_t row_samples = shape.row_pixels * Channels;
  if (!shape.pitched) {
    linear_samples<SampleT> src;
    MEMSCOPE_RETURN_IF_ERROR(try_linear(row_samples, src));
    return multi_run<Channels, Active>(d_temp, temp_bytes, d_samples, src, d_histogram, rule, shape.row_pixels, stream,
                                       opt, p);
  }
  pitched_samples<SampleT> src;
  MEMSCOPE_RETURN_IF_ERROR(try_pitched(row_samples, shape.rows, shape.row_stride_bytes, src));
  if (src.gapless())
    return multi_run<Channels, Active>(d_temp, temp_bytes, d_samples, linear_samples<SampleT>{src.size()}, d_histogram,
                                       rule, shape.row_pixels * shape.rows, stream, opt, p);
  return multi_run<Channels, Active>(d_temp, temp_bytes, d_samples, src, d_histogram, rule,
                                     shape.row_pixels * shape.rows, stream, opt, p);
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
status multi_even(void* d_temp, std::size_t* temp_bytes, const SampleT* d_samples, CounterT* const* d_histogram,
                  const int* num_levels, const LevelT* lower, const LevelT* upper, const pixel_rows& shape,
                  cudaStream_t stream, const options& opt, plan& p) {
  multi_rule<even_rule<SampleT, LevelT>, Channels, Active> rule;
  MEMSCOPE_RETURN_IF_ERROR((multi_even_rule<Channels, Active, SampleT>(num_levels, lower, upper, rule)));
  return multi_layout(d_temp, temp_bytes, d_samples, d_histogram, rule, shape, stream, opt, p);
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
status multi_range(void* d_temp, std::size_t* temp_bytes, const SampleT* d_samples, CounterT* const* d_histogram,
                   const int* num_levels, const LevelT* const* d_levels, const pixel_rows& shape, cudaStream_t stream,
                   const options& opt, plan& p) {
  multi_rule<range_rule<SampleT, LevelT>, Channels, Active> rule;
  MEMSCOPE_RETURN_IF_ERROR((multi_range_rule<Channels, Active, SampleT>(num_levels, d_levels, rule)));
  return multi_layout(d_temp, temp_bytes, d_samples, d_histogram, rule, shape, stream, opt, p);
}

}  // namespace detail

/// The histograms of the first Active of Channels interleaved channels of num_pixels pixels
/// (sample c of pixel i at d_samples[i * Channels + c]): channel a into d_histogram[a][0,
/// num_levels[a] - 1), even bins over [lower_level[a], upper_level[a]), CUB's
/// MultiHistogramEven. Template arguments as CUB's: multi_histogram_even<4, 3>(...).
template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_even(const SampleT* d_samples, CounterT* d_histogram[Active], const int num_levels[Active],
                          const LevelT lower_level[Active], const LevelT upper_level[Active], std::int64_t num_pixels,
                          cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_even<Channels, Active>(nullptr, nullptr, d_samples, d_histogram, num_levels, lower_level,
                                                upper_level, detail::contiguous_pixels(num_pixels), stream, opt, p);
  });
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                          CounterT* d_histogram[Active], const int num_levels[Active], const LevelT lower_level[Active],
                          const LevelT upper_level[Active], std::int64_t num_pixels, cudaStream_t stream = nullptr,
                          options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_even<Channels, Active>(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels,
                                                lower_level, upper_level, detail::contiguous_pixels(num_pixels), stream,
                                                opt, p);
  });
}

/// Pitched rows of num_row_pixels pixels, row r starting r * row_stride_bytes bytes after
/// d_samples.
template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                          CounterT* d_histogram[Active], const int num_levels[Active], const LevelT lower_level[Active],
                          const LevelT upper_level[Active], std::int64_t num_row_pixels, std::int64_t num_rows,
                          std::size_t row_stride_bytes, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_even<Channels, Active>(
        d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, lower_level, upper_level,
        detail::pitched_pixels(num_row_pixels, num_rows, row_stride_bytes), stream, opt, p);
  });
}

/// Level ranges per channel: channel a's bins between the sorted device levels d_levels[a][0,
/// num_levels[a]), CUB's MultiHistogramRange.
template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_range(const SampleT* d_samples, CounterT* d_histogram[Active], const int num_levels[Active],
                           const LevelT* const d_levels[Active], std::int64_t num_pixels, cudaStream_t stream = nullptr,
                           options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_range<Channels, Active>(nullptr, nullptr, d_samples, d_histogram, num_levels, d_levels,
                                                 detail::contiguous_pixels(num_pixels), stream, opt, p);
  });
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                           CounterT* d_histogram[Active], const int num_levels[Active],
                           const LevelT* const d_levels[Active], std::int64_t num_pixels, cudaStream_t stream = nullptr,
                           options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_range<Channels, Active>(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram,
                                                 num_levels, d_levels, detail::contiguous_pixels(num_pixels), stream,
                                                 opt, p);
  });
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                           CounterT* d_histogram[Active], const int num_levels[Active],
                           const LevelT* const d_levels[Active], std::int64_t num_row_pixels, std::int64_t num_rows,
                           std::size_t row_stride_bytes, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_range<Channels, Active>(
        d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, d_levels,
        detail::pitched_pixels(num_row_pixels, num_rows, row_stride_bytes), stream, opt, p);
  });
}

/// CUB 3's cuda::std::array forms of the above (its raw-array forms are deprecated there).
template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                          cuda::std::array<CounterT*, Active> d_histogram, cuda::std::array<int, Active> num_levels,
                          cuda::std::array<LevelT, Active> lower_level, cuda::std::array<LevelT, Active> upper_level,
                          std::int64_t num_pixels, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_even<Channels, Active>(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram.data(),
                                                num_levels.data(), lower_level.data(), upper_level.data(),
                                                detail::contiguous_pixels(num_pixels), stream, opt, p);
  });
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                          cuda::std::array<CounterT*, Active> d_histogram, cuda::std::array<int, Active> num_levels,
                          cuda::std::array<LevelT, Active> lower_level, cuda::std::array<LevelT, Active> upper_level,
                          std::int64_t num_row_pixels, std::int64_t num_rows, std::size_t row_stride_bytes,
                          cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_even<Channels, Active>(
        d_temp_storage, &temp_storage_bytes, d_samples, d_histogram.data(), num_levels.data(), lower_level.data(),
        upper_level.data(), detail::pitched_pixels(num_row_pixels, num_rows, row_stride_bytes), stream, opt, p);
  });
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                           cuda::std::array<CounterT*, Active> d_histogram, cuda::std::array<int, Active> num_levels,
                           cuda::std::array<const LevelT*, Active> d_levels, std::int64_t num_pixels,
                           cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_range<Channels, Active>(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram.data(),
                                                 num_levels.data(), d_levels.data(),
                                                 detail::contiguous_pixels(num_pixels), stream, opt, p);
  });
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
plan multi_histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                           cuda::std::array<CounterT*, Active> d_histogram, cuda::std::array<int, Active> num_levels,
                           cuda::std::array<const LevelT*, Active> d_levels, std::int64_t num_row_pixels,
                           std::int64_t num_rows, std::size_t row_stride_bytes, cudaStream_t stream = nullptr,
                           options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::multi_range<Channels, Active>(
        d_temp_storage, &temp_storage_bytes, d_samples, d_histogram.data(), num_levels.data(), d_levels.data(),
        detail::pitched_pixels(num_row_pixels, num_rows, row_stride_bytes), stream, opt, p);
  });
}

/// The cudaError_t forms (never throw), two-phase, over contiguous pixels or pitched rows, as
/// histogram.cuh's.
template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
cudaError_t try_multi_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                                     CounterT* d_histogram[Active], const int num_levels[Active],
                                     const LevelT lower_level[Active], const LevelT upper_level[Active],
                                     std::int64_t num_pixels, cudaStream_t stream = nullptr, options opt = {},
                                     outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::multi_even<Channels, Active>(
                                   d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, lower_level,
                                   upper_level, detail::contiguous_pixels(num_pixels), stream, opt, p),
                               p, out);
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
cudaError_t try_multi_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                                     CounterT* d_histogram[Active], const int num_levels[Active],
                                     const LevelT lower_level[Active], const LevelT upper_level[Active],
                                     std::int64_t num_row_pixels, std::int64_t num_rows, std::size_t row_stride_bytes,
                                     cudaStream_t stream = nullptr, options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(
      detail::multi_even<Channels, Active>(
          d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, lower_level, upper_level,
          detail::pitched_pixels(num_row_pixels, num_rows, row_stride_bytes), stream, opt, p),
      p, out);
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
cudaError_t try_multi_histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                                      CounterT* d_histogram[Active], const int num_levels[Active],
                                      const LevelT* const d_levels[Active], std::int64_t num_pixels,
                                      cudaStream_t stream = nullptr, options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(
      detail::multi_range<Channels, Active>(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels,
                                            d_levels, detail::contiguous_pixels(num_pixels), stream, opt, p),
      p, out);
}

template <int Channels, int Active, class SampleT, class CounterT, class LevelT>
cudaError_t try_multi_histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                                      CounterT* d_histogram[Active], const int num_levels[Active],
                                      const LevelT* const d_levels[Active], std::int64_t num_row_pixels,
                                      std::int64_t num_rows, std::size_t row_stride_bytes,
                                      cudaStream_t stream = nullptr, options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::multi_range<Channels, Active>(
                                   d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, d_levels,
                                   detail::pitched_pixels(num_row_pixels, num_rows, row_stride_bytes), stream, opt, p),
                               p, out);
}

}  // namespace memscope::histogram
