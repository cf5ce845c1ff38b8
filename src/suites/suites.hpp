#pragma once
// One registration function per suite; all_suites.cpp calls them in order.

namespace memscope {
class registry;
namespace suites {
void register_bandwidth(registry& reg);
void register_reduce(registry& reg);
void register_coalescing(registry& reg);
void register_bank_conflicts(registry& reg);
void register_transpose(registry& reg);
void register_stencil(registry& reg);
void register_constant(registry& reg);
void register_constant_symbols(registry& reg);
void register_transform(registry& reg);
void register_readonly(registry& reg);
void register_histogram(registry& reg);
void register_dsmem(registry& reg);
void register_latency(registry& reg);
void register_cache_bandwidth(registry& reg);
void register_texture(registry& reg);
void register_cache_config(registry& reg);
void register_cache_control(registry& reg);
void register_registers(registry& reg);
void register_atomics(registry& reg);
void register_transfer(registry& reg);
void register_managed(registry& reg);
void register_peer(registry& reg);
/// Only with MEMSCOPE_SELFTEST=1 in the environment.
void register_selftest(registry& reg);
}  // namespace suites
}  // namespace memscope
