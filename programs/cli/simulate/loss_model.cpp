#include "loss_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "input_error.hpp"
#include "input_limits.hpp"
#include "text_input.hpp"

namespace frugal::simulate {

double loss_at(const LossSpec& loss, double real_tokens, double step) {
  if (loss.kind == LossSpec::Kind::kPowerLaw)
    return loss.floor + (loss.initial - loss.floor) * std::pow(1.0 + real_tokens / loss.scale_tokens, -loss.alpha);
  const auto& steps = loss.log_steps;
  if (step <= steps.front()) return loss.log_losses.front();
  if (step >= steps.back()) return loss.log_losses.back();
  const size_t hi = static_cast<size_t>(std::upper_bound(steps.begin(), steps.end(), step) - steps.begin());
  const double f = (step - steps[hi - 1]) / (steps[hi] - steps[hi - 1]);
  return loss.log_losses[hi - 1] + f * (loss.log_losses[hi] - loss.log_losses[hi - 1]);
}

void read_loss_log(std::string_view text, const std::string& source, LossSpec& spec) {
  const auto lines = content_lines(text);
  size_t first = 0;
  if (!lines.empty() && !parse_finite(split_fields(lines[0].text)[0])) {
    if (lines[0].text != "step,loss")
      throw InputError(fmt::format("{}:{}: expected the header step,loss or a data row, got '{}'", source,
                                   lines[0].number, lines[0].text));
    first = 1;
  }
  if (first >= lines.size()) throw InputError(fmt::format("{}: empty loss log: no rows", source));
  spec.log_steps.clear();
  spec.log_losses.clear();
  for (size_t l = first; l < lines.size(); ++l) {
    const std::string where = fmt::format("{}:{}", source, lines[l].number);
    const auto fields = split_fields(lines[l].text);
    if (fields.size() != 2)
      throw InputError(fmt::format("{}: expected 2 fields (step,loss), got {}", where, fields.size()));
    const auto step = parse_finite(fields[0]);
    if (!step || *step < 0 || *step != std::floor(*step))
      throw InputError(fmt::format("{}: step must be an integer >= 0, got '{}'", where, fields[0]));
    if (!spec.log_steps.empty() && *step <= spec.log_steps.back())
      throw InputError(fmt::format("{}: step going backwards: {} after {}", where, *step, spec.log_steps.back()));
    const auto loss = parse_finite(fields[1]);
    if (!loss) throw InputError(fmt::format("{}: loss is not a finite number: '{}'", where, fields[1]));
    if (std::abs(*loss) > kMaxLoss)
      throw InputError(fmt::format("{}: loss {} is outside [-{:g}, {:g}]", where, *loss, kMaxLoss, kMaxLoss));
    spec.log_steps.push_back(*step);
    spec.log_losses.push_back(*loss);
  }
}

}  // namespace frugal::simulate
