#include "previous_losses.hpp"

#include "metrics.hpp"

namespace frugal_demo {

std::map<std::int64_t, double> previous_losses(const std::filesystem::path& run_dir, int attempt,
                                               std::int64_t after_step) {
  std::map<std::int64_t, double> losses;
  if (!std::filesystem::exists(run_dir / kStepsFile)) return losses;
  // Rows are in file order, so a later attempt's row for a step replaces
  // an earlier one's: the comparison is with the most recent history.
  for (const StepRecord& row : read_step_records(run_dir))
    if (row.attempt < attempt && row.step > after_step) losses[row.step] = row.loss;
  return losses;
}

}  // namespace frugal_demo
