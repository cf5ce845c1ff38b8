#pragma once
// One registration function per suite; all_suites.cpp calls them in order.

namespace memscope {
class registry;
namespace suites {
void register_bandwidth(registry& reg);
}  // namespace suites
}  // namespace memscope
