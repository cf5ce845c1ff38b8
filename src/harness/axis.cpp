#include "harness/axis.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace memscope {

axis axis::integers(std::string name, std::vector<std::int64_t> values, std::string description) {
  axis a;
  a.name = std::move(name);
  a.kind = axis_kind::integer;
  a.description = std::move(description);
  for (auto v : values) a.full.emplace_back(v);
  return a;
}

axis axis::pow2(std::string name, std::vector<int> exponents, std::string description) {
  axis a;
  a.name = std::move(name);
  a.kind = axis_kind::pow2;
  a.description = std::move(description);
  for (int e : exponents) a.full.emplace_back(std::int64_t{1} << e);
  return a;
}

axis axis::octaves(std::string name, std::int64_t lo, std::int64_t hi, std::string description) {
  axis a;
  a.name = std::move(name);
  a.kind = axis_kind::pow2;
  a.description = std::move(description);
  a.full = octave_values(lo, hi);
  a.quick = octave_values(lo, hi, false);
  return a;
}

axis axis::strings(std::string name, std::vector<std::string> values, std::string description) {
  axis a;
  a.name = std::move(name);
  a.kind = axis_kind::string;
  a.description = std::move(description);
  for (auto& v : values) a.full.emplace_back(std::move(v));
  return a;
}

const std::vector<axis_value>& axis::values(axis_set set) const {
  if (set == axis_set::quick && !quick.empty()) return quick;
  if (set == axis_set::verify && !verify.empty()) return verify;
  return full;
}

void axis_point::set(const std::string& name, axis_value v) {
  for (auto& e : entries_)
    if (e.first == name) {
      e.second = std::move(v);
      return;
    }
  entries_.emplace_back(name, std::move(v));
}

const axis_value& axis_point::get(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.first == name) return e.second;
  throw std::out_of_range("case has no axis named '" + name + "'");
}

bool axis_point::has(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == name; });
}

std::int64_t axis_point::get_int(const std::string& name) const {
  const auto& v = get(name);
  if (!std::holds_alternative<std::int64_t>(v)) throw std::out_of_range("axis '" + name + "' is not an integer axis");
  return std::get<std::int64_t>(v);
}

const std::string& axis_point::get_string(const std::string& name) const {
  const auto& v = get(name);
  if (!std::holds_alternative<std::string>(v)) throw std::out_of_range("axis '" + name + "' is not a string axis");
  return std::get<std::string>(v);
}

std::string axis_point::label(const std::vector<axis>& axes) const {
  std::string s;
  for (const auto& [name, v] : entries_) {
    if (!s.empty()) s += ' ';
    auto it = std::find_if(axes.begin(), axes.end(), [&](const axis& a) { return a.name == name; });
    s += name + "=" +
         (it != axes.end() ? format_axis_value(*it, v)
                           : (std::holds_alternative<std::string>(v) ? std::get<std::string>(v)
                                                                     : std::to_string(std::get<std::int64_t>(v))));
  }
  return s;
}

std::string axis_point::variant() const {
  std::string s;
  for (const auto& [name, v] : entries_) {
    if (!std::holds_alternative<std::string>(v)) continue;
    if (!s.empty()) s += '/';
    s += std::get<std::string>(v);
  }
  return s;
}

axis_override parse_axis_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw usage_error("--axis '" + text + "' is malformed: expected NAME=V1,V2,...");
  axis_override o;
  o.name = text.substr(0, eq);
  std::string rest = text.substr(eq + 1);
  std::size_t start = 0;
  while (true) {
    const auto comma = rest.find(',', start);
    std::string tok = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (tok.empty()) throw usage_error("--axis '" + text + "' has an empty value");
    o.tokens.push_back(tok);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return o;
}

std::int64_t parse_int_value(const std::string& token) {
  auto bad = [&](const char* why) {
    return usage_error("'" + token + "' is not a valid integer axis value (" + why +
                       "; use e.g. 1000, 2^20, 64K, 256M, 1G)");
  };
  if (token.empty()) throw bad("empty");
  const auto caret = token.find('^');
  if (caret != std::string::npos) {
    if (token.substr(0, caret) != "2") throw bad("only powers of 2 may use ^");
    const std::int64_t e = parse_int_value(token.substr(caret + 1));
    if (e < 0 || e > 62) throw bad("exponent out of range 0..62");
    return std::int64_t{1} << e;
  }
  std::size_t pos = 0;
  int base = 10;
  if (token.size() > 2 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X')) {
    base = 16;
    pos = 2;
  }
  if (token[0] == '-') throw bad("negative");
  std::uint64_t value = 0;
  std::size_t digits = 0;
  for (; pos < token.size(); ++pos, ++digits) {
    const char c = token[pos];
    int d;
    if (std::isdigit(static_cast<unsigned char>(c))) d = c - '0';
    else if (base == 16 && std::isxdigit(static_cast<unsigned char>(c))) d = std::tolower(c) - 'a' + 10;
    else break;
    if (value > (std::numeric_limits<std::uint64_t>::max() - d) / base) throw bad("too large");
    value = value * base + static_cast<unsigned>(d);
  }
  if (digits == 0) throw bad("no digits");
  std::uint64_t mult = 1;
  if (pos < token.size()) {
    const std::string suffix = token.substr(pos);
    if (suffix == "K" || suffix == "k" || suffix == "Ki") mult = 1ull << 10;
    else if (suffix == "M" || suffix == "Mi") mult = 1ull << 20;
    else if (suffix == "G" || suffix == "Gi") mult = 1ull << 30;
    else throw bad("unknown suffix");
  }
  if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / mult) throw bad("too large");
  return static_cast<std::int64_t>(value * mult);
}

std::vector<axis_value> resolve_values(const axis& ax, axis_set set, const std::vector<axis_override>& overrides) {
  const axis_override* ov = nullptr;
  for (const auto& o : overrides)
    if (o.name == ax.name) ov = &o;
  if (!ov) return ax.values(set);
  std::vector<axis_value> out;
  for (const auto& tok : ov->tokens) {
    if (ax.is_string() && ax.validate) {
      ax.validate(tok);
      out.emplace_back(tok);
    } else if (ax.is_string()) {
      const bool known = std::any_of(ax.full.begin(), ax.full.end(),
                                     [&](const axis_value& v) { return std::get<std::string>(v) == tok; });
      if (!known) {
        std::string list;
        for (const auto& v : ax.full) list += (list.empty() ? "" : ", ") + std::get<std::string>(v);
        throw usage_error("axis '" + ax.name + "' has no value '" + tok + "' (known: " + list + ")");
      }
      out.emplace_back(tok);
    } else {
      const std::int64_t v = parse_int_value(tok);
      if (ax.only_listed && std::none_of(ax.full.begin(), ax.full.end(), [&](const axis_value& f) {
            // Compared in place: a temporary variant made GCC 12 warn of an uninitialised string.
            const auto* listed = std::get_if<std::int64_t>(&f);
            return listed && *listed == v;
          })) {
        std::string list;
        for (const auto& f : ax.full) list += (list.empty() ? "" : ", ") + std::to_string(std::get<std::int64_t>(f));
        throw usage_error("axis '" + ax.name + "' takes only " + list + ", not " + tok);
      }
      // A value the case lists for this set is always accepted: `memscope verify` prints its
      // empty inputs (bytes=0) and a user must be able to run that point alone.
      const auto& listed = ax.values(set);
      const bool own = std::find(listed.begin(), listed.end(), axis_value(v)) != listed.end();
      if (!own && (v < ax.min_value || v > ax.max_value))
        throw usage_error("axis '" + ax.name + "' value " + tok + " is out of range [" + std::to_string(ax.min_value) +
                          ", " + std::to_string(ax.max_value) + "]");
      out.emplace_back(v);
    }
  }
  return out;
}

std::vector<axis_point> expand(const std::vector<axis>& axes, axis_set set,
                               const std::vector<axis_override>& overrides) {
  std::vector<axis_point> points(1);
  for (const auto& ax : axes) {
    const auto values = resolve_values(ax, set, overrides);
    std::vector<axis_point> next;
    next.reserve(points.size() * values.size());
    for (const auto& p : points)
      for (const auto& v : values) {
        axis_point q = p;
        q.set(ax.name, v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::vector<axis_value> octave_values(std::int64_t lo, std::int64_t hi, bool half_steps) {
  std::vector<axis_value> v;
  for (std::int64_t p = lo; p <= hi; p *= 2) {
    v.emplace_back(p);
    if (half_steps && p >= 2 && p + p / 2 <= hi) v.emplace_back(p + p / 2);
  }
  return v;
}

std::string format_axis_value(const axis& ax, const axis_value& v) {
  if (std::holds_alternative<std::string>(v)) return std::get<std::string>(v);
  const std::int64_t x = std::get<std::int64_t>(v);
  if (ax.kind == axis_kind::pow2 && x > 0 && (x & (x - 1)) == 0) {
    int e = 0;
    while ((std::int64_t{1} << e) != x) ++e;
    return "2^" + std::to_string(e);
  }
  return std::to_string(x);
}

}  // namespace memscope
