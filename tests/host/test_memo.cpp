// memo: the per-thread cache behind the launchers' occupancy and attribute queries.
#include "memscope/core/memo.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <tuple>

namespace memscope {
namespace {

TEST(Memo, ComputesOncePerKey) {
  memo<std::tuple<const void*, int>, int> cache;
  int calls = 0;
  const int a = 0, b = 0;
  const auto twice = [&](int x) {
    return [&calls, x] {
      ++calls;
      return 2 * x;
    };
  };
  EXPECT_EQ(cache.get({&a, 0}, twice(3)), 6);
  EXPECT_EQ(cache.get({&a, 0}, twice(100)), 6);  // cached: the second compute is not run
  EXPECT_EQ(cache.get({&a, 1}, twice(4)), 8);    // another device
  EXPECT_EQ(cache.get({&b, 0}, twice(5)), 10);   // another kernel
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(cache.size(), 3u);
}

TEST(Memo, AFailureIsReturnedAndNotCached) {
  memo<int, unsigned> cache;
  unsigned out = 7;
  int calls = 0;
  const status st = cache.try_get(1, out, [&](unsigned&) {
    ++calls;
    return status::invalid("kernel cannot run");
  });
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message, "kernel cannot run");
  EXPECT_EQ(out, 7u);  // untouched on failure
  EXPECT_EQ(cache.size(), 0u);
  ASSERT_TRUE(cache
                  .try_get(1, out,
                           [&](unsigned& v) {
                             ++calls;
                             v = 264;
                             return status{};
                           })
                  .ok());
  EXPECT_EQ(out, 264u);
  ASSERT_TRUE(cache
                  .try_get(1, out,
                           [&](unsigned& v) {
                             ++calls;
                             v = 0;
                             return status{};
                           })
                  .ok());
  EXPECT_EQ(out, 264u);
  EXPECT_EQ(calls, 2);
}

TEST(Memo, AThrowingComputeCachesNothing) {
  memo<int, int> cache;
  EXPECT_THROW(cache.get(1, []() -> int { throw std::runtime_error("cudaErrorInvalidDevice"); }), std::runtime_error);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.get(1, [] { return 9; }), 9);
}

}  // namespace
}  // namespace memscope
