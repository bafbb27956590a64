// Checking a host's plan tensors (frugal_route_plan) against the shapes of
// frugal_router_plan_shape and rewriting them into the compact 1-D views
// plugins receive; the checked activation views of permute / combine.
// Internal to libfrugal.
#pragma once

#include <cstdint>

#include "frugal/router_vtable.h"
#include "matrix_view.hpp"
#include "router/router_shape.hpp"

namespace frugal::routing {

// A compact 1-D view handed to a plugin. Not copyable: view points into it.
struct Vector1D {
  frugal_tensor view{};
  int64_t shape[1]{};
  int64_t strides[1]{1};

  Vector1D() = default;
  Vector1D(const Vector1D&) = delete;
  Vector1D& operator=(const Vector1D&) = delete;

  [[nodiscard]] int64_t size() const noexcept { return shape[0]; }
  template <class T>
  [[nodiscard]] T* data() const noexcept {
    return static_cast<T*>(view.data);
  }
};

// Fails with INVALID_ARGUMENT when activations a and b (elements of
// `element` bytes) overlap: an in-place permute would read rows it has
// already overwritten.
void require_disjoint(const Matrix2D& a, const Matrix2D& b, std::size_t element);

// Checks one plan tensor, named "plan.<role>" in errors: dtype, `count`
// elements, compact, on the device of `device_of`; fills `out`.
void to_plan_vector(const frugal_tensor* tensor, const char* role, int32_t dtype, int64_t count,
                    const Matrix2D& device_of, Vector1D& out);

// The plan as the plugin sees it. Not copyable: plan points at the views.
struct PlanViews {
  Vector1D expert_ids, weights, dropped, slot_row;  // token choice only
  Vector1D expert_offsets, expert_demand, row_token, row_weight, token_offsets, token_rows, mean_prob, losses;
  Vector1D ep_tokens, ep_rows;  // expert-parallel layouts only; host memory
  frugal_route_plan plan{};
  PlanShape shape;
  bool token_choice = true;

  PlanViews() = default;
  PlanViews(const PlanViews&) = delete;
  PlanViews& operator=(const PlanViews&) = delete;
};

// Checks every tensor `raw` names for `layout` and `shape` (dtype, element
// count, compact, on the device of `device_of`) and fills `out`. Token-choice
// tensors are ignored for expert choice; the ep members are required (on the
// host, [W] and [W * E]) for an expert-parallel layout and ignored
// otherwise. Errors name "plan.<tensor>".
void to_plan_views(const frugal_route_plan* raw, const frugal_route_layout& layout, const PlanShape& shape,
                   const Matrix2D& device_of, PlanViews& out);

// Fails with INTERNAL, naming `label`, unless the host plan a plugin wrote
// is consistent (frugal/router.h, "Plan checks").
void verify_host_plan(const PlanViews& plan, const frugal_route_layout& layout, const std::string& label);

}  // namespace frugal::routing
