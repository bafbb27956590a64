// Expert load balance per MoE layer, at the last step experts.csv has.
#pragma once

#include <optional>
#include <vector>

#include "report.hpp"

namespace frugal_demo {

struct ExpertBalance {
  std::optional<std::int64_t> step;  // empty: no experts.csv (dense run)
  std::vector<LayerBalance> layers;  // in layer order
};

ExpertBalance expert_balance(const std::vector<ExpertLoadRecord>& loads);

}  // namespace frugal_demo
