// A worker process: started with fork + exec, signalled, and reaped.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace frugal_demo {

// How a process ended.
struct ProcessEnd {
  bool exited = false;  // else killed by `signal`
  int exit_code = 0;
  int signal = 0;
  [[nodiscard]] std::string describe() const;  // "exit code 3" / "signal SIGKILL"
};

class WorkerProcess {
 public:
  // Starts `executable` with `args`; throws std::system_error when it cannot.
  WorkerProcess(const std::filesystem::path& executable, const std::vector<std::string>& args);
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  // A worker still running when this goes (the supervisor failed) is
  // killed and reaped: no orphan keeps training.
  ~WorkerProcess();

  // nullopt while it runs.
  std::optional<ProcessEnd> poll();
  // Waits up to `seconds` for it to end.
  std::optional<ProcessEnd> wait_for(double seconds);
  void signal(int signal_number);

 private:
  pid_t pid_ = -1;
  std::optional<ProcessEnd> end_;
};

std::string signal_name(int signal_number);

}  // namespace frugal_demo
