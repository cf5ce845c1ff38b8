#pragma once
// Comparison of kernel output against a CPU reference. Pure C++: no CUDA needed.

#include "memscope/core/parallel.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace memscope {

struct verify_result {
  bool passed = true;
  std::string detail;  // empty when passed; otherwise the first mismatch, with its index

  static verify_result pass(std::string detail = {}) { return {true, std::move(detail)}; }
  static verify_result fail(std::string detail) { return {false, std::move(detail)}; }
};

namespace detail {

struct mismatch_tally {
  std::size_t bad = 0, first_bad = 0;
  double first_got = 0, first_want = 0, max_err = 0;
};

/// Runs ok(i, got, want, err) over [0, n) in parallel and merges the chunks' tallies.
template <class Probe>
mismatch_tally tally(std::size_t n, Probe&& probe) {
  std::vector<mismatch_tally> parts(64);
  parallel_chunks(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    mismatch_tally& t = parts[c];
    for (std::size_t i = begin; i < end; ++i) {
      double g = 0, w = 0, err = 0;
      if (!probe(i, g, w, err)) {
        if (t.bad++ == 0) {
          t.first_bad = i;
          t.first_got = g;
          t.first_want = w;
        }
      }
      if (err > t.max_err || std::isnan(err)) t.max_err = err;
    }
  });
  mismatch_tally all;
  for (const auto& t : parts) {
    if (t.bad && (all.bad == 0 || t.first_bad < all.first_bad)) {
      all.first_bad = t.first_bad;
      all.first_got = t.first_got;
      all.first_want = t.first_want;
    }
    all.bad += t.bad;
    if (t.max_err > all.max_err || std::isnan(t.max_err)) all.max_err = t.max_err;
  }
  return all;
}

inline verify_result report(const mismatch_tally& t, std::size_t n, const char* verb) {
  if (t.bad == 0) return verify_result::pass();
  std::ostringstream os;
  os.precision(9);
  os << t.bad << " of " << n << " elements " << verb << "; first at index " << t.first_bad << ": got " << t.first_got
     << ", want " << t.first_want << " (max abs error " << t.max_err << ")";
  return verify_result::fail(os.str());
}

}  // namespace detail

/// got[i] must be within abs_tol + rel_tol*|want(i)| of want(i); NaN (the poison) never passes.
/// `want` is a callable index -> double, so references need not be materialised.
template <class T, class Want>
verify_result compare_near(const T* got, std::size_t n, Want&& want, double rel_tol, double abs_tol) {
  const auto t = detail::tally(n, [&](std::size_t i, double& g, double& w, double& err) {
    g = static_cast<double>(got[i]);
    w = static_cast<double>(want(i));
    err = std::fabs(g - w);
    return err <= abs_tol + rel_tol * std::fabs(w);  // false for NaN
  });
  return detail::report(t, n, "wrong");
}

/// Exact equality, for integer results and for copies.
template <class T, class Want>
verify_result compare_exact(const T* got, std::size_t n, Want&& want) {
  const auto t = detail::tally(n, [&](std::size_t i, double& g, double& w, double& err) {
    const auto wi = want(i);
    g = static_cast<double>(got[i]);
    w = static_cast<double>(wi);
    err = std::fabs(g - w);
    return got[i] == wi;
  });
  return detail::report(t, n, "differ");
}

/// got[i] against want_tol(i) = {want, tolerance}: for checks whose tolerance depends on the
/// element (a stencil's error scales with the magnitudes it combined, not with its result).
template <class T, class WantTol>
verify_result compare_within(const T* got, std::size_t n, WantTol&& want_tol) {
  const auto t = detail::tally(n, [&](std::size_t i, double& g, double& w, double& err) {
    const auto [want, tol] = want_tol(i);
    g = static_cast<double>(got[i]);
    w = want;
    err = std::fabs(g - w);
    return err <= tol;
  });
  return detail::report(t, n, "wrong");
}

/// A scalar result (a sum) against a double reference.
inline verify_result compare_scalar(double got, double want, double tol, const char* what) {
  if (std::fabs(got - want) <= tol) return verify_result::pass();
  std::ostringstream os;
  os.precision(17);
  os << what << ": got " << got << ", want " << want << " (tolerance " << tol << ")";
  return verify_result::fail(os.str());
}

/// Sum of f(i) for i < n in double, over the host's cores.
template <class F>
double parallel_sum(std::size_t n, F&& f) {
  std::vector<double> parts(64, 0.0);
  parallel_chunks(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    double s = 0;
    for (std::size_t i = begin; i < end; ++i) s += f(i);
    parts[c] = s;
  });
  double s = 0;
  for (double p : parts) s += p;
  return s;
}

}  // namespace memscope
