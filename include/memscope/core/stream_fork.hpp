#pragma once
// Work that must run concurrently inside one timed span: the first task on the timed stream,
// each further task on a stream of its own forked from it (an event) and joined back (an
// event), so the timed stream's events span every task. Copies in both directions use it (two
// copy engines), and copy/compute overlap (three streams).

#include "memscope/core/device_buffer.hpp"

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <vector>

namespace memscope {

class stream_fork {
 public:
  explicit stream_fork(std::size_t side_streams) : sides_(side_streams), done_(side_streams) {}

  /// tasks[0] runs on `main`, tasks[k] on side stream k - 1; an empty task is skipped.
  void run(cudaStream_t main, std::initializer_list<std::function<void(cudaStream_t)>> tasks) {
    std::size_t k = 0;
    if (tasks.size() > 1) fork_.record(main);
    for (const auto& task : tasks) {
      if (k == 0) {
        if (task) task(main);
      } else if (task) {
        const cudaStream_t side = sides_.at(k - 1).get();
        MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(side, fork_.get(), 0));
        task(side);
        done_.at(k - 1).record(side);
        MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(main, done_.at(k - 1).get(), 0));
      }
      ++k;
    }
  }

 private:
  std::vector<cuda_stream> sides_;
  std::vector<cuda_event> done_;
  cuda_event fork_;
};

}  // namespace memscope
