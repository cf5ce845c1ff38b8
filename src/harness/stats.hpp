#pragma once
// Summary statistics of timing samples, and the rank test `compare` judges two runs with.
// Pure C++.

#include <cstddef>
#include <vector>

namespace memscope {

struct sample_stats {
  std::size_t count = 0;
  double median = 0, min = 0, max = 0, mean = 0, stdev = 0;
  double noise = 0;  // relative standard deviation, stdev / mean: the spread of one sample
  /// Relative standard error of the mean, noise / sqrt(count): how well the run pinned the
  /// time down. It shrinks as samples accumulate, so it is what the stopping rule targets.
  double rse = 0;
};

/// Throws std::invalid_argument on an empty set or on non-finite samples.
sample_stats summarize(std::vector<double> samples);

/// Median of a copy of `v`; the mean of the two middle values for an even count.
double median_of(std::vector<double> v);

/// Running mean and variance (Welford), so a sampler can test its stopping rule after every
/// sample without sorting.
class running_stats {
 public:
  void add(double x);
  std::size_t count() const { return n_; }
  double sum() const { return sum_; }
  double mean() const { return n_ ? mean_ : 0.0; }
  /// Relative standard error of the mean; infinite below two samples.
  double rse() const;

 private:
  std::size_t n_ = 0;
  double mean_ = 0, m2_ = 0, sum_ = 0;
};

/// Two-sided Mann-Whitney U test (normal approximation with tie correction and continuity
/// correction): the probability of rank sums at least this far apart if both sets came from
/// one distribution. Needs no assumption about the shape of either. 1 when a set is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace memscope
