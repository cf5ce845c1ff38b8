#pragma once
// A per-thread cache of values computed once per key, for the queries launchers make inside
// timed loops (occupancy, device attributes, a kernel's compiled architecture): the host work
// of a launch is on the timed path, and a CUDA query there costs microseconds.

#include "memscope/core/cuda_check.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace memscope {

/// Key: any equality-comparable value (a std::tuple of kernel, device, shape). Few keys per
/// program, so a linear scan. Not shared between threads: declare it `static thread_local`.
template <class Key, class Value>
class memo {
 public:
  /// The value cached for `k`, or `compute(Value&) -> status` run and its value cached when it
  /// succeeds; a failure is returned and not cached, so the next call asks again.
  template <class Compute>
  status try_get(const Key& k, Value& out, Compute&& compute) {
    for (const auto& e : entries_)
      if (e.first == k) {
        out = e.second;
        return {};
      }
    Value v{};
    if (status st = std::forward<Compute>(compute)(v); !st.ok()) return st;
    entries_.emplace_back(k, v);
    out = std::move(v);
    return {};
  }

  /// The same for a `compute() -> Value` that reports failure by throwing.
  template <class Compute>
  Value get(const Key& k, Compute&& compute) {
    for (const auto& e : entries_)
      if (e.first == k) return e.second;
    entries_.emplace_back(k, std::forward<Compute>(compute)());
    return entries_.back().second;
  }

  std::size_t size() const noexcept { return entries_.size(); }

 private:
  std::vector<std::pair<Key, Value>> entries_;
};

}  // namespace memscope
