#include "job_clock.hpp"

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>

namespace frugal_demo {
namespace {

// The system clock, not steady_clock: the file is read by later processes,
// and steady_clock's epoch is only meaningful within one boot at best.
std::int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

JobClock JobClock::open_or_start(const std::filesystem::path& start_file, double time_scale) {
  if (!(time_scale > 0)) throw std::invalid_argument("job clock: time_scale must be positive");
  if (std::filesystem::exists(start_file)) {
    std::ifstream in(start_file);
    std::string key;
    std::int64_t start = 0;
    if (!(in >> key >> start) || key != "start_unix_ns" || start <= 0)
      throw std::runtime_error("job clock file " + start_file.string() +
                               " is malformed (expected 'start_unix_ns <integer>')");
    return JobClock(start, time_scale);
  }
  std::filesystem::create_directories(start_file.parent_path());
  const std::int64_t start = unix_now_ns();
  const std::filesystem::path partial = start_file.string() + ".partial";
  {
    std::ofstream out(partial);
    out << "start_unix_ns " << start << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write the job clock file " + partial.string());
  }
  std::filesystem::rename(partial, start_file);  // all or nothing for a later reader
  return JobClock(start, time_scale);
}

double JobClock::real_elapsed_s() const {
  const double elapsed = static_cast<double>(unix_now_ns() - start_unix_ns_) * 1e-9;
  return elapsed > 0 ? elapsed : 0.0;
}

}  // namespace frugal_demo
