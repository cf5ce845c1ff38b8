#pragma once
// memscope::histogram: the counts of cub::DeviceHistogram (HistogramEven, HistogramRange, their
// pitched-row and multi-channel forms: same levels, same bin rules, 32- or 64-bit counters,
// levels of their own type), faster, with the counters kept where they fit best
// (dispatch.cuh). Every form comes three ways: direct (scratch leased from the
// stream-ordered pool), CUB's two-phase (d_temp_storage == nullptr sets temp_storage_bytes),
// and try_ forms returning cudaError_t that never throw. The throwing forms return the plan
// they ran and throw std::invalid_argument (bad levels or sizes), memscope::unsupported (a
// forced strategy this GPU or binary cannot run) or memscope::cuda_error (a CUDA call failed).

#include "memscope/histogram/dispatch.cuh"

namespace memscope::histogram {

// ---- even bins ----------------------------------------------------------------------------

/// The histogram of d_samples[0, num_samples) into d_histogram[0, num_levels - 1), which it
/// overwrites (as CUB does): num_levels - 1 equal bins over [lower_level, upper_level),
/// computed in the common type of SampleT and LevelT (so 8-bit samples take int levels 0..256
/// for 256 bins).
template <class SampleT, class CounterT, class LevelT>
plan histogram_even(const SampleT* d_samples, CounterT* d_histogram, int num_levels, LevelT lower_level,
                    LevelT upper_level, std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::even_1d(nullptr, nullptr, d_samples, d_histogram, num_levels, lower_level, upper_level, num_samples,
                           stream, opt, p);
  });
}

/// CUB's two-phase form: with d_temp_storage == nullptr only temp_storage_bytes is set
/// (global_private's copies where the plan keeps some, else 1 byte).
template <class SampleT, class CounterT, class LevelT>
plan histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                    CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                    std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::even_1d(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, lower_level,
                           upper_level, num_samples, stream, opt, p);
  });
}

/// Pitched rows (CUB's 2D form): num_rows rows of num_row_samples samples, row r starting
/// r * row_stride_bytes bytes after d_samples (a multiple of sizeof(SampleT)); the padding
/// between rows is never read.
template <class SampleT, class CounterT, class LevelT>
plan histogram_even(const SampleT* d_samples, CounterT* d_histogram, int num_levels, LevelT lower_level,
                    LevelT upper_level, std::int64_t num_row_samples, std::int64_t num_rows,
                    std::size_t row_stride_bytes, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::even_2d(nullptr, nullptr, d_samples, d_histogram, num_levels, lower_level, upper_level,
                           num_row_samples, num_rows, row_stride_bytes, stream, opt, p);
  });
}

template <class SampleT, class CounterT, class LevelT>
plan histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                    CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                    std::int64_t num_row_samples, std::int64_t num_rows, std::size_t row_stride_bytes,
                    cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::even_2d(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, lower_level,
                           upper_level, num_row_samples, num_rows, row_stride_bytes, stream, opt, p);
  });
}

// ---- level ranges -------------------------------------------------------------------------

/// The histogram of d_samples[0, num_samples) into num_levels - 1 bins between the sorted
/// levels d_levels[0, num_levels) (device memory, read by every thread): bin b holds
/// [d_levels[b], d_levels[b + 1]), cub::DeviceHistogram::HistogramRange's rule exactly.
template <class SampleT, class CounterT, class LevelT>
plan histogram_range(const SampleT* d_samples, CounterT* d_histogram, int num_levels, const LevelT* d_levels,
                     std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::range_1d(nullptr, nullptr, d_samples, d_histogram, num_levels, d_levels, num_samples, stream, opt,
                            p);
  });
}

template <class SampleT, class CounterT, class LevelT>
plan histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                     CounterT* d_histogram, int num_levels, const LevelT* d_levels, std::int64_t num_samples,
                     cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::range_1d(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, d_levels,
                            num_samples, stream, opt, p);
  });
}

template <class SampleT, class CounterT, class LevelT>
plan histogram_range(const SampleT* d_samples, CounterT* d_histogram, int num_levels, const LevelT* d_levels,
                     std::int64_t num_row_samples, std::int64_t num_rows, std::size_t row_stride_bytes,
                     cudaStream_t stream = nullptr, options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::range_2d(nullptr, nullptr, d_samples, d_histogram, num_levels, d_levels, num_row_samples, num_rows,
                            row_stride_bytes, stream, opt, p);
  });
}

template <class SampleT, class CounterT, class LevelT>
plan histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                     CounterT* d_histogram, int num_levels, const LevelT* d_levels, std::int64_t num_row_samples,
                     std::int64_t num_rows, std::size_t row_stride_bytes, cudaStream_t stream = nullptr,
                     options opt = {}) {
  return detail::throw_or_plan([&](plan& p) {
    return detail::range_2d(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, d_levels,
                            num_row_samples, num_rows, row_stride_bytes, stream, opt, p);
  });
}

// ---- cudaError_t forms --------------------------------------------------------------------

/// For code built without exceptions (as CUB's DeviceHistogram): they never throw.
/// cudaErrorInvalidValue for bad levels or sizes, cudaErrorNotSupported for a forced strategy
/// this GPU or binary cannot run, else the failing CUDA call's error. `out`, where given,
/// receives the plan that ran and the message of a failure.
template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_even(const SampleT* d_samples, CounterT* d_histogram, int num_levels, LevelT lower_level,
                               LevelT upper_level, std::int64_t num_samples, cudaStream_t stream = nullptr,
                               options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::even_1d(nullptr, nullptr, d_samples, d_histogram, num_levels, lower_level,
                                               upper_level, num_samples, stream, opt, p),
                               p, out);
}

template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                               CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                               std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {},
                               outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::even_1d(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels,
                                               lower_level, upper_level, num_samples, stream, opt, p),
                               p, out);
}

template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                               CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                               std::int64_t num_row_samples, std::int64_t num_rows, std::size_t row_stride_bytes,
                               cudaStream_t stream = nullptr, options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(
      detail::even_2d(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels, lower_level, upper_level,
                      num_row_samples, num_rows, row_stride_bytes, stream, opt, p),
      p, out);
}

template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_range(const SampleT* d_samples, CounterT* d_histogram, int num_levels, const LevelT* d_levels,
                                std::int64_t num_samples, cudaStream_t stream = nullptr, options opt = {},
                                outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(
      detail::range_1d(nullptr, nullptr, d_samples, d_histogram, num_levels, d_levels, num_samples, stream, opt, p), p,
      out);
}

template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                                CounterT* d_histogram, int num_levels, const LevelT* d_levels, std::int64_t num_samples,
                                cudaStream_t stream = nullptr, options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::range_1d(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels,
                                                d_levels, num_samples, stream, opt, p),
                               p, out);
}

template <class SampleT, class CounterT, class LevelT>
cudaError_t try_histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, const SampleT* d_samples,
                                CounterT* d_histogram, int num_levels, const LevelT* d_levels,
                                std::int64_t num_row_samples, std::int64_t num_rows, std::size_t row_stride_bytes,
                                cudaStream_t stream = nullptr, options opt = {}, outcome* out = nullptr) {
  plan p;
  return detail::to_cuda_error(detail::range_2d(d_temp_storage, &temp_storage_bytes, d_samples, d_histogram, num_levels,
                                                d_levels, num_row_samples, num_rows, row_stride_bytes, stream, opt, p),
                               p, out);
}

}  // namespace memscope::histogram

#include "memscope/histogram/multi.cuh"
