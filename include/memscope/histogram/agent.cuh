#pragma once
// The per-sample loop every histogram kernel shares (CUB's "agent" layer): 16-byte vector
// loads, the bin of each sample by any rule (even bins, level ranges, interleaved channels),
// runs held back per thread, warp aggregation, the shared-memory window's placement, and the
// two sample layouts (one contiguous run; pitched rows). Kernels supply where a count goes
// (`add`) and which bins they count locally.

#include "memscope/histogram/plan.hpp"

#include "memscope/core/launch.cuh"

#include <cooperative_groups.h>

#include <algorithm>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace memscope::histogram {

namespace cg = cooperative_groups;

/// 16 bytes of samples, loaded with one instruction.
template <class SampleT>
struct alignas(16) sample_vector {
  static_assert(16 % sizeof(SampleT) == 0, "sample types of 1, 2, 4, 8 or 16 bytes");
  static constexpr int size = 16 / static_cast<int>(sizeof(SampleT));
  SampleT v[size];
};

/// 16 bytes of samples, read once. They are marked evict-first where something else must stay
/// cached on their way: counters in L2 (the global kernels, which hold runs back) or levels in L1
/// (range rules search them through the read-only path). Elsewhere the counters live in shared
/// memory and the mark protects nothing, while it costs the loads when L2 starts full of
/// another kernel's dirty lines, so those samples go through __ldg. 8-bit samples keep the mark:
/// there __ldg was the slower load (docs/tuning.md, "Histogram sample loads").
template <bool HoldRuns, class Rule, class SampleT>
__device__ __forceinline__ uint4 load_samples(const sample_vector<SampleT>* p) {
  if constexpr (HoldRuns || rule_searches<Rule>::value || sizeof(SampleT) == 1)
    return __ldcs(reinterpret_cast<const uint4*>(p));
  else return __ldg(reinterpret_cast<const uint4*>(p));
}

/// Counts a thread holds back for one bin while whole warps keep landing in it: under total
/// contention (every sample in one bin) a warp then issues one atomic per run, not one per
/// vector, and L2 stops serialising on one address. Shared-memory strategies skip it: there the
/// bookkeeping costs more than the atomics it saves (docs/tuning.md, "Histogram run holding").
struct pending_run {
  int bin = -1;
  std::uint32_t count = 0;

  template <class Add>
  __device__ __forceinline__ void add(int b, std::uint32_t c, Add& sink) {
    if (b != bin) {
      flush(sink);
      bin = b;
    }
    count += c;
  }
  template <class Add>
  __device__ __forceinline__ void flush(Add& sink) {
    if (count != 0) sink(bin, count);
    count = 0;
  }
};

/// Says no bin is counted locally: every bin is worth aggregating.
struct nothing_local {
  __device__ bool operator()(int) const { return false; }
};

/// Bins one vector and hands add(bin, count) the counts. A warp whose samples all fall in one
/// bin (the all-in-one-bin worst case, where every atomic contends) adds once (through `run`
/// when HoldRuns). With Aggregate, lanes of the warp whose bins agree add once, except where
/// every lane's bin is `local` (counted in shared memory) or none.
/// Interleaved channels: with Phase >= 0 the vector's first sample is that channel (known at
/// compile time, so each sample's rule is fixed and inactive channels cost nothing), else the
/// channel follows from the position `first`.
template <bool HoldRuns, bool Aggregate, int Phase, int K, class SampleT, class Rule, class Add, class Local>
__device__ __forceinline__ void bin_values(const SampleT (&in)[K], std::size_t first, const Rule& rule, Add& add,
                                           pending_run& run, const Local& local) {
  constexpr int k_size = K;
  int bins[k_size];
  if constexpr (rule_channels<Rule>::value == 1) {
    (void)first;
#pragma unroll
    for (int k = 0; k < k_size; ++k) bins[k] = rule(in[k]);
  } else if constexpr (Phase >= 0) {
    (void)first;
#pragma unroll
    for (int k = 0; k < k_size; ++k) bins[k] = rule(in[k], (Phase + k) % rule_channels<Rule>::value);
  } else {
    // One 64-bit remainder per vector; the samples' channels follow in 32 bits.
    constexpr unsigned channels = rule_channels<Rule>::value;
    const auto c0 = static_cast<unsigned>(first % channels);
#pragma unroll
    for (int k = 0; k < k_size; ++k) bins[k] = rule(in[k], static_cast<int>((c0 + k) % channels));
  }
  bool one_bin = bins[0] >= 0;
#pragma unroll
  for (int k = 1; k < k_size; ++k) one_bin = one_bin && bins[k] == bins[0];
  const auto warp = cg::coalesced_threads();
  const int lead_bin = warp.shfl(bins[0], 0);
  if (warp.all(one_bin && bins[0] == lead_bin)) {
    if (warp.thread_rank() == 0) {
      const auto count = static_cast<std::uint32_t>(warp.size() * k_size);
      if constexpr (HoldRuns) run.add(lead_bin, count, add);
      else add(lead_bin, count);
    }
    return;
  }
  if constexpr (Aggregate) {
    // Lanes whose samples share a bin add once, the lowest of them for all: a few hot bins
    // then cost one atomic per bin per warp step, not one per sample. Where every lane's bin
    // is counted locally (a shared-memory window) or nowhere, the match would cost more than
    // it saves: those add directly (docs/tuning.md, "Histogram run holding").
    const unsigned lane = threadIdx.x & 31u;
    const unsigned active = __activemask();
#pragma unroll
    for (int k = 0; k < k_size; ++k) {
      if (__all_sync(active, bins[k] < 0 || local(bins[k]))) {
        if (bins[k] >= 0) add(bins[k], 1u);
        continue;
      }
      const unsigned peers = __match_any_sync(active, bins[k]);
      if (bins[k] >= 0 && lane == static_cast<unsigned>(__ffs(peers) - 1))
        add(bins[k], static_cast<std::uint32_t>(__popc(peers)));
    }
  } else {
    // No merging of equal neighbours within a thread (CUB does it): the extra compares cost
    // more than the atomics they save (docs/tuning.md, "Histogram run holding").
#pragma unroll
    for (int k = 0; k < k_size; ++k)
      if (bins[k] >= 0) add(bins[k], 1u);
  }
}

template <bool HoldRuns, bool Aggregate, int Phase, class SampleT, class Rule, class Add, class Local>
__device__ __forceinline__ void bin_vector(const sample_vector<SampleT>& in, std::size_t first, const Rule& rule,
                                           Add& add, pending_run& run, const Local& local) {
  bin_values<HoldRuns, Aggregate, Phase>(in.v, first, rule, add, run, local);
}

/// The vectors [0, num_vectors) of a run whose first vector starts `head` samples in, with
/// policy::vectors_per_thread loads in flight per thread.
template <bool HoldRuns, bool Aggregate, int Phase, class SampleT, class Rule, class Add, class Local>
__device__ __forceinline__ void bin_vectors(const sample_vector<SampleT>* __restrict__ vectors, std::size_t num_vectors,
                                            std::size_t head, const Rule& rule, std::size_t rank, std::size_t threads,
                                            Add& add, pending_run& run, const Local& local) {
  using vec = sample_vector<SampleT>;
  constexpr int k_vectors = policy::vectors_per_thread;
  for (std::size_t base = rank; base < num_vectors; base += threads * k_vectors) {
    vec v[k_vectors];
#pragma unroll
    for (int u = 0; u < k_vectors; ++u) {
      const std::size_t i = base + u * threads;
      if (i < num_vectors) {
        const uint4 raw = load_samples<HoldRuns, Rule>(vectors + i);
        std::memcpy(&v[u], &raw, sizeof(raw));
      }
    }
#pragma unroll
    for (int u = 0; u < k_vectors; ++u)
      if (base + u * threads < num_vectors)
        bin_vector<HoldRuns, Aggregate, Phase>(v[u], head + (base + u * threads) * vec::size, rule, add, run, local);
  }
}

/// Channels that do not divide a vector (RGB floats: 3 into 4): each thread takes `Group`
/// consecutive vectors, a whole number of pixels, so every sample's channel is fixed at compile
/// time (as bin_vectors<.., 0> does where channels divide a vector). Vectors start on a pixel.
template <bool HoldRuns, bool Aggregate, int Group, class SampleT, class Rule, class Add, class Local>
__device__ __forceinline__ void bin_pixel_groups(const sample_vector<SampleT>* __restrict__ vectors,
                                                 std::size_t num_groups, const Rule& rule, std::size_t rank,
                                                 std::size_t threads, Add& add, pending_run& run, const Local& local) {
  using vec = sample_vector<SampleT>;
  for (std::size_t g = rank; g < num_groups; g += threads) {
    SampleT values[Group * vec::size];
#pragma unroll
    for (int j = 0; j < Group; ++j) {
      const uint4 raw = load_samples<HoldRuns, Rule>(vectors + g * Group + j);
      std::memcpy(values + j * vec::size, &raw, sizeof(raw));
    }
    bin_values<HoldRuns, Aggregate, 0>(values, 0, rule, add, run, local);
  }
}

__host__ __device__ constexpr int gcd_int(int a, int b) { return b == 0 ? a : gcd_int(b, a % b); }

/// The vectors one thread takes at a time (for_each_bin's unit of work): one, or a whole
/// number of pixels where the channels do not divide a vector.
template <class Rule, class SampleT>
__host__ __device__ constexpr int unit_vectors() {
  constexpr int channels = rule_channels<Rule>::value;
  constexpr int size = sample_vector<SampleT>::size;
  return channels > 1 && size % channels != 0 ? channels / gcd_int(size, channels) : 1;
}

/// Every sample of [0, n) is binned by exactly one of `threads` threads (this one is `rank`):
/// a scalar head up to the first 16-byte boundary, 16-byte vectors with
/// policy::vectors_per_thread loads in flight, a scalar tail. A sample's position (its channel)
/// counts from `samples`.
template <bool HoldRuns = false, bool Aggregate = false, class SampleT, class Rule, class Add,
          class Local = nothing_local>
__device__ __forceinline__ void for_each_bin(const SampleT* __restrict__ samples, std::size_t n, const Rule& rule,
                                             std::size_t rank, std::size_t threads, Add& add, const Local& local = {}) {
  using vec = sample_vector<SampleT>;
  constexpr int channels = rule_channels<Rule>::value;
  constexpr int group = unit_vectors<Rule, SampleT>();
  const auto address = reinterpret_cast<std::uintptr_t>(samples);
  std::size_t head = ((16 - address % 16) % 16) / sizeof(SampleT);
  if constexpr (group > 1) {
    // Pixel groups start on a 16-byte boundary that also starts a pixel: one of the next
    // `group` boundaries where the vector size and the channels share no factor (RGB), so the
    // per-sample channel path below is compiled only where that can fail (its registers made
    // the RGB float kernels spill).
    for (int k = 0; k < group && head % channels != 0; ++k) head += vec::size;
  }
  if (head > n) head = n;
  for (std::size_t i = rank; i < head; i += threads) {
    const int bin = bin_of(rule, samples[i], i);
    if (bin >= 0) add(bin, 1u);
  }
  const auto* vectors = reinterpret_cast<const vec*>(samples + head);
  pending_run run;
  std::size_t num_vectors = (n - head) / vec::size;
  if constexpr (group > 1) {
    // Whole groups of vectors, each a whole number of pixels with every sample's channel fixed
    // at compile time; the vectors left over join the scalar tail.
    if (gcd_int(vec::size, channels) == 1 || head % channels == 0) {
      num_vectors = num_vectors / group * group;
      bin_pixel_groups<HoldRuns, Aggregate, group>(vectors, num_vectors / group, rule, rank, threads, add, run, local);
    } else if constexpr (gcd_int(vec::size, channels) > 1) {
      bin_vectors<HoldRuns, Aggregate, -1>(vectors, num_vectors, head, rule, rank, threads, add, run, local);
    }
  } else if constexpr (channels > 1) {
    // Vectors that start on a pixel (a channel count dividing the vector, a head that ends on a
    // pixel) bin with every sample's channel fixed at compile time: RGBA bytes then skip alpha.
    if (head % channels == 0) {
      bin_vectors<HoldRuns, Aggregate, 0>(vectors, num_vectors, head, rule, rank, threads, add, run, local);
    } else {
      bin_vectors<HoldRuns, Aggregate, -1>(vectors, num_vectors, head, rule, rank, threads, add, run, local);
    }
  } else {
    bin_vectors<HoldRuns, Aggregate, -1>(vectors, num_vectors, head, rule, rank, threads, add, run, local);
  }
  if constexpr (HoldRuns) run.flush(add);
  for (std::size_t i = head + num_vectors * vec::size + rank; i < n; i += threads) {
    const int bin = bin_of(rule, samples[i], i);
    if (bin >= 0) add(bin, 1u);
  }
}

/// How a row of n samples splits (as for_each_bin splits a run): `head` scalar samples up to a
/// 16-byte boundary (where the channels do not divide a vector, one that also starts a pixel),
/// `units` units of 16-byte vectors (a pixel group each where `on_pixel` and the channels do
/// not divide a vector, else one vector), and scalar samples from `tail` to the row's end.
/// `on_pixel`: the units start on a pixel, so each sample's channel is known at compile time.
/// for_each_bin keeps its own copy of this split: taking it from split_run changed the
/// registers or spills of 16 of its kernels though the arithmetic is the same (RGB floats
/// through global memory 32 -> 44 registers; six RGBA byte kernels began to spill).
struct run_split {
  std::size_t head = 0;
  std::size_t units = 0;
  std::size_t tail = 0;
  bool on_pixel = false;
};

template <class Rule, class SampleT>
__device__ __forceinline__ run_split split_run(const SampleT* samples, std::size_t n) {
  constexpr int size = sample_vector<SampleT>::size;
  constexpr int channels = rule_channels<Rule>::value;
  constexpr int group = unit_vectors<Rule, SampleT>();
  run_split s;
  s.head = ((16 - reinterpret_cast<std::uintptr_t>(samples) % 16) % 16) / sizeof(SampleT);
  if constexpr (group > 1) {
    // Pixel groups start on a 16-byte boundary that also starts a pixel: one of the next
    // `group` boundaries where the vector size and the channels share no factor (RGB), so the
    // per-sample channel path is compiled only where that can fail (its registers made the
    // RGB float kernels spill).
    for (int k = 0; k < group && s.head % channels != 0; ++k) s.head += size;
  }
  if (s.head > n) s.head = n;
  s.on_pixel = channels > 1 && s.head % channels == 0;
  const std::size_t vectors = (n - s.head) / size;
  // Where the channels do not divide a vector and the units cannot start on a pixel (6 float
  // channels misaligned), units are single vectors with each sample's channel found at run time.
  const int unit = group > 1 && s.on_pixel ? group : 1;
  s.units = vectors / unit;
  s.tail = s.head + s.units * unit * size;
  return s;
}

/// The units of rows that all split alike (their starts equal modulo 16 bytes), walked by a
/// group of threads as one run: lane l of `group` takes the group's units l, l + group, ... in
/// row order. A walk names a unit by a cursor: first(), next() (the lane's next unit), valid(),
/// the unit's first vector at(), and its first sample's position() in its row.
template <class SampleT, int Group>
struct rows_walk {
  using vec = sample_vector<SampleT>;
  struct cursor {
    std::size_t row, unit;
  };
  const SampleT* units_start;  // the first row's first unit
  std::size_t row_step;        // samples from one of the group's rows to its next
  std::size_t rows;            // rows the group walks
  std::size_t units;           // units a row (at least 1)
  std::size_t head;
  std::size_t lane, skip_rows, skip_units;  // group = skip_rows * units + skip_units

  __device__ __forceinline__ rows_walk(const SampleT* start, std::size_t step, std::size_t num_rows,
                                       std::size_t row_units, std::size_t row_head, std::size_t group_lane,
                                       std::size_t group)
      : units_start(start),
        row_step(step),
        rows(num_rows),
        units(row_units),
        head(row_head),
        lane(group_lane),
        skip_rows(group / row_units),
        skip_units(group % row_units) {}

  __device__ __forceinline__ cursor first() const { return {lane / units, lane % units}; }
  __device__ __forceinline__ cursor next(cursor c) const {
    c.row += skip_rows;
    c.unit += skip_units;
    if (c.unit >= units) {
      c.unit -= units;
      ++c.row;
    }
    return c;
  }
  __device__ __forceinline__ bool valid(cursor c) const { return c.row < rows; }
  __device__ __forceinline__ const vec* at(cursor c) const {
    return reinterpret_cast<const vec*>(units_start + c.row * row_step) + c.unit * Group;
  }
  __device__ __forceinline__ std::size_t position(cursor c) const { return head + c.unit * Group * vec::size; }
};

/// Every unit of `walk` (Group vectors each, Phase as bin_values takes it), with
/// policy::vectors_per_thread loads in flight per thread (a pixel group's own vectors where
/// Group > 1). bin_vectors and bin_pixel_groups do this for one contiguous run with a plain
/// index: that run's kernels were tuned to their registers (32 for two blocks an SM), and this
/// cursor through rows cost them 2-24 more (RGB floats 32 -> 45).
template <bool HoldRuns, bool Aggregate, int Phase, int Group, class SampleT, class Walk, class Rule, class Add,
          class Local>
__device__ __forceinline__ void bin_units(const Walk& walk, const Rule& rule, Add& add, pending_run& run,
                                          const Local& local) {
  using vec = sample_vector<SampleT>;
  constexpr int slots = Group == 1 ? policy::vectors_per_thread : 1;
  for (auto c = walk.first(); walk.valid(c);) {
    SampleT values[slots][Group * vec::size];
    std::size_t position[slots];
    unsigned loaded = 0;
#pragma unroll
    for (int u = 0; u < slots; ++u) {
      if (walk.valid(c)) {
        loaded |= 1u << u;
        position[u] = walk.position(c);
        const vec* v = walk.at(c);
#pragma unroll
        for (int j = 0; j < Group; ++j) {
          const uint4 raw = load_samples<HoldRuns, Rule>(v + j);
          std::memcpy(values[u] + j * vec::size, &raw, sizeof(raw));
        }
      }
      c = walk.next(c);
    }
#pragma unroll
    for (int u = 0; u < slots; ++u)
      if (loaded & (1u << u)) bin_values<HoldRuns, Aggregate, Phase>(values[u], position[u], rule, add, run, local);
  }
}

/// The units of a split row of pixel groups, walked by
/// `make_walk(std::integral_constant<int, Group>{})`: whole groups with every sample's channel
/// fixed at compile time where they start on a pixel, else single vectors (for_each_bin's choice).
template <bool HoldRuns, bool Aggregate, class SampleT, class Rule, class MakeWalk, class Add, class Local>
__device__ __forceinline__ void bin_split_units(const run_split& s, const MakeWalk& make_walk, const Rule& rule,
                                                Add& add, pending_run& run, const Local& local) {
  using vec = sample_vector<SampleT>;
  constexpr int channels = rule_channels<Rule>::value;
  constexpr int group = unit_vectors<Rule, SampleT>();
  static_assert(group > 1, "only pixel groups walk rows as one run (for_each_source_bin)");
  if (s.units == 0) return;
  if (s.on_pixel) {
    bin_units<HoldRuns, Aggregate, 0, group, SampleT>(make_walk(std::integral_constant<int, group>{}), rule, add, run,
                                                      local);
  } else if constexpr (gcd_int(vec::size, channels) > 1) {
    bin_units<HoldRuns, Aggregate, -1, 1, SampleT>(make_walk(std::integral_constant<int, 1>{}), rule, add, run, local);
  }
}

__device__ __forceinline__ std::size_t global_thread_rank() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t global_thread_count() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

/// Samples in one contiguous run (CUB's 1D forms). A layout holds no pointer: kernels take the
/// samples as a __restrict__ parameter of their own (inside a struct the pointer cost the
/// block kernel registers, and with them its second block per SM).
template <class SampleT>
struct linear_samples {
  using value_type = SampleT;
  std::size_t n = 0;

  MEMSCOPE_HD std::size_t size() const { return n; }
  /// Sample i of size() and its position (for its channel).
  __device__ __forceinline__ SampleT at(const SampleT* data, std::size_t i, std::size_t& pos) const {
    pos = i;
    return data[i];
  }
  /// The most samples one block of a grid of `grid` blocks bins (per_trip: a block's samples
  /// per loop trip, the rounding).
  std::size_t block_share(unsigned grid, std::size_t per_trip) const {
    return ceil_div(n, std::size_t{grid}) + per_trip;
  }
  void fit_to(std::size_t, int) {}
};

/// Rows of row_samples samples, row r starting row_stride samples after row r - 1 (CUB's
/// pitched 2D forms: num_row_samples, num_rows, row_stride_bytes). A group of threads walks its
/// rows as the whole grid walks a contiguous run (bin_rows), so every row keeps 16-byte loads
/// whatever its alignment, and no thread reads the padding between rows. A group is 2^group_log2 threads
/// (at least a warp, so a warp's loads stay in one row), sized to the row and the rows
/// (row_group_log2): long rows get whole blocks, and rows too few for the blocks the whole grid.
template <class SampleT>
struct pitched_samples {
  using value_type = SampleT;
  static constexpr int whole_grid = row_group_whole_grid;
  std::size_t row_samples = 0;
  std::size_t rows = 0;
  std::size_t row_stride = 0;  // in samples
  int group_log2 = 5;

  MEMSCOPE_HD std::size_t size() const { return row_samples * rows; }
  /// Rows with nothing between them (a stride of one row, or one row): one contiguous run,
  /// which the forms bin as such (walked row by row, every row ends in a part-empty trip).
  bool gapless() const { return rows <= 1 || row_stride == row_samples; }
  __device__ __forceinline__ SampleT at(const SampleT* data, std::size_t i, std::size_t& pos) const {
    const std::size_t r = i / row_samples;
    pos = i - r * row_samples;
    return data[r * row_stride + pos];
  }
  /// Groups sized for a grid of `threads` threads binning units of `unit_vectors` vectors
  /// (more than 1: a group walks its rows as one run).
  void fit_to(std::size_t threads, int unit_vectors) {
    group_log2 =
        row_group_log2(row_samples * sizeof(SampleT), row_stride * sizeof(SampleT), rows, threads, unit_vectors);
  }
  std::size_t block_share(unsigned grid, std::size_t per_trip) const {
    // The whole grid walks all rows of each of up to 16 classes (for_each_source_bin) as one
    // run: a thread takes at most one unit (up to a trip's vectors) and one scalar over its even
    // share of a class, a block's threads together at most two trips' samples.
    if (group_log2 == row_group_whole_grid_run) return ceil_div(size(), std::size_t{grid}) + 16 * (2 * per_trip + 1);
    // The whole grid walks each row as one run: a block's share rounds up by a trip of
    // vectors a row, and by a unit and a row edge a thread (well under 1024 samples) a class.
    if (group_log2 >= whole_grid)
      return rows * (ceil_div(row_samples, std::size_t{grid}) + per_trip) +
             16 * 1024 * std::size_t{policy::block_threads};
    const std::size_t group = std::size_t{1} << group_log2;
    const std::size_t groups = std::max<std::size_t>(1, std::size_t{grid} * policy::block_threads / group);
    const std::size_t groups_per_block = std::max<std::size_t>(1, policy::block_threads / group);
    return ceil_div(rows, groups) * groups_per_block * row_samples;
  }
};

/// Every sample of `data` laid out as `src` binned by exactly one of `threads` threads, this one
/// `rank`.
template <bool HoldRuns = false, bool Aggregate = false, class SampleT, class Rule, class Add,
          class Local = nothing_local>
__device__ __forceinline__ void for_each_source_bin(const SampleT* __restrict__ data,
                                                    const linear_samples<SampleT>& src, const Rule& rule,
                                                    std::size_t rank, std::size_t threads, Add& add,
                                                    const Local& local = {}) {
  for_each_bin<HoldRuns, Aggregate>(data, src.n, rule, rank, threads, add, local);
}

/// Every sample of `rows` rows of row_samples samples, the first at `row0` and each `step`
/// samples after the last, all starting at the same offset from a 16-byte boundary: lane `lane`
/// of `group` threads walks their units as one run, then their scalar heads and tails together.
template <bool HoldRuns, bool Aggregate, class SampleT, class Rule, class Add, class Local>
__device__ __forceinline__ void bin_rows(const SampleT* __restrict__ row0, std::size_t rows, std::size_t step,
                                         std::size_t row_samples, const Rule& rule, std::size_t lane, std::size_t group,
                                         Add& add, const Local& local) {
  const run_split s = split_run<Rule>(row0, row_samples);
  pending_run run;
  bin_split_units<HoldRuns, Aggregate, SampleT>(
      s,
      [&](auto g) {
        return rows_walk<SampleT, decltype(g)::value>(row0 + s.head, step, rows, s.units, s.head, lane, group);
      },
      rule, add, run, local);
  if constexpr (HoldRuns) run.flush(add);
  const std::size_t edge = s.head + (row_samples - s.tail);  // scalar samples a row
  const std::size_t scalars = rows * edge;
  const auto bin_scalar = [&](std::size_t r, std::size_t j) {
    const std::size_t pos = j < s.head ? j : s.tail + (j - s.head);
    const int bin = bin_of(rule, row0[r * step + pos], pos);
    if (bin >= 0) add(bin, 1u);
  };
  if (scalars <= 0xffffffffu) {
    // A 32-bit division: the 64-bit one is a long subroutine.
    const auto e = static_cast<std::uint32_t>(edge);
    for (std::size_t i = lane; i < scalars; i += group) {
      const std::uint32_t r = static_cast<std::uint32_t>(i) / e;
      bin_scalar(r, static_cast<std::uint32_t>(i) - r * e);
    }
  } else {
    for (std::size_t i = lane; i < scalars; i += group) bin_scalar(i / edge, i % edge);
  }
}

template <bool HoldRuns = false, bool Aggregate = false, class SampleT, class Rule, class Add,
          class Local = nothing_local>
__device__ __forceinline__ void for_each_source_bin(const SampleT* __restrict__ data,
                                                    const pitched_samples<SampleT>& src, const Rule& rule,
                                                    std::size_t rank, std::size_t threads, Add& add,
                                                    const Local& local = {}) {
  const bool whole =
      src.group_log2 >= pitched_samples<SampleT>::whole_grid || (std::size_t{1} << src.group_log2) >= threads;
  const std::size_t group = whole ? threads : std::size_t{1} << src.group_log2;
  const std::size_t lane = whole ? rank : rank & (group - 1);
  const std::size_t groups = whole ? 1 : threads >> src.group_log2;
  const std::size_t g = whole ? 0 : rank >> src.group_log2;
  if constexpr (unit_vectors<Rule, SampleT>() > 1) {
    // Pixel groups (RGB floats: 750 groups of 4 pixels a 3001-pixel row) are walked as one run
    // per group of threads: row by row, the last trip of every row ran part-empty. Rows split
    // alike every `classes` rows: 1 where the stride is whole 16-byte vectors (as
    // cudaMallocPitch gives), up to 16 for an odd byte stride; each class is walked as its own
    // pitched image, its rows dealt to the groups after the last class's, as if the classes'
    // rows were one list. Gray floats and bytes keep the walk below: their kernels already sit
    // at the register budget, and the cursor made them slower (docs/tuning.md, "Histogram
    // pitched rows").
    const auto odd = static_cast<unsigned>(src.row_stride * sizeof(SampleT) % 16);
    const std::size_t classes = odd == 0 ? 1 : 16 / (odd & (0u - odd));
    for (std::size_t k = 0; k < classes && k < src.rows; ++k) {
      const std::size_t class_rows = (src.rows - k + classes - 1) / classes;
      const std::size_t before = k * (src.rows / classes) + (k < src.rows % classes ? k : src.rows % classes);
      const std::size_t first = (g + groups - before % groups) % groups;  // this group's first row of the class
      if (first >= class_rows) continue;
      bin_rows<HoldRuns, Aggregate>(data + (k + first * classes) * src.row_stride,
                                    (class_rows - first + groups - 1) / groups, groups * classes * src.row_stride,
                                    src.row_samples, rule, lane, group, add, local);
    }
  } else {
    // Unit i of a row goes to lane i mod group, so the lanes below the row's remainder take one
    // unit more. Each row after the first starts where the last one ended (as if the group's
    // rows were one run): otherwise the same lanes take the extra unit in every row.
    const std::size_t units = src.row_samples * sizeof(SampleT) / 16;
    std::size_t shift = 0;
    for (std::size_t r = g; r < src.rows; r += groups, shift += units)
      for_each_bin<HoldRuns, Aggregate>(data + r * src.row_stride, src.row_samples, rule,
                                        whole ? lane : (lane - shift) & (group - 1), group, add, local);
  }
}

/// One dynamic shared-memory declaration for every kernel of this header (extern __shared__
/// arrays of one name must agree in type across a translation unit).
__device__ __forceinline__ std::uint32_t* shared_counters() {
  extern __shared__ __align__(16) std::uint32_t memscope_histogram_smem[];
  return memscope_histogram_smem;
}

/// The first bin of a block's shared-memory window: the window of `width` bins centred on the
/// median bin of 32 samples spread over the block's share of the input (a bell's mass, wherever
/// the block's samples start; a skew's hot region). Warp 0 finds it; the block reads it after
/// the barrier that follows.
template <class Source, class Rule>
__device__ __forceinline__ void window_start(const typename Source::value_type* __restrict__ data, const Source& src,
                                             const Rule& rule, int width, int* shared_start) {
  if (threadIdx.x < 32) {
    const unsigned lane = threadIdx.x;
    const std::size_t n = src.size();
    const std::size_t probes = static_cast<std::size_t>(gridDim.x) * 32;
    const std::size_t i = ((static_cast<std::size_t>(blockIdx.x) * 32 + lane) * (n / probes) + lane) % n;
    std::size_t pos = 0;
    const auto sample = src.at(data, i, pos);
    const int bin = bin_of(rule, sample, pos);
    const unsigned valid = __ballot_sync(~0u, bin >= 0);
    // The median of the valid bins: the one with as many valid bins below it as half of them
    // (ties by lane), found with 32 shuffles.
    int below = 0;
    for (int l = 0; l < 32; ++l) {
      const int other = __shfl_sync(~0u, bin, l);
      below += ((valid >> l) & 1u) && (other < bin || (other == bin && l < static_cast<int>(lane)));
    }
    const unsigned is_median = __ballot_sync(~0u, bin >= 0 && below == __popc(valid) / 2);
    const int median = __shfl_sync(~0u, bin, is_median ? __ffs(is_median) - 1 : 0);
    if (lane == 0) *shared_start = valid ? max(0, min(median - width / 2, rule.num_bins - width)) : 0;
  }
}

/// Adds a block's or thread's count to a counter of the output type (32- or 64-bit, signed
/// or not: two's complement makes the unsigned add the same).
template <class CounterT>
__device__ __forceinline__ void add_count(CounterT* counter, std::uint32_t count) {
  static_assert(std::is_integral_v<CounterT> && (sizeof(CounterT) == 4 || sizeof(CounterT) == 8),
                "histogram counters are 32- or 64-bit integers");
  if constexpr (sizeof(CounterT) == 8)
    atomicAdd(reinterpret_cast<unsigned long long*>(counter), static_cast<unsigned long long>(count));
  else atomicAdd(reinterpret_cast<unsigned int*>(counter), count);
}

}  // namespace memscope::histogram
