#include "gpu/gpu_test.hpp"

#include "memscope/constant/stencil.cuh"
#include "memscope/constant/stencil_reference.hpp"
#include "memscope/constant/transform.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"
#include "memscope/global/readonly_gather.cuh"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>

using namespace memscope;

namespace {
using memscope::testing::fresh_seed;

const stencil::coef_source all_sources[] = {stencil::coef_source::global, stencil::coef_source::constant,
                                            stencil::coef_source::restrict_ptr, stencil::coef_source::ldg,
                                            stencil::coef_source::param, stencil::coef_source::l1};
}  // namespace

TEST(StencilGpu, EverySourceAndRadiusMatchesTheReferenceEdgesIncluded) {
  MEMSCOPE_REQUIRE_GPU();
  for (int radius = 1; radius <= 8; ++radius) {
    for (std::size_t n : {std::size_t(2 * radius + 1), std::size_t{1023}, std::size_t{1025}, std::size_t{1000003}}) {
      const std::uint64_t seed = fresh_seed();
      std::vector<float> c(radius);
      for (int i = 0; i < radius; ++i) c[i] = hash_uniform(seed + 1, i);
      stencil::coefficients coef(c);
      device_buffer<float> in(n), out(n);
      fill_hash(in.data(), n, seed, fill_kind::uniform);
      for (auto src : all_sources) {
        out.poison();
        stencil::apply(src, in.data(), out.data(), n, coef, nullptr);
        MEMSCOPE_CUDA_CALL(cudaDeviceSynchronize());
        const auto h = out.to_host();
        const auto r = compare_within(h.data(), n, [&](std::size_t x) {
          double v = 0, mag = 0;
          stencil::reference::point([&](long long j) { return hash_uniform(seed, j); }, n, c, x, v, mag);
          return std::pair<double, double>{v, 4e-7 * mag * radius + 1e-30};
        });
        ASSERT_TRUE(r.passed) << "R=" << radius << " n=" << n << " source " << static_cast<int>(src) << ": " << r.detail;
      }
    }
  }
}

TEST(StencilGpu, BadRadiusAndTooFewPointsAreClearErrors) {
  MEMSCOPE_REQUIRE_GPU();
  EXPECT_THROW(stencil::coefficients(std::vector<float>{}), std::invalid_argument);
  EXPECT_THROW(stencil::coefficients(std::vector<float>(9, 1.0f)), std::invalid_argument);
  stencil::coefficients c4({-1, -2, 2, 1});
  device_buffer<float> in(8), out(8);
  try {
    stencil::apply(stencil::coef_source::constant, in.data(), out.data(), 8, c4, nullptr);
    FAIL() << "n = 8 < 9 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("n >= 9"), std::string::npos) << e.what();
  }
}

TEST(TransformGpu, EveryMatrixSourceOnFloat3AndFloat4) {
  MEMSCOPE_REQUIRE_GPU();
  transform::mat4 m;
  for (int k = 0; k < 16; ++k) m.m[k] = static_cast<float>(k % 5) - 2.0f;  // small integers: exact results
  transform::upload_matrix(m);
  device_buffer<float> dm(16);
  MEMSCOPE_CUDA_CALL(cudaMemcpy(dm.data(), m.m, sizeof m.m, cudaMemcpyHostToDevice));
  const std::size_t n = 100003;
  std::vector<float4> h4(n);
  for (std::size_t i = 0; i < n; ++i) h4[i] = make_float4(float(i % 7), float(i % 11) - 5, float(i % 3), float(i % 2));
  device_buffer<float4> in4(n), out4(n);
  in4.from_host(h4);
  for (auto src : {transform::matrix_source::constant, transform::matrix_source::global, transform::matrix_source::param}) {
    out4.poison();
    transform::apply(src, in4.data(), out4.data(), n, m, dm.data(), nullptr);
    const auto r = out4.to_host();
    for (std::size_t i = 0; i < n; i += 997) {
      const float p[4] = {h4[i].x, h4[i].y, h4[i].z, h4[i].w};
      const float got[4] = {r[i].x, r[i].y, r[i].z, r[i].w};
      for (int row = 0; row < 4; ++row) {
        float want = 0;
        for (int c = 0; c < 4; ++c) want += m.m[c * 4 + row] * p[c];
        ASSERT_EQ(got[row], want) << "source " << static_cast<int>(src) << " point " << i;
      }
    }
  }
}

TEST(GatherGpu, EveryPathIsExact) {
  MEMSCOPE_REQUIRE_GPU();
  const std::size_t m = 300007, n = 1000003;
  const std::uint64_t seed = fresh_seed();
  device_buffer<float> table(m), out(n);
  fill_hash(table.data(), m, seed, fill_kind::uniform);
  std::vector<unsigned> hidx(n);
  for (std::size_t i = 0; i < n; ++i) hidx[i] = hash_u32(seed + 3, i) % m;
  device_buffer<unsigned> idx(n);
  idx.from_host(hidx);
  for (auto p : {gather::path::plain, gather::path::restrict_ptr, gather::path::ldg}) {
    out.poison();
    gather::gather(p, table.data(), idx.data(), out.data(), n, nullptr);
    const auto h = out.to_host();
    EXPECT_TRUE(compare_exact(h.data(), n, [&](std::size_t i) { return hash_uniform(seed, hidx[i]); }).passed);
  }
}

namespace {
std::string find_cuobjdump() {
  for (const char* c : {"cuobjdump", "/usr/local/cuda/bin/cuobjdump"}) {
    const std::string probe = std::string("command -v ") + c + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return c;
  }
  return {};
}

/// SASS of every function in this executable whose name contains `needle`, from cuobjdump.
std::map<std::string, std::string> sass_of(const std::string& tool, const std::string& needle) {
  std::map<std::string, std::string> out;
  // Resolve our own path here: inside popen's shell, /proc/self would be the shell.
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return out;
  FILE* p = popen((tool + " --dump-sass '" + self + "' 2>/dev/null").c_str(), "r");
  if (!p) return out;
  std::string line, current;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) {
    line = buf;
    const auto f = line.find("Function : ");
    if (f != std::string::npos) current = line.find(needle) != std::string::npos ? line.substr(f + 11) : "";
    else if (!current.empty()) out[current] += line;
  }
  pclose(p);
  return out;
}
}  // namespace

TEST(ReadOnlyPathSass, RestrictAndLdgCompileToNonCoherentLoadsPlainDoesNot) {
  MEMSCOPE_REQUIRE_GPU();
  const std::string tool = find_cuobjdump();
  if (tool.empty()) GTEST_SKIP() << "cuobjdump not found (it ships with the CUDA toolkit)";
  const auto fns = sass_of(tool, "gather_");
  int seen = 0;
  for (const auto& [name, sass] : fns) {
    const bool nc = sass.find("LDG.E.CONSTANT") != std::string::npos;
    if (name.find("gather_plain_kernel") != std::string::npos) {
      EXPECT_FALSE(nc) << "plain gather uses the read-only path:\n" << sass;
      ++seen;
    } else if (name.find("gather_restrict_kernel") != std::string::npos || name.find("gather_ldg_kernel") != std::string::npos) {
      EXPECT_TRUE(nc) << name << " does not use LDG.E.CONSTANT:\n" << sass;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 3) << "expected the three gather kernels in this executable's SASS";
}
