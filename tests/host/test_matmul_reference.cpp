// matmul_reference.hpp: the O(n^2) product check catches any wrong entry.

#include "memscope/cache/matmul_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace cache = memscope::cache;

namespace {

struct product {
  std::size_t n;
  std::vector<std::int8_t> a, b;
  std::vector<float> c;
};

product make(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-8, 8);
  product p{n, std::vector<std::int8_t>(n * n), std::vector<std::int8_t>(n * n), std::vector<float>(n * n)};
  for (auto& v : p.a) v = static_cast<std::int8_t>(small(rng));
  for (auto& v : p.b) v = static_cast<std::int8_t>(small(rng));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float acc = 0;
      for (std::size_t k = 0; k < n; ++k)
        acc += static_cast<float>(p.a[i * n + k]) * static_cast<float>(p.b[k * n + j]);
      p.c[i * n + j] = acc;
    }
  return p;
}

}  // namespace

TEST(MatmulReference, ARightProductPasses) {
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{33}, std::size_t{97}}) {
    const auto p = make(n, 7 + n);
    EXPECT_TRUE(cache::check_product(n, p.a, p.b, p.c, 11).passed()) << n;
  }
}

TEST(MatmulReference, EverySingleWrongEntryIsFound) {
  const std::size_t n = 31;
  const auto p = make(n, 3);
  for (std::size_t idx = 0; idx < n * n; ++idx) {
    auto c = p.c;
    c[idx] += (idx % 2) ? 1.0f : -64.0f;
    const auto r = cache::check_product(n, p.a, p.b, c, idx);
    ASSERT_FALSE(r.passed()) << idx;
    EXPECT_EQ(r.wrong_rows, 1u);
    EXPECT_EQ(r.first_row, idx / n);
  }
}

TEST(MatmulReference, FractionsNaNAndPoisonAreWrong) {
  const std::size_t n = 9;
  const auto p = make(n, 5);
  for (float bad : {0.5f, std::nanf(""), std::numeric_limits<float>::infinity(), 3.0e38f}) {
    auto c = p.c;
    c[40] = bad;
    EXPECT_FALSE(cache::check_product(n, p.a, p.b, c, 1).passed()) << bad;
  }
  auto swapped = p.c;
  std::swap(swapped[0], swapped[n * n - 1]);  // right values, wrong places
  if (swapped != p.c) {
    EXPECT_FALSE(cache::check_product(n, p.a, p.b, swapped, 1).passed());
  }
}
