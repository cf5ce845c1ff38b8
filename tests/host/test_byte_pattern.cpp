// byte_pattern.hpp's host checks against a byte-by-byte loop: any offset into the pattern,
// sizes around the word and the host's chunking, corrupted bytes counted once each with the
// lowest one reported.
#include "memscope/transfer/byte_pattern.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace tr = memscope::transfer;

namespace {

/// What the check must say, worked out one byte at a time.
std::size_t mismatches_loop(const std::vector<std::uint8_t>& h, std::size_t at, std::size_t n, std::uint64_t seed,
                            std::size_t& first) {
  std::size_t bad = 0;
  first = n;
  for (std::size_t i = 0; i < n; ++i)
    if (h[at + i] != tr::pattern_byte(seed, at + i) && bad++ == 0) first = i;
  return bad;
}

}  // namespace

TEST(BytePattern, HostCheckAtAnyOffsetMatchesTheByteLoop) {
  std::mt19937_64 gen(std::random_device{}());
  const std::uint64_t seed = gen();
  // Past 2 MiB the host's cores split the words (on a machine with more than one).
  const std::size_t total = (std::size_t{1} << 23) + 13;
  std::vector<std::uint8_t> h(total);
  tr::fill_pattern_host(h.data(), total, seed);
  for (const std::size_t at : {0, 1, 2, 3, 4, 5, 4099, 1 << 20}) {
    for (const std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 4099, 1000003, (1 << 22) + 3}) {
      if (at + n > total) continue;
      std::size_t first = 99;
      EXPECT_EQ(tr::count_pattern_mismatches_host(h.data() + at, n, seed, first, at), 0u) << "at=" << at << " n=" << n;
      EXPECT_EQ(first, n) << "at=" << at << " n=" << n;
      EXPECT_TRUE(tr::verify_pattern_host(h.data() + at, n, seed, "slice", at).passed) << "at=" << at << " n=" << n;
      // The same slice checked from the pattern's start is wrong wherever at is not 0.
      if (at && n >= 64) {
        EXPECT_FALSE(tr::verify_pattern_host(h.data() + at, n, seed, "slice").passed) << "at=" << at;
      }
    }
  }
}

TEST(BytePattern, HostCheckCountsEveryWrongByteAndTheFirst) {
  std::mt19937_64 gen(std::random_device{}());
  const std::uint64_t seed = gen();
  const std::size_t total = (std::size_t{1} << 23) + 7;
  for (const std::size_t at : {0, 3, 6}) {
    std::vector<std::uint8_t> h(total);
    tr::fill_pattern_host(h.data(), total, seed);
    const std::size_t n = total - at;
    // Several bytes of one word, the head and the tail bytes, and random ones across the cores' chunks.
    std::vector<std::size_t> hit = {0, n - 1, n / 2, n / 2 + 1, n / 2 + 2};
    for (int k = 0; k < 40; ++k) hit.push_back(gen() % n);
    for (const std::size_t i : hit)
      h[at + i] = static_cast<std::uint8_t>(tr::pattern_byte(seed, at + i) ^ (1 + gen() % 255));
    std::size_t want_first = 0, first = 0;
    const std::size_t want = mismatches_loop(h, at, n, seed, want_first);
    EXPECT_EQ(tr::count_pattern_mismatches_host(h.data() + at, n, seed, first, at), want) << "at=" << at;
    EXPECT_EQ(first, want_first) << "at=" << at;
    const auto v = tr::verify_pattern_host(h.data() + at, n, seed, "buffer", at);
    EXPECT_FALSE(v.passed);
    EXPECT_NE(v.detail.find(std::to_string(want) + " of " + std::to_string(n) + " bytes wrong, first at 0"),
              std::string::npos)
        << v.detail;
  }
}
