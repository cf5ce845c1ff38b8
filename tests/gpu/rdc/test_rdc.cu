#include "gpu/gpu_test.hpp"
#include "gpu/rdc/table_use.hpp"

#include "memscope/core/device_buffer.hpp"

using namespace memscope;

TEST(ExternConstant, DefinedInOneFileUsedInAnother) {
  MEMSCOPE_REQUIRE_GPU();
  std::vector<float> values(1024);
  for (int i = 0; i < 1024; ++i) values[i] = 0.5f * static_cast<float>(i) - 100.0f;
  rdc_upload(values);
  EXPECT_EQ(rdc_download(1024), values);
  EXPECT_EQ(rdc_symbol_bytes(), 1024 * sizeof(float));
  device_buffer<float> out(1000);
  out.poison();
  rdc_scale(out.data(), 1000, 2.0f);
  const auto h = out.to_host();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(h[i], 2.0f * values[i]) << i;
}
