#include "cli/concurrent.hpp"

#include "harness/stop_signal.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace memscope {

std::vector<board_process> run_boards_at_once(const std::vector<std::string>& args, const std::vector<int>& devices,
                                              const std::string& json, const std::string& dir,
                                              void (*on_exit)(const board_process&)) {
  // This very executable: a board process must be the memscope that planned the run.
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    throw std::runtime_error(std::string("--concurrent: cannot find this executable (/proc/self/exe): ") +
                             std::strerror(errno));
  self[n] = '\0';

  std::vector<std::string> base_env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, concurrent_board_variable, std::strlen(concurrent_board_variable)) != 0 &&
        std::strncmp(*e, concurrent_json_variable, std::strlen(concurrent_json_variable)) != 0)
      base_env.emplace_back(*e);

  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  std::vector<board_process> out;
  std::vector<pid_t> pids;
  const auto reap_all = [&] {
    for (pid_t p : pids)
      if (p > 0) waitpid(p, nullptr, 0);
  };
  for (int d : devices) {
    board_process b;
    b.device = d;
    b.stdout_path = dir + "/gpu" + std::to_string(d) + ".out";
    b.stderr_path = dir + "/gpu" + std::to_string(d) + ".err";
    std::vector<std::string> env = base_env;
    env.push_back(std::string(concurrent_board_variable) + "=" + std::to_string(d));
    if (!json.empty()) env.push_back(std::string(concurrent_json_variable) + "=" + json);
    std::vector<char*> argv{self}, envp;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, b.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, b.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, self, &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
      reap_all();
      throw std::runtime_error("--concurrent: cannot start the process for GPU " + std::to_string(d) + ": " +
                               std::strerror(rc));
    }
    pids.push_back(pid);
    out.push_back(std::move(b));
  }
  // Polled, so that a stop asked of this process (Ctrl-C reaches every process of the group,
  // `kill` only this one) is passed on once to every board still measuring: each writes its
  // rows and ends, and the table below still shows them.
  bool forwarded = false;
  for (std::size_t left = pids.size(); left > 0;) {
    if (const int sig = stop_signal(); sig && !forwarded) {
      for (pid_t p : pids)
        if (p > 0) kill(p, sig);
      forwarded = true;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const auto at = std::find(pids.begin(), pids.end(), pid);
    if (at == pids.end()) continue;  // not a board process
    *at = 0;
    --left;
    auto& b = out[static_cast<std::size_t>(at - pids.begin())];
    b.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    b.killed = !WIFEXITED(status);
    b.seconds = std::chrono::duration<double>(clock::now() - start).count();
    if (on_exit) on_exit(b);
  }
  return out;
}

}  // namespace memscope
