// Two small runs written through MetricsWriter with numbers chosen so that
// every figure of the report can be worked out by hand (see the .cpp):
//  baseline: 6 steps, one attempt, padded (40% waste), full checkpoints;
//  frugal: 8 steps, attempt 0 killed after step 5, attempt 1 resumes from
//          the full checkpoint of step 3 and replays steps 4 and 5.
#pragma once

#include <filesystem>
#include <string>

namespace demo_report_test {

// A fresh temporary directory, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The whole of `file` (empty when it cannot be read).
std::string file_text(const std::filesystem::path& file);

void write_baseline_run(const std::filesystem::path& run_dir);
void write_frugal_run(const std::filesystem::path& run_dir);

}  // namespace demo_report_test
