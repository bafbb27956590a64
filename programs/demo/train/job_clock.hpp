// The job clock of one run: real seconds since the run's first start,
// times time_scale (a demo second stands for time_scale seconds of a
// cluster). The start time lives in a file next to the run's metrics so
// that every attempt of the run, after a kill and a restart, reads the
// same clock: downtime counts, and the clock never goes back (what
// frugal/telemetry.h asks of wall_time_s).
#pragma once

#include <cstdint>
#include <filesystem>

namespace frugal_demo {

class JobClock {
 public:
  // Reads `start_file`, or creates it (and its directory) with the current
  // time when absent.
  // Throws std::runtime_error naming the file when it is unreadable or malformed.
  static JobClock open_or_start(const std::filesystem::path& start_file, double time_scale);

  [[nodiscard]] double real_elapsed_s() const;                                   // real seconds since the first start
  [[nodiscard]] double now_s() const { return real_elapsed_s() * time_scale_; }  // the job clock

 private:
  JobClock(std::int64_t start_unix_ns, double time_scale) : start_unix_ns_(start_unix_ns), time_scale_(time_scale) {}
  std::int64_t start_unix_ns_;
  double time_scale_;
};

}  // namespace frugal_demo
