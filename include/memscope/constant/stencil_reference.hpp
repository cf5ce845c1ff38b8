#pragma once
// CPU reference for the 1D central-difference stencil. Pure C++, double precision.
//
// Boundary rule (shared by every GPU variant): values outside [0, n) are zero, so every output
// point is defined, edges included:
//   out[x] = sum_{i=1..R} c[i-1] * (in[x+i] - in[x-i]),   in[j] = 0 for j < 0 or j >= n.

#include <cmath>
#include <cstddef>
#include <vector>

namespace memscope::stencil::reference {

/// The value at x, and the magnitude sum that bounds its rounding error (for a relative check).
template <class In>
void point(const In& in, std::size_t n, const std::vector<float>& c, std::size_t x, double& value, double& magnitude) {
  const long long R = static_cast<long long>(c.size());
  auto at = [&](long long j) { return j < 0 || j >= static_cast<long long>(n) ? 0.0 : static_cast<double>(in(j)); };
  value = 0;
  magnitude = 0;
  for (long long i = 1; i <= R; ++i) {
    const long long xi = static_cast<long long>(x);
    value += static_cast<double>(c[i - 1]) * (at(xi + i) - at(xi - i));
    magnitude += std::fabs(static_cast<double>(c[i - 1])) * (std::fabs(at(xi + i)) + std::fabs(at(xi - i)));
  }
}

}  // namespace memscope::stencil::reference
