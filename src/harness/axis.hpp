#pragma once
// Named benchmark axes (nvbench style): integers, powers of two, strings. A case is run at
// every point of the cartesian product of its axes. Pure C++.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace memscope {

/// Bad user input (patterns, axis values, sizes): reported as one line, non-zero exit.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using axis_value = std::variant<std::int64_t, std::string>;

enum class axis_kind { integer, pow2, string };

/// Which value list a run uses: the full one, the --quick one, or `memscope verify`'s awkward sizes.
enum class axis_set { full, quick, verify };

struct axis {
  std::string name;
  axis_kind kind = axis_kind::integer;
  std::string description;
  std::vector<axis_value> full, quick, verify;  // quick/verify fall back to full when empty
  std::int64_t min_value = 1;                   // lower bound for user-given integers
  std::int64_t max_value = INT64_MAX;
  /// For string axes that accept values beyond `full` (a shape "RxC"): throws usage_error.
  std::function<void(const std::string&)> validate;
  /// Integer axes whose listed values are the only ones the case implements (element sizes).
  bool only_listed = false;

  static axis integers(std::string name, std::vector<std::int64_t> values, std::string description = {});
  /// Values are exponents: pow2("bytes", {28, 30}) means 2^28 and 2^30.
  static axis pow2(std::string name, std::vector<int> exponents, std::string description = {});
  static axis strings(std::string name, std::vector<std::string> values, std::string description = {});
  /// A size sweep from lo to hi, two points per octave (one per octave for --quick), shown as
  /// powers of two; values between lo_limit and hi_limit may be given with --axis.
  static axis octaves(std::string name, std::int64_t lo, std::int64_t hi, std::string description = {});

  axis& with_full(std::vector<axis_value> v) {
    full = std::move(v);
    return *this;
  }
  axis& with_quick(std::vector<axis_value> v) {
    quick = std::move(v);
    return *this;
  }
  axis& with_verify(std::vector<axis_value> v) {
    verify = std::move(v);
    return *this;
  }
  axis& with_range(std::int64_t lo, std::int64_t hi) {
    min_value = lo;
    max_value = hi;
    return *this;
  }
  axis& with_validator(std::function<void(const std::string&)> v) {
    validate = std::move(v);
    return *this;
  }
  axis& with_only_listed() {
    only_listed = true;
    return *this;
  }

  const std::vector<axis_value>& values(axis_set set) const;
  bool is_string() const { return kind == axis_kind::string; }
};

/// One point of a case's axis space, in axis order.
class axis_point {
 public:
  void set(const std::string& name, axis_value v);
  std::int64_t get_int(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  bool has(const std::string& name) const;
  const std::vector<std::pair<std::string, axis_value>>& entries() const { return entries_; }
  /// "bytes=2^30 type=f32x4"
  std::string label(const std::vector<axis>& axes) const;
  /// The string-axis values joined by '/', the row's "variant".
  std::string variant() const;

 private:
  const axis_value& get(const std::string& name) const;
  std::vector<std::pair<std::string, axis_value>> entries_;
};

/// --axis NAME=V1,V2 as given on the command line, not yet checked against any case.
struct axis_override {
  std::string name;
  std::vector<std::string> tokens;
};

/// Splits "NAME=V1,V2"; throws usage_error on a missing name, '=' or value.
axis_override parse_axis_override(const std::string& text);

/// "1048576", "2^20", "1M", "64K", "1G", "0x100" -> integer; throws usage_error otherwise.
std::int64_t parse_int_value(const std::string& token);

/// Applies the overrides that name this axis; checks integers against the axis' range (a value
/// the axis lists for `set` is accepted even outside it) and strings against its known values.
std::vector<axis_value> resolve_values(const axis& ax, axis_set set, const std::vector<axis_override>& overrides);

/// Cartesian product of the axes' values, first axis slowest.
std::vector<axis_point> expand(const std::vector<axis>& axes, axis_set set,
                               const std::vector<axis_override>& overrides = {});

/// The enumerator whose name is `value`, for string axes listed as `const char* names[]` in
/// enumerator order. Throws std::invalid_argument for a name that is not in the list.
template <class E, std::size_t N>
E choice(const char* const (&names)[N], const std::string& value) {
  for (std::size_t i = 0; i < N; ++i)
    if (value == names[i]) return static_cast<E>(i);
  throw std::invalid_argument("'" + value + "' is not one of this axis' values");
}

/// lo, 2 lo, 4 lo ... up to hi; with half_steps also 1.5x each (3 * 2^(k-1)): two points per
/// octave, for sweeps that must place a capacity within a factor of 1.5.
std::vector<axis_value> octave_values(std::int64_t lo, std::int64_t hi, bool half_steps = true);

/// "2^30" for powers of two on pow2 axes, the plain number otherwise.
std::string format_axis_value(const axis& ax, const axis_value& v);

}  // namespace memscope
