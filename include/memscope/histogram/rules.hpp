#pragma once
// Which bin a sample falls in, in plain C++ shared by the kernels, the CPU reference and the
// host tests: CUB's HistogramEven rule (every integer type, float, double, __half; levels of
// their own type), its HistogramRange rule (upper bound over sorted levels), interleaved
// channels (MultiHistogramEven/Range) and 8-bit raw values.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/host_device.hpp"

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace memscope::histogram {

/// Bin indices are ints, and the counters must fit in memory: 2^28 bins are 1 GiB of counts.
inline constexpr std::int64_t max_bins = std::int64_t{1} << 28;

template <class T>
inline constexpr bool is_level_type_v = std::is_arithmetic_v<T> || std::is_same_v<T, __half>;

/// Whether a rule finds a bin by searching levels (costly: the automatic choice then bins each
/// sample once).
template <class Rule, class = void>
struct rule_searches : std::false_type {};
template <class Rule>
struct rule_searches<Rule, std::void_t<decltype(Rule::searches)>> : std::bool_constant<Rule::searches> {};

/// Rejects level sets no histogram can use, with a message (CUB returns a bare error code).
/// The level count every histogram checks: at least one bin, at most max_bins.
inline status try_check_level_count(int num_levels) {
  if (num_levels < 2)
    return status::invalid("a histogram needs num_levels >= 2 (num_levels - 1 bins); got " +
                           std::to_string(num_levels));
  if (num_levels - 1 > max_bins)
    return status::invalid(std::to_string(num_levels - 1) + " bins: no strategy supports more than 2^28 bins");
  return {};
}

inline status try_check_levels(int num_levels, double lower, double upper) {
  MEMSCOPE_RETURN_IF_ERROR(try_check_level_count(num_levels));
  if (!(lower < upper))  // also catches NaN levels
    return status::invalid("histogram levels need lower < upper; got lower " + std::to_string(lower) + ", upper " +
                           std::to_string(upper));
  return {};
}

inline void check_levels(int num_levels, double lower, double upper) {
  throw_if_error(try_check_levels(num_levels, lower, upper));
}

namespace detail {
// Explicit rounding, so that nvcc cannot fuse the subtraction and the multiplication and the
// device picks the same bin as the host reference (and as CUB) for every sample.
template <class T>
MEMSCOPE_HD T sub_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) return __fsub_rn(a, b);
  else return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
template <class T>
MEMSCOPE_HD T mul_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) return __fmul_rn(a, b);
  else return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
/// a < b, for __half as CUB compares it (__hlt) on host and device alike.
template <class T>
MEMSCOPE_HD bool less(T a, T b) {
  if constexpr (std::is_same_v<T, __half>) return __hlt(a, b);
  else return a < b;
}
}  // namespace detail

/// num_bins equal bins over [lower, upper), the rule of cub::DeviceHistogram::HistogramEven:
/// floating-point samples scale by a reciprocal computed once in the sample type; integer
/// samples by an exact 64-bit fraction. Samples outside [lower, upper), and NaN, fall in no bin
/// (-1). A float product that rounds up to num_bins also falls in none, as CUB's output does.
template <class SampleT>
struct even_bins {
  static_assert(std::is_arithmetic_v<SampleT>, "histogram samples must be integers, floating point or __half");
  using value_type = SampleT;
  SampleT lower{};
  SampleT upper{};
  int num_bins = 0;
  SampleT reciprocal{};  // floating point only
  double inv_range = 0;  // integers only: 1 / (upper - lower), for the division-free bin below

  static status try_make(int num_levels, SampleT lower_level, SampleT upper_level, even_bins& b) {
    MEMSCOPE_RETURN_IF_ERROR(
        try_check_levels(num_levels, static_cast<double>(lower_level), static_cast<double>(upper_level)));
    b.lower = lower_level;
    b.upper = upper_level;
    b.num_bins = num_levels - 1;
    if constexpr (std::is_integral_v<SampleT>) {
      // offset x num_bins must not wrap 64 bits (CUB refuses the same levels). The difference is
      // taken in unsigned arithmetic: upper - lower of two int64 values can overflow int64.
      const auto range = wide(upper_level) - wide(lower_level);
      if (range > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(b.num_bins))
        return status::invalid("histogram level range times bin count overflows 64-bit arithmetic");
      b.inv_range = 1.0 / static_cast<double>(range);
    } else {
      b.reciprocal =
          static_cast<SampleT>(static_cast<SampleT>(b.num_bins) / static_cast<SampleT>(upper_level - lower_level));
    }
    return {};
  }

  static even_bins make(int num_levels, SampleT lower_level, SampleT upper_level) {
    even_bins b;
    throw_if_error(try_make(num_levels, lower_level, upper_level, b));
    return b;
  }

  /// Integers as 64-bit unsigned values whose differences are exact modulo 2^64.
  MEMSCOPE_HD static std::uint64_t wide(SampleT v) {
    if constexpr (std::is_integral_v<SampleT>) return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    else return 0;
  }

  MEMSCOPE_HD int operator()(SampleT s) const {
    if (!(s >= lower && s < upper)) return -1;  // NaN compares false
    if constexpr (std::is_floating_point_v<SampleT>) {
      const int bin = static_cast<int>(detail::mul_rn(detail::sub_rn(s, lower), reciprocal));
      return bin < num_bins ? bin : -1;
    } else {
      const auto offset = wide(s) - wide(lower);
      const auto range = wide(upper) - wide(lower);
      const std::uint64_t scaled = offset * static_cast<std::uint64_t>(num_bins);
      // floor(scaled / range) without a 64-bit division (a long software sequence on GPUs that
      // made 32-bit samples 4x slower to bin than floats): where both are below 2^53 they are
      // exact doubles, the product with the reciprocal is off by at most one, and one integer
      // check corrects it. The result is the exact quotient, as CUB's.
      constexpr std::uint64_t exact = std::uint64_t{1} << 53;
      if (scaled < exact && range < exact) {
        auto q = static_cast<std::uint64_t>(detail::mul_rn(static_cast<double>(scaled), inv_range));
        if (q * range > scaled) --q;
        else if ((q + 1) * range <= scaled) ++q;
        return static_cast<int>(q);
      }
      return static_cast<int>(scaled / range);
    }
  }
};

/// __half samples, CUB's half-precision rule: valid where lower <= s < upper (__hge, __hlt),
/// bin = int(__hmul(__hsub(s, lower), reciprocal)), the reciprocal computed as CUB's host code
/// does (in float, rounded to half). Host and device use the same correctly rounded half
/// operations, so the reference bins every sample as the GPU does.
template <>
struct even_bins<__half> {
  using value_type = __half;
  __half lower{};
  __half upper{};
  int num_bins = 0;
  __half reciprocal{};

  static status try_make(int num_levels, __half lower_level, __half upper_level, even_bins& b) {
    MEMSCOPE_RETURN_IF_ERROR(try_check_levels(num_levels, static_cast<double>(__half2float(lower_level)),
                                              static_cast<double>(__half2float(upper_level))));
    b.lower = lower_level;
    b.upper = upper_level;
    b.num_bins = num_levels - 1;
    b.reciprocal =
        __float2half(static_cast<float>(b.num_bins) / (__half2float(upper_level) - __half2float(lower_level)));
    return {};
  }
  static even_bins make(int num_levels, __half lower_level, __half upper_level) {
    even_bins b;
    throw_if_error(try_make(num_levels, lower_level, upper_level, b));
    return b;
  }
  MEMSCOPE_HD int operator()(__half s) const {
    if (!(__hge(s, lower) && __hlt(s, upper))) return -1;
    const int bin = __half2int_rz(__hmul(__hsub(s, lower), reciprocal));
    return bin < num_bins ? bin : -1;
  }
};

/// Bins between num_levels sorted levels, the rule of cub::DeviceHistogram::HistogramRange:
/// bin b holds [levels[b], levels[b + 1]); the bin is the upper bound of the sample among the
/// levels, minus one (CUB's UpperBound, so unsorted or repeated levels count as CUB counts
/// them); below the first level, at or past the last, and NaN fall in no bin. `levels` is a
/// device pointer in kernels and a host pointer in the CPU reference.
template <class LevelT>
struct range_bins {
  static_assert(is_level_type_v<LevelT>, "histogram levels must be integers, floating point or __half");
  using value_type = LevelT;
  static constexpr bool searches = true;
  const LevelT* levels = nullptr;
  int num_levels = 0;
  int num_bins = 0;

  static status try_make(int num_levels, const LevelT* levels, range_bins& b) {
    MEMSCOPE_RETURN_IF_ERROR(try_check_level_count(num_levels));
    if (levels == nullptr) return status::invalid("histogram_range: the level array is null");
    b.levels = levels;
    b.num_levels = num_levels;
    b.num_bins = num_levels - 1;
    return {};
  }

  MEMSCOPE_HD int operator()(LevelT s) const {
    int first = 0, count = num_levels;
    while (count > 0) {
      const int half = count >> 1;
      if (detail::less(s, load(first + half))) {
        count = half;
      } else {
        first += half + 1;
        count -= half + 1;
      }
    }
    const int bin = first - 1;
    return bin < num_bins ? bin : -1;
  }

 private:
  MEMSCOPE_HD LevelT load(int i) const {
#if defined(__CUDA_ARCH__)
    return __ldg(levels + i);  // read-only for the whole kernel: the read-only path caches them
#else
    return levels[i];
#endif
  }
};

/// A rule over samples of type SampleT that converts each sample first, as CUB does: to the
/// common type of sample and level for even bins, to the level type for ranges. So 8-bit
/// samples with int levels 0..256 have 256 bins.
template <class SampleT, class Rule>
struct converting_rule {
  static constexpr bool searches = rule_searches<Rule>::value;
  Rule rule;
  int num_bins = 0;
  MEMSCOPE_HD int operator()(SampleT s) const { return rule(static_cast<typename Rule::value_type>(s)); }
};

template <class SampleT, class Rule>
converting_rule<SampleT, Rule> for_samples(const Rule& r) {
  return {r, r.num_bins};
}

/// The type even bins compute in for these samples and levels (CUB's CommonT). __half samples
/// take __half levels (CUB bins them in half precision).
template <class SampleT, class LevelT>
struct even_common {
  static_assert(std::is_same_v<SampleT, __half> == std::is_same_v<LevelT, __half>,
                "__half samples take __half levels (and __half levels __half samples)");
  using type = std::common_type_t<SampleT, LevelT>;
};
template <class SampleT, class LevelT>
using even_common_t = typename even_common<SampleT, LevelT>::type;

/// The rules histogram_even and histogram_range run (what plan_for and current_device_limits
/// take to ask about the very kernels that will run).
template <class SampleT, class LevelT = SampleT>
using even_rule = converting_rule<SampleT, even_bins<even_common_t<SampleT, LevelT>>>;
template <class SampleT, class LevelT = SampleT>
using range_rule = converting_rule<SampleT, range_bins<LevelT>>;

/// The rule of histogram_even for these samples and levels: even bins in the common type.
template <class SampleT, class LevelT>
status try_make_even_rule(int num_levels, LevelT lower, LevelT upper, even_rule<SampleT, LevelT>& rule) {
  using common = even_common_t<SampleT, LevelT>;
  even_bins<common> bins;
  MEMSCOPE_RETURN_IF_ERROR(
      even_bins<common>::try_make(num_levels, static_cast<common>(lower), static_cast<common>(upper), bins));
  rule = for_samples<SampleT>(bins);
  return {};
}

template <class SampleT, class LevelT>
even_rule<SampleT, LevelT> make_even_rule(int num_levels, LevelT lower, LevelT upper) {
  even_rule<SampleT, LevelT> rule;
  throw_if_error(try_make_even_rule<SampleT>(num_levels, lower, upper, rule));
  return rule;
}

/// The rule of histogram_range for these samples over `levels` (device or host memory).
template <class SampleT, class LevelT>
status try_make_range_rule(int num_levels, const LevelT* levels, range_rule<SampleT, LevelT>& rule) {
  range_bins<LevelT> bins;
  MEMSCOPE_RETURN_IF_ERROR(range_bins<LevelT>::try_make(num_levels, levels, bins));
  rule = for_samples<SampleT>(bins);
  return {};
}

template <class SampleT, class LevelT>
range_rule<SampleT, LevelT> make_range_rule(int num_levels, const LevelT* levels) {
  range_rule<SampleT, LevelT> rule;
  throw_if_error(try_make_range_rule<SampleT>(num_levels, levels, rule));
  return rule;
}

/// A rule that ignores where a sample sits (one channel).
template <class Rule, class = void>
struct rule_channels : std::integral_constant<int, 1> {};
template <class Rule>
struct rule_channels<Rule, std::void_t<decltype(Rule::channels)>> : std::integral_constant<int, Rule::channels> {};

/// The bin of sample s at position `pos` of its row (interleaved channels: pos % channels).
template <class Rule, class SampleT>
MEMSCOPE_HD int bin_of(const Rule& rule, SampleT s, std::size_t pos) {
  if constexpr (rule_channels<Rule>::value == 1) {
    (void)pos;
    return rule(s);
  } else {
    return rule(s, static_cast<int>(pos % static_cast<std::size_t>(Rule::channels)));
  }
}

/// Interleaved channels (CUB's MultiHistogramEven/Range): sample i of a row belongs to channel
/// i % Channels; the first ActiveChannels are binned, each by its own rule, into one combined
/// bin space (channel a's bins start at first_bin[a]), so every strategy counts all channels
/// in one pass over the samples; the dispatch scatters the combined counts to the channels'
/// outputs at the end.
template <class Rule, int Channels, int ActiveChannels>
struct multi_rule {
  static_assert(Channels >= 1 && ActiveChannels >= 1 && ActiveChannels <= Channels, "1 <= active channels <= channels");
  static constexpr int channels = Channels;
  static constexpr int active_channels = ActiveChannels;
  static constexpr bool searches = rule_searches<Rule>::value;
  Rule rules[ActiveChannels];
  int first_bin[ActiveChannels] = {};
  int num_bins = 0;  // all active channels' bins

  template <class SampleT>
  MEMSCOPE_HD int operator()(SampleT s, int channel) const {
    return select(s, channel, std::make_index_sequence<ActiveChannels>{});
  }
  /// One channel: every sample is channel 0 (the agent then passes no position).
  template <class SampleT>
  MEMSCOPE_HD int operator()(SampleT s) const {
    static_assert(Channels == 1, "interleaved samples are binned with their channel");
    return (*this)(s, 0);
  }

  /// Channel a's rule and its bins' place in the combined space.
  static status try_make(const Rule (&per_channel)[ActiveChannels], multi_rule& m) {
    std::int64_t total = 0;
    for (int a = 0; a < ActiveChannels; ++a) {
      m.rules[a] = per_channel[a];
      m.first_bin[a] = static_cast<int>(total);
      total += per_channel[a].num_bins;
      if (total > max_bins)
        return status::invalid(std::to_string(total) + " bins over " + std::to_string(ActiveChannels) +
                               " channels: no strategy supports more than 2^28 bins in all");
    }
    m.num_bins = static_cast<int>(total);
    return {};
  }

 private:
  // Every channel's rule named by a constant index, never rules[channel]: a runtime index into
  // the kernel parameter copied the rules to local memory (112 bytes of stack, RGB floats 6x
  // slower than CUB).
  template <class SampleT, std::size_t... A>
  MEMSCOPE_HD int select(SampleT s, int channel, std::index_sequence<A...>) const {
    int bin = -1;
    ((channel == static_cast<int>(A) ? (void)(bin = offset(rules[A](s), first_bin[A])) : (void)0), ...);
    return bin;
  }
  MEMSCOPE_HD static int offset(int b, int first) { return b < 0 ? -1 : b + first; }
};

/// 8-bit samples as their raw value 0..255: a block counts values, not bins, and maps each
/// value to its bin once at the end (CUB's approach for 8-bit samples: no per-sample
/// arithmetic beyond the count).
template <class SampleT>
struct raw_byte_value {
  static_assert(sizeof(SampleT) == 1, "raw values are for 8-bit samples");
  int num_bins = 256;
  MEMSCOPE_HD int operator()(SampleT s) const { return static_cast<int>(static_cast<unsigned char>(s)); }
};

/// ... and with interleaved channels: value v of active channel a is counter a * 256 + v.
template <class SampleT, int Channels, int ActiveChannels>
struct raw_byte_channels {
  static_assert(sizeof(SampleT) == 1, "raw values are for 8-bit samples");
  static constexpr int channels = Channels;
  int num_bins = 256 * ActiveChannels;
  MEMSCOPE_HD int operator()(SampleT s, int channel) const {
    return channel < ActiveChannels ? channel * 256 + static_cast<int>(static_cast<unsigned char>(s)) : -1;
  }
  MEMSCOPE_HD int operator()(SampleT s) const {
    static_assert(Channels == 1, "interleaved samples are binned with their channel");
    return (*this)(s, 0);
  }
};

/// The raw-value rule for samples binned by Rule, and the bin raw counter i stands for.
template <class SampleT, class Rule>
struct raw_values {
  using type = raw_byte_value<SampleT>;
  static constexpr int counters = 256;
  MEMSCOPE_HD static int bin(const Rule& rule, int i) {
    return rule(static_cast<SampleT>(static_cast<unsigned char>(i)));
  }
};

template <class SampleT, class Rule, int Channels, int ActiveChannels>
struct raw_values<SampleT, multi_rule<Rule, Channels, ActiveChannels>> {
  using type = raw_byte_channels<SampleT, Channels, ActiveChannels>;
  static constexpr int counters = 256 * ActiveChannels;
  MEMSCOPE_HD static int bin(const multi_rule<Rule, Channels, ActiveChannels>& rule, int i) {
    return rule(static_cast<SampleT>(static_cast<unsigned char>(i & 255)), i >> 8);
  }
};

}  // namespace memscope::histogram
