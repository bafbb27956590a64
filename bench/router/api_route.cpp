#include "api_route.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "frugal/frugal.h"
#include "host_buffer.hpp"

namespace frugal::bench {
namespace {

using Buffer = HostBuffer;

bool ok(frugal_error* e, const char* what) {
  if (e == nullptr) return true;
  std::printf("  C API %s failed: %s\n", what, frugal_error_message(e));
  frugal_error_destroy(e);
  return false;
}

}  // namespace

double api_route_seconds(const char* strategy, const std::vector<uint16_t>& logits, int64_t tokens, int64_t experts,
                         int64_t k, unsigned threads, int repeats) {
  frugal_context* ctx = nullptr;
  frugal_options* opts = nullptr;
  frugal_router* router = nullptr;
  if (!ok(frugal_context_create(&ctx), "context") ||
      !ok(frugal_context_discover_plugins(ctx, 0, nullptr), "discover") || !ok(frugal_options_create(&opts), "options"))
    return -1.0;
  const bool options_set = ok(frugal_options_set_int(opts, "experts", experts), "set experts") &&
                           ok(frugal_options_set_int(opts, "k", k), "set k") &&
                           ok(frugal_options_set_int(opts, "threads", threads), "set threads");
  double best = -1.0;
  frugal_route_shape shape{sizeof(shape), 0, 0, 0};
  if (options_set && ok(frugal_router_create(ctx, strategy, opts, &router), "create") &&
      ok(frugal_router_plan_shape(router, tokens, &shape), "plan_shape")) {
    const int64_t R = shape.max_rows, S = tokens * k;
    Buffer in(FRUGAL_DTYPE_BFLOAT16, tokens, experts, 2);
    std::copy(logits.begin(), logits.end(), reinterpret_cast<uint16_t*>(in.bytes.data()));
    Buffer ids(FRUGAL_DTYPE_INT32, S, 1, 4), w(FRUGAL_DTYPE_FLOAT32, S, 1, 4), dropped(FRUGAL_DTYPE_UINT8, S, 1, 1),
        slot_row(FRUGAL_DTYPE_INT64, S, 1, 8), offsets(FRUGAL_DTYPE_INT64, experts + 1, 1, 8),
        demand(FRUGAL_DTYPE_INT64, experts, 1, 8), row_token(FRUGAL_DTYPE_INT64, R, 1, 8),
        row_weight(FRUGAL_DTYPE_FLOAT32, R, 1, 4), token_offsets(FRUGAL_DTYPE_INT64, tokens + 1, 1, 8),
        token_rows(FRUGAL_DTYPE_INT64, R, 1, 8), mean_prob(FRUGAL_DTYPE_FLOAT32, experts, 1, 4),
        losses(FRUGAL_DTYPE_FLOAT32, 2, 1, 4);
    const frugal_route_plan plan{sizeof(frugal_route_plan),
                                 &ids.view,
                                 &w.view,
                                 &dropped.view,
                                 &slot_row.view,
                                 &offsets.view,
                                 &demand.view,
                                 &row_token.view,
                                 &row_weight.view,
                                 &token_offsets.view,
                                 &token_rows.view,
                                 &mean_prob.view,
                                 &losses.view,
                                 nullptr,
                                 nullptr};
    const frugal_route_args args{sizeof(frugal_route_args), &in.view, &plan, nullptr};
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
      const auto start = std::chrono::steady_clock::now();
      if (!ok(frugal_router_route(router, &args), "route")) {
        times.clear();
        break;
      }
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    if (!times.empty()) {
      std::nth_element(times.begin(), times.begin() + repeats / 2, times.end());
      best = times[static_cast<std::size_t>(repeats / 2)];
    }
    frugal_router_destroy(router);
  }
  frugal_options_destroy(opts);
  frugal_context_destroy(ctx);
  return best;
}

}  // namespace frugal::bench
