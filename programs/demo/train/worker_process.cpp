#include "worker_process.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <thread>

namespace frugal_demo {

std::string signal_name(int signal_number) {
  switch (signal_number) {
    case SIGTERM: return "SIGTERM";
    case SIGKILL: return "SIGKILL";
    case SIGINT: return "SIGINT";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    default: return "signal " + std::to_string(signal_number);
  }
}

std::string ProcessEnd::describe() const {
  return exited ? "exit code " + std::to_string(exit_code) : signal_name(signal);
}

WorkerProcess::WorkerProcess(const std::filesystem::path& executable, const std::vector<std::string>& args) {
  // argv is built before fork: the child only calls exec and _exit.
  std::vector<std::string> storage{executable.string()};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::fflush(stdout);  // nothing buffered gets printed twice
  std::fflush(stderr);
  pid_ = fork();
  if (pid_ < 0) throw std::system_error(errno, std::generic_category(), "cannot start a worker process");
  if (pid_ == 0) {
    execv(argv[0], argv.data());
    const char message[] = "frugal-demo: cannot exec the worker process\n";
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    _exit(127);
  }
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0 && !end_) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

std::optional<ProcessEnd> WorkerProcess::poll() {
  if (end_) return end_;
  int status = 0;
  const pid_t done = waitpid(pid_, &status, WNOHANG);
  if (done == 0) return std::nullopt;
  if (done < 0) throw std::system_error(errno, std::generic_category(), "cannot wait for the worker process");
  ProcessEnd end;
  end.exited = WIFEXITED(status);
  end.exit_code = end.exited ? WEXITSTATUS(status) : 0;
  end.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  end_ = end;
  return end_;
}

std::optional<ProcessEnd> WorkerProcess::wait_for(double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    if (auto end = poll()) return end;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void WorkerProcess::signal(int signal_number) {
  if (!end_ && kill(pid_, signal_number) != 0 && errno != ESRCH)
    throw std::system_error(errno, std::generic_category(),
                            "cannot send " + signal_name(signal_number) + " to the worker");
}

}  // namespace frugal_demo
