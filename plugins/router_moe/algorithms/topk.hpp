// Top-k selection over one row of scores, shared by every router.
#pragma once

#include <cstdint>
#include <span>

namespace frugal::router {

// Writes the indices of the out.size() largest scores into out, best first;
// out.size() <= scores.size() (callers check k against the experts).
// Ties go to the lower index (the order torch.topk gives on CPU for distinct
// positions is unspecified; a fixed rule makes CPU and CUDA agree). -inf
// scores rank last but are still selectable; NaN must not occur (logits are
// checked finite). O(n * k): k is small (<= a few dozen) for routers.
void top_k(std::span<const float> scores, std::span<int32_t> out) noexcept;

}  // namespace frugal::router
