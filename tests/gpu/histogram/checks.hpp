#pragma once
// What the histogram GPU tests share: the strategies every form is run with, and an exact
// comparison of two histograms that names the first differing bin.

#include "gpu/gpu_test.hpp"

#include "memscope/histogram/histogram.cuh"

#include <algorithm>
#include <string>
#include <vector>

namespace memscope::testing {

/// The automatic choice and one forced plan of each kind (clusters where the GPU has them).
inline std::vector<histogram::options> histogram_strategies() {
  namespace hg = memscope::histogram;
  std::vector<hg::options> o = {{hg::strategy::automatic, 0},
                                {hg::strategy::global_private, 0, 4, true, true},
                                {hg::strategy::global_atomics, 0, 0, true, false},
                                {hg::strategy::block_smem, 0}};
  if (has_clusters()) o.push_back({hg::strategy::cluster_split, 2});
  return o;
}

template <class CounterT>
void expect_same_counts(const std::vector<CounterT>& got, const std::vector<CounterT>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0, first = got.size();
  for (std::size_t b = 0; b < got.size(); ++b)
    if (got[b] != want[b]) {
      ++bad;
      first = std::min(first, b);
    }
  EXPECT_EQ(bad, 0u) << what << ": first difference at bin " << first << " (" << +got[first] << " vs " << +want[first]
                     << ")";
}

}  // namespace memscope::testing
