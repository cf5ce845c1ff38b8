#pragma once
// Splits CPU reference and verification loops over the host's cores: checking a 1 GiB
// output serially would cost more than timing it.

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace memscope {

/// Calls fn(chunk, begin, end) for contiguous chunks covering [0, n); returns the chunk count.
/// Chunks run concurrently; fn must only write to per-chunk state.
template <class Fn>
std::size_t parallel_chunks(std::size_t n, Fn&& fn) {
  constexpr std::size_t min_chunk = std::size_t{1} << 18;
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t chunks = std::max<std::size_t>(1, std::min({hw, n / min_chunk, std::size_t{64}}));
  if (chunks == 1) {
    fn(std::size_t{0}, std::size_t{0}, n);
    return 1;
  }
  std::vector<std::thread> pool;
  pool.reserve(chunks);
  for (std::size_t c = 0; c < chunks; ++c) pool.emplace_back([&, c] { fn(c, n * c / chunks, n * (c + 1) / chunks); });
  for (auto& t : pool) t.join();
  return chunks;
}

}  // namespace memscope
