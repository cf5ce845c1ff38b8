#include "harness/stop_signal.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <iterator>

namespace memscope {
namespace {

constexpr int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1};
constexpr std::int64_t same_request_ns = 1'000'000'000;

// Atomics, not volatile sig_atomic_t: the handler may run on any thread (the CUDA driver's
// own among them), and the sampler reads the request on the main one.
std::atomic<int> requested{0};
std::atomic<std::int64_t> first_ns{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<std::int64_t>::is_always_lock_free,
              "the handler may only touch lock-free atomics");
struct sigaction previous[std::size(handled)];
bool installed[std::size(handled)];

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

const char* short_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return nullptr;
  }
}

void say(const char* s) {
  // write(2) only: the one way to print that is safe in a signal handler.
  for (std::size_t left = std::strlen(s); left > 0;) {
    const ssize_t n = ::write(STDERR_FILENO, s, left);
    if (n <= 0) return;
    s += n;
    left -= static_cast<std::size_t>(n);
  }
}

extern "C" void on_stop_signal(int sig) {
  const int saved_errno = errno;
  const std::int64_t now = monotonic_ns();
  int none = 0;
  if (requested.load() == 0) {
    first_ns.store(now);  // before the request: whoever sees the request sees its time
    if (requested.compare_exchange_strong(none, sig)) {
      say("\nmemscope: ");
      say(short_name(sig) ? short_name(sig) : "a signal");
      say(": stopping after the sample under way and writing every row measured so far "
          "(signal again, a second or more from now, to stop at once)\n");
    }
  } else if (now - first_ns.load() >= same_request_ns) {
    // Asked again: the default action, now (blocked until this handler returns).
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    raise(sig);
  }
  errno = saved_errno;
}

}  // namespace

stop_on_signals::stop_on_signals() {
  requested.store(0);
  first_ns.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // the CUDA driver's and the C library's blocking calls carry on
  for (std::size_t i = 0; i < std::size(handled); ++i) {
    // A signal ignored when memscope started stays ignored: `nohup` (SIGHUP), and a
    // non-interactive shell's background job (SIGINT), mean the user wants it to run on.
    installed[i] = sigaction(handled[i], nullptr, &previous[i]) == 0 && previous[i].sa_handler != SIG_IGN;
    if (installed[i]) sigaction(handled[i], &sa, nullptr);
  }
}

stop_on_signals::~stop_on_signals() {
  for (std::size_t i = 0; i < std::size(handled); ++i)
    if (installed[i]) sigaction(handled[i], &previous[i], nullptr);
}

int stop_signal() { return requested.load(); }

std::string signal_name(int sig) {
  const char* n = short_name(sig);
  return n ? n : "signal " + std::to_string(sig);
}

void throw_if_stop_requested() {
  if (const int sig = requested.load()) throw run_stopped{sig};
}

}  // namespace memscope
