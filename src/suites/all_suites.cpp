#include "harness/registry.hpp"
#include "suites/suites.hpp"

namespace memscope {

const registry& builtin_registry() {
  static const registry reg = [] {
    registry r;
    suites::register_bandwidth(r);
    suites::register_reduce(r);
    suites::register_coalescing(r);
    suites::register_bank_conflicts(r);
    suites::register_transpose(r);
    suites::register_stencil(r);
    suites::register_constant(r);
    suites::register_constant_symbols(r);
    suites::register_transform(r);
    suites::register_readonly(r);
    suites::register_histogram(r);
    suites::register_dsmem(r);
    suites::register_latency(r);
    suites::register_cache_bandwidth(r);
    suites::register_texture(r);
    suites::register_cache_config(r);
    suites::register_cache_control(r);
    suites::register_registers(r);
    suites::register_atomics(r);
    suites::register_transfer(r);
    suites::register_managed(r);
    suites::register_peer(r);
    suites::register_selftest(r);
    return r;
  }();
  return reg;
}

std::vector<std::string> default_suites() { return {"bandwidth"}; }

}  // namespace memscope
