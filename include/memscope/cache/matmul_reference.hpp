#pragma once
// Checks every entry of an n x n product C = A B in O(n^2) (Freivalds): with whole-number
// inputs small enough that every float partial sum is exact, C must be whole numbers and
// C r = A (B r) exactly, in 64-bit integers, for any integer vector r. A wrong entry C_ij off
// by e changes row i of C r by e r_j, never 0 since every r_j >= 1; several wrong entries in
// one row cancel only by chance (under 2^-20 per vector; two vectors are used). Pure C++.

#include "memscope/core/random.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memscope::cache {

struct product_check {
  std::size_t wrong_rows = 0;  // rows of C whose entries are not all right
  std::size_t first_row = 0;   // the first of them
  std::size_t not_whole = 0;   // entries that are not whole numbers (certainly wrong)
  bool passed() const { return wrong_rows == 0 && not_whole == 0; }
  std::string describe(std::size_t n) const {
    return std::to_string(wrong_rows) + " of " + std::to_string(n) + " rows wrong (first: row " +
           std::to_string(first_row) + "), " + std::to_string(not_whole) + " entries not whole numbers";
  }
};

/// a, b: the n x n inputs (small whole numbers), c: the result, all row-major.
inline product_check check_product(std::size_t n, const std::vector<std::int8_t>& a, const std::vector<std::int8_t>& b,
                                   const std::vector<float>& c, std::uint64_t seed) {
  product_check out;
  std::vector<std::int64_t> ci(n * n);
  for (std::size_t i = 0; i < n * n; ++i) {
    const float v = c[i];
    if (!std::isfinite(v) || std::nearbyint(v) != v || std::fabs(v) > 9.0e15f) {
      ++out.not_whole;
      ci[i] = 0;
    } else {
      ci[i] = static_cast<std::int64_t>(v);
    }
  }
  std::vector<bool> wrong(n, false);
  for (std::uint64_t round = 0; round < 2; ++round) {
    std::vector<std::int64_t> r(n), br(n, 0);
    for (std::size_t j = 0; j < n; ++j) r[j] = 1 + static_cast<std::int64_t>(hash_u32(seed + round, j) % (1u << 20));
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t j = 0; j < n; ++j) br[k] += b[k * n + j] * r[j];
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t abr = 0, cr = 0;
      for (std::size_t k = 0; k < n; ++k) abr += a[i * n + k] * br[k];
      for (std::size_t j = 0; j < n; ++j) cr += ci[i * n + j] * r[j];
      if (abr != cr) wrong[i] = true;
    }
  }
  for (std::size_t i = n; i-- > 0;)
    if (wrong[i]) {
      ++out.wrong_rows;
      out.first_row = i;
    }
  return out;
}

}  // namespace memscope::cache
