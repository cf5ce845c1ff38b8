#pragma once
// One value kept between the points of a run, made again when its key changes: the points of
// one input follow each other (plan_run), so keeping the last input (a data set read from disk,
// a reference count) saves making it again for every point without holding every one. Pure C++.

#include <memory>
#include <string>
#include <utility>

namespace memscope::suites {

template <class T>
class last_kept {
 public:
  /// The value for `key`: the kept one, or make()'s (which replaces it). Where make() throws
  /// (a point skipped for a missing file), nothing stays kept.
  template <class Make>
  const T& get(const std::string& key, Make&& make) {
    if (!value_ || key != key_) {
      value_.reset();
      value_ = std::make_unique<T>(std::forward<Make>(make)());
      key_ = key;
    }
    return *value_;
  }

 private:
  std::string key_;
  std::unique_ptr<T> value_;
};

}  // namespace memscope::suites
