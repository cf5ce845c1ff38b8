// Tests of include/memscope/global/readonly_gather on the GPU.

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

}  // namespace

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
  // A PTX-only build (e.g. CMAKE_CUDA_ARCHITECTURES=80-virtual) has no SASS in the file: the
  // driver compiles it at load time, out of cuobjdump's sight.
  cudaFuncAttributes a{};
  MEMSCOPE_CUDA_CALL(
      cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(memscope::testing::cluster_code_probe_kernel<>)));
  const auto fns = sass_of(tool, "gather_");
  if (fns.empty() && sass_of(tool, "").empty())
    GTEST_SKIP() << "this build carries PTX only (code for sm_" << a.ptxVersion
                 << ", JIT-compiled): no SASS to inspect";
  int seen = 0;
  for (const auto& [name, sass] : fns) {
    const bool nc = sass.find("LDG.E.CONSTANT") != std::string::npos;
    if (name.find("gather_plain_kernel") != std::string::npos) {
      EXPECT_FALSE(nc) << "plain gather uses the read-only path:\n" << sass;
      ++seen;
    } else if (name.find("gather_restrict_kernel") != std::string::npos ||
               name.find("gather_ldg_kernel") != std::string::npos) {
      EXPECT_TRUE(nc) << name << " does not use LDG.E.CONSTANT:\n" << sass;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 3) << "expected the three gather kernels in this executable's SASS";
}
