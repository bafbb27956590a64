// The trainer's side of the metrics files: every process of a run appends
// to the run directory's CSV files. Each line goes to the kernel in one
// write(2) as soon as it is made, so a process killed by SIGKILL keeps all
// its earlier lines; at most its last line is torn, and the next process
// cuts that torn tail off before it appends.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "metrics.hpp"

namespace frugal_demo {

// A CSV file opened for appending, its header written when it is new.
class AppendedCsv {
 public:
  AppendedCsv(std::filesystem::path file, std::string header);
  ~AppendedCsv();
  AppendedCsv(const AppendedCsv&) = delete;
  AppendedCsv& operator=(const AppendedCsv&) = delete;
  AppendedCsv(AppendedCsv&& other) noexcept;
  AppendedCsv& operator=(AppendedCsv&&) = delete;

  // Appends `line` (without its newline) and the newline in one write.
  void append_line(std::string_view line);

 private:
  std::filesystem::path file_;
  int fd_ = -1;
};

class MetricsWriter {
 public:
  // Creates run_dir if needed; files are opened on first use.
  MetricsWriter(std::filesystem::path run_dir, int attempt);

  // steps.csv; record.attempt is ignored: the writer's attempt is logged.
  void step(const StepRecord& record);
  void eval(std::int64_t step, double clock_s, double eval_loss);
  void event(double clock_s, std::string_view event, std::int64_t step, std::string_view detail = {});
  void expert_load(std::int64_t step, int layer, int expert, double load);
  void resume(std::int64_t restored_step, std::int64_t replayed_step, double loss_before, double loss_after);
  // run.csv: one key of the plan description.
  void run_info(std::string_view key, std::string_view value);
  // ledger.csv, written whole (to a temporary file, then renamed) at the
  // end of the run; `extra` adds keys beyond LedgerTotals'.
  void ledger(const LedgerTotals& totals, const std::map<std::string, double>& extra = {});

 private:
  AppendedCsv& file(const char* name);

  std::filesystem::path dir_;
  int attempt_;
  std::map<std::string, AppendedCsv> files_;
};

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);
// Doubles as written: %.17g (round-trips), losses %.9g (a float's digits,
// so equal float losses print equal).
std::string csv_double(double value);
std::string csv_loss(double value);

// The header line of each file (column names, comma-separated).
std::string_view csv_header(const char* file_name);

}  // namespace frugal_demo
