// A signal asks a run to stop; it does not end the process unless it is asked again later.
#include "harness/stop_signal.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

using namespace memscope;

namespace {

void (*current_handler(int sig))(int) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  return now.sa_handler;
}

}  // namespace

TEST(StopSignal, ASignalIsARequestAndTheSampleThatSeesItStops) {
  const auto before = current_handler(SIGTERM);
  {
    const stop_on_signals guard;
    EXPECT_EQ(stop_signal(), 0);
    EXPECT_NO_THROW(throw_if_stop_requested());
    std::raise(SIGTERM);
    EXPECT_EQ(stop_signal(), SIGTERM);
    // The same request delivered twice at once (the group's copy and a parent's) is one request.
    std::raise(SIGTERM);
    std::raise(SIGINT);
    EXPECT_EQ(stop_signal(), SIGTERM) << "the first signal names the stop";
    try {
      throw_if_stop_requested();
      ADD_FAILURE() << "a requested stop must end the sample loop";
    } catch (const run_stopped& s) {
      EXPECT_EQ(s.signal, SIGTERM);
    }
  }
  EXPECT_EQ(current_handler(SIGTERM), before) << "the previous handler is back";
  EXPECT_EQ(stop_signal(), SIGTERM) << "the request outlives the guard: the exit code is read after it";
  const stop_on_signals fresh;
  EXPECT_EQ(stop_signal(), 0) << "a new run starts with no request";
}

TEST(StopSignal, NamesTheSignalsItHandles) {
  EXPECT_EQ(signal_name(SIGINT), "SIGINT");
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGUSR1), "SIGUSR1");
  EXPECT_EQ(signal_name(SIGHUP), "SIGHUP");
  EXPECT_EQ(signal_name(SIGUSR2), "signal " + std::to_string(SIGUSR2));
}

TEST(StopSignal, ASignalIgnoredAtTheStartStaysIgnored) {
  // As nohup leaves SIGHUP, and a non-interactive shell a background job's SIGINT.
  struct sigaction ignore {
  }, before{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ASSERT_EQ(sigaction(SIGHUP, &ignore, &before), 0);
  {
    const stop_on_signals guard;
    std::raise(SIGHUP);
    EXPECT_EQ(stop_signal(), 0) << "nohup means run on";
    EXPECT_EQ(current_handler(SIGHUP), SIG_IGN);
  }
  EXPECT_EQ(current_handler(SIGHUP), SIG_IGN);
  sigaction(SIGHUP, &before, nullptr);
}

TEST(StopSignalDeathTest, AskedAgainASecondLaterTheProcessEndsAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const stop_on_signals guard;
        std::raise(SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        std::raise(SIGINT);
        std::_Exit(0);  // not reached: the second SIGINT ends the process
      },
      ::testing::KilledBySignal(SIGINT), "SIGINT: stopping after the sample under way");
}
