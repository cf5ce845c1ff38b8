// Tests of include/memscope/core/device_check on the GPU: the same verdicts as compare_exact
// on the host, at awkward sizes, with planted mismatches and a poisoned (NaN) output.

#include "gpu/gpu_test.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/device_check.cuh"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"

#include <vector>

using namespace memscope;

namespace {

struct hashed {
  std::uint64_t seed;
  MEMSCOPE_HD float operator()(std::size_t i) const { return hash_uniform(seed, i); }
};

}  // namespace

TEST(DeviceCheckGpu, PassesWhereEveryElementMatches) {
  MEMSCOPE_REQUIRE_GPU();
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{1000003},
                              std::size_t{4096} * 256 * 3 + 7}) {  // past the grid: each thread loops
    device_buffer<float> d(n);
    fill_hash(d.data(), n, 42, fill_kind::uniform, nullptr);
    const auto r = compare_exact_on_device(d.data(), n, hashed{42}, nullptr);
    EXPECT_TRUE(r.passed) << n << ": " << r.detail;
  }
}

TEST(DeviceCheckGpu, CountsMismatchesAndNamesTheFirstAsTheHostDoes) {
  MEMSCOPE_REQUIRE_GPU();
  const std::size_t n = 1000003;
  device_buffer<float> d(n);
  fill_hash(d.data(), n, 7, fill_kind::uniform, nullptr);
  std::vector<float> h = d.to_host();
  for (const std::size_t at : {std::size_t{999999}, std::size_t{31}, std::size_t{500000}}) h[at] = -1.0f;
  d.from_host(h);
  const auto r = compare_exact_on_device(d.data(), n, hashed{7}, nullptr);
  ASSERT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("3 of 1000003 elements differ; first at index 31: got -1"), std::string::npos) << r.detail;
  const auto host = compare_exact(h.data(), n, hashed{7});
  EXPECT_EQ(r.detail.substr(0, r.detail.find(" (")), host.detail.substr(0, host.detail.find(" ("))) << host.detail;
}

TEST(DeviceCheckGpu, APoisonedOutputNeverPasses) {
  MEMSCOPE_REQUIRE_GPU();
  const std::size_t n = 4099;
  device_buffer<float> d(n);
  d.poison(nullptr);  // NaN, which equals nothing
  const auto r = compare_exact_on_device(d.data(), n, hashed{1}, nullptr);
  ASSERT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("4099 of 4099 elements differ; first at index 0"), std::string::npos) << r.detail;
}
