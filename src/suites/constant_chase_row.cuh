#pragma once
// The row of a pointer chase through the constant bank, for `latency/constant` and
// `constant/working_set`. The __constant__ table lives in each translation unit that uses it
// (broadcast.cuh's anonymous namespace), so this lives there too.

#include "harness/state.hpp"
#include "suites/chase_rows.cuh"

#include "memscope/constant/broadcast.cuh"

#include <cstddef>

namespace memscope::suites {
namespace {

/// Chases a random cycle through `ws` bytes of the bank from each SM of chase_rows::chase_sms,
/// each launch warming its SM's constant caches with one untimed lap first.
void constant_chase_row(case_state& st, std::size_t ws) {
  namespace bc = memscope::broadcast;
  const unsigned iters = chase_rows::chase_iters(st);
  const int want = bc::upload_chase(ws, st.seed(), iters);
  // constant_chase writes its end index as an int: into the low half of out[1] (little-endian).
  const auto end_word = [](unsigned long long* out) { return reinterpret_cast<int*>(out + 1); };
  const chase_rows::chase_stats c = chase_rows::repeat_chase(
      st, chase_rows::chase_sms(st), iters, [&](int) { return static_cast<std::uint32_t>(want); },
      [&](unsigned long long* out, int, sm_target on, cudaStream_t q) {
        bc::constant_chase(iters, out, end_word(out), q, true, on);
      });
  chase_rows::report(st, c, [&](unsigned long long* out, cudaStream_t q) {
    bc::constant_chase(chase_rows::timed_iters, out, end_word(out), q);
  });
}

}  // namespace
}  // namespace memscope::suites
