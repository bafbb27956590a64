// Routers on real tensors (router_vtable.h): random fp32 logits are routed
// into plan tensors sized from the layout; the plan is checked the way the
// core checks host plans (reimplemented here from the header, not taken
// from the core), and activations moved through it (permute, combine) must
// come back as the kept weights times the input.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "host_tensors.hpp"
#include "router_checks.hpp"

namespace frugal::conformance {

namespace {

constexpr int64_t kTokens = 128;
constexpr int64_t kHidden = 16;

// The plan's sizes for T tokens, by the formulas of router_vtable.h.
struct Shape {
  int64_t capacity = 0, rows = 0, k = 0;
  bool token_choice = true;
};

Shape shape_of(const frugal_route_layout& l, int64_t tokens) {
  const auto ceil_cap = [&](int64_t n) {
    return std::max<int64_t>(1,
                             static_cast<int64_t>(std::ceil(static_cast<double>(n) * l.capacity_factor / l.experts)));
  };
  Shape s;
  if (l.choice == FRUGAL_ROUTER_EXPERT_CHOICE) {
    s.token_choice = false;
    s.capacity = std::min(tokens, ceil_cap(tokens));
    s.rows = l.experts * s.capacity;
    return s;
  }
  s.k = l.top_k;
  s.rows = tokens * s.k;
  if (l.drop_policy != FRUGAL_ROUTER_DROPLESS) {
    s.capacity = ceil_cap(s.rows);
    s.rows = std::min(s.rows, l.experts * s.capacity);
  }
  return s;
}

// The plan tensors, allocated by the host (here) with the plan's shapes.
struct Plan {
  Plan(const frugal_route_layout& l, int64_t tokens)
      : T(tokens),
        E(l.experts),
        s(shape_of(l, tokens)),
        expert_ids(FRUGAL_DTYPE_INT32, T * s.k),
        weights(FRUGAL_DTYPE_FLOAT32, T * s.k),
        dropped(FRUGAL_DTYPE_UINT8, T * s.k),
        slot_row(FRUGAL_DTYPE_INT64, T * s.k),
        expert_offsets(FRUGAL_DTYPE_INT64, E + 1),
        expert_demand(FRUGAL_DTYPE_INT64, E),
        row_token(FRUGAL_DTYPE_INT64, s.rows),
        row_weight(FRUGAL_DTYPE_FLOAT32, s.rows),
        token_offsets(FRUGAL_DTYPE_INT64, T + 1),
        token_rows(FRUGAL_DTYPE_INT64, s.rows),
        mean_prob(FRUGAL_DTYPE_FLOAT32, E),
        losses(FRUGAL_DTYPE_FLOAT32, 2) {
    plan.struct_size = sizeof plan;
    if (s.token_choice) {
      plan.expert_ids = expert_ids.view();
      plan.weights = weights.view();
      plan.dropped = dropped.view();
      plan.slot_row = slot_row.view();
    }
    plan.expert_offsets = expert_offsets.view();
    plan.expert_demand = expert_demand.view();
    plan.row_token = row_token.view();
    plan.row_weight = row_weight.view();
    plan.token_offsets = token_offsets.view();
    plan.token_rows = token_rows.view();
    plan.mean_prob = mean_prob.view();
    plan.losses = losses.view();
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  [[nodiscard]] std::vector<unsigned char> bytes() const {
    std::vector<unsigned char> out;
    for (const HostTensor* t : {&expert_ids, &weights, &dropped, &slot_row, &expert_offsets, &expert_demand, &row_token,
                                &row_weight, &token_offsets, &token_rows, &mean_prob, &losses})
      t->append_to(out);
    return out;
  }

  const int64_t T, E;
  const Shape s;
  HostTensor expert_ids, weights, dropped, slot_row, expert_offsets, expert_demand, row_token, row_weight,
      token_offsets, token_rows, mean_prob, losses;
  frugal_route_plan plan{};
};

// "" for a valid plan, else the first broken property (router_vtable.h,
// frugal/router.h "Plan checks").
std::string plan_error(const Plan& p) {
  const auto* off = p.expert_offsets.data<int64_t>();
  const auto* demand = p.expert_demand.data<int64_t>();
  const auto* row_token = p.row_token.data<int64_t>();
  const auto* row_weight = p.row_weight.data<float>();
  const auto* tok_off = p.token_offsets.data<int64_t>();
  const auto* tok_rows = p.token_rows.data<int64_t>();
  const int64_t n = off[p.E];
  const auto at = [](const char* what, int64_t i) { return std::string(what) + "[" + std::to_string(i) + "]"; };
  if (off[0] != 0 || n < 0 || n > p.s.rows)
    return "expert_offsets run from " + std::to_string(off[0]) + " to " + std::to_string(n) +
           "; they must rise from 0 to at most R";
  for (int64_t e = 0; e < p.E; ++e) {
    const int64_t count = off[e + 1] - off[e];
    if (count < 0) return at("expert_offsets", e + 1) + " falls";
    if (p.s.capacity > 0 && count > p.s.capacity)
      return "expert " + std::to_string(e) + " keeps more than its capacity";
    if (demand[e] < count) return at("expert_demand", e) + " is below the rows the expert kept";
    if (!p.s.token_choice && count != p.s.capacity)
      return "expert choice: expert " + std::to_string(e) + " did not take `capacity` tokens";
    for (int64_t r = off[e]; r < off[e + 1]; ++r) {
      if (row_token[r] < 0 || row_token[r] >= p.T) return at("row_token", r) + " names no token";
      if (r > off[e] && row_token[r - 1] >= row_token[r])
        return "tokens do not rise inside expert " + std::to_string(e);
      if (!std::isfinite(row_weight[r]) || row_weight[r] < 0) return at("row_weight", r) + " is negative or not finite";
    }
  }
  for (int64_t r = n; r < p.s.rows; ++r)
    if (row_token[r] != -1 || tok_rows[r] != -1 || row_weight[r] != 0.0f)
      return "row " + std::to_string(r) + " past the kept rows is not blank (-1, -1, weight 0)";
  if (tok_off[0] != 0 || tok_off[p.T] != n) return "token_offsets do not run from 0 to the kept rows";
  std::vector<int> seen(static_cast<size_t>(n), 0);
  for (int64_t t = 0; t < p.T; ++t) {
    if (tok_off[t + 1] < tok_off[t]) return at("token_offsets", t + 1) + " falls";
    for (int64_t i = tok_off[t]; i < tok_off[t + 1]; ++i) {
      const int64_t r = tok_rows[i];
      if (r < 0 || r >= n || seen[static_cast<size_t>(r)]++)
        return at("token_rows", i) + " is out of range or repeated";
      if (row_token[r] != t) return "token_rows lists row " + std::to_string(r) + " under the wrong token";
    }
    if (!p.s.token_choice) continue;
    const int64_t k = p.s.k;
    for (int64_t slot = t * k; slot < (t + 1) * k; ++slot) {
      const int32_t e = p.expert_ids.data<int32_t>()[slot];
      const float w = p.weights.data<float>()[slot];
      const int64_t r = p.slot_row.data<int64_t>()[slot];
      const uint8_t d = p.dropped.data<uint8_t>()[slot];
      if (e < 0 || e >= p.E) return at("expert_ids", slot) + " = " + std::to_string(e) + " is no expert";
      for (int64_t j = t * k; j < slot; ++j)
        if (p.expert_ids.data<int32_t>()[j] == e)
          return "token " + std::to_string(t) + " chose expert " + std::to_string(e) + " twice";
      if (!std::isfinite(w) || w < 0) return at("weights", slot) + " is negative or not finite";
      if (d > 1 || (d == 1) != (r == -1)) return at("dropped", slot) + " and slot_row disagree";
      if (d == 0 && (r < off[e] || r >= off[e + 1] || row_token[r] != t || row_weight[r] != w))
        return at("slot_row", slot) + " is not a row of its expert holding its token and weight";
    }
  }
  for (int64_t e = 0; e < p.E; ++e)
    if (!std::isfinite(p.mean_prob.data<float>()[e]) || p.mean_prob.data<float>()[e] < 0)
      return at("mean_prob", e) + " is negative or not finite";
  return "";
}

std::unique_ptr<HostTensor> logits(const frugal_route_layout& l, uint64_t seed) {
  auto t = std::make_unique<HostTensor>(FRUGAL_DTYPE_FLOAT32, kTokens, l.experts);
  Random(seed).fill(*t, 4.0f);
  return t;
}

frugal_route_layout layout_of(const frugal_router_vtable* vt, void* instance) {
  frugal_route_layout l{};
  l.struct_size = sizeof l;
  const Error e(vt->layout(instance, &l));
  if (e) throw std::runtime_error("layout: " + e.describe());
  if (l.experts < 1 || l.experts > (1 << 20)) throw std::runtime_error("layout: experts " + std::to_string(l.experts));
  return l;
}

// The smallest argument structs a v2.0 caller may pass: through the last
// field the header marks "never NULL".
constexpr size_t kRouteMin = offsetof(frugal_route_call, plan) + sizeof(void*);
constexpr size_t kMoveMin = offsetof(frugal_route_move_call, output) + sizeof(void*);

// One route + permute + combine on `instance`, every args struct of
// struct_size `route_size` / `move_size`.
struct Routed {
  Routed(const frugal_route_layout& l, uint64_t seed)
      : x(logits(l, seed)),
        plan(l, kTokens),
        in(FRUGAL_DTYPE_FLOAT32, kTokens, kHidden),
        permuted(FRUGAL_DTYPE_FLOAT32, plan.s.rows, kHidden),
        out(FRUGAL_DTYPE_FLOAT32, kTokens, kHidden) {
    Random(seed + 1000).fill(in);
  }
  std::string run(const frugal_router_vtable* vt, void* instance, size_t route_size = sizeof(frugal_route_call),
                  size_t move_size = sizeof(frugal_route_move_call)) {
    Larger<frugal_route_call> r{};
    r.args = {route_size, x->view(), &plan.plan, nullptr};
    if (const Error e(vt->route(instance, &r.args)); e) return "route: " + e.describe();
    Larger<frugal_route_move_call> m{};
    m.args = {move_size, &plan.plan, in.view(), permuted.view(), nullptr};
    if (const Error e(vt->permute(instance, &m.args)); e) return "permute: " + e.describe();
    m.args = {move_size, &plan.plan, permuted.view(), out.view(), nullptr};
    if (const Error e(vt->combine(instance, &m.args)); e) return "combine: " + e.describe();
    return "";
  }
  [[nodiscard]] std::vector<unsigned char> bytes() const {
    std::vector<unsigned char> b = plan.bytes();
    permuted.append_to(b);
    out.append_to(b);
    return b;
  }
  // "" when combine(permute(x)) is x times the token's kept weights.
  [[nodiscard]] std::string combine_error() const {
    const auto* tok_off = plan.token_offsets.data<int64_t>();
    for (int64_t t = 0; t < kTokens; ++t) {
      double w = 0;
      for (int64_t i = tok_off[t]; i < tok_off[t + 1]; ++i)
        w += plan.row_weight.data<float>()[plan.token_rows.data<int64_t>()[i]];
      for (int64_t h = 0; h < kHidden; ++h) {
        const double want = w * in.data<float>()[t * kHidden + h], got = out.data<float>()[t * kHidden + h];
        if (!(std::fabs(got - want) <= 1e-5))
          return "token " + std::to_string(t) + ", column " + std::to_string(h) + ": combine(permute(x)) is " +
                 std::to_string(got) + "; the kept weights times x give " + std::to_string(want);
      }
    }
    return "";
  }

  std::unique_ptr<HostTensor> x;
  Plan plan;
  HostTensor in, permuted, out;
};

std::vector<unsigned char> routed_bytes(const frugal_router_vtable* vt, void* instance, size_t route_size,
                                        size_t move_size) {
  Routed r(layout_of(vt, instance), 1);
  const std::string e = r.run(vt, instance, route_size, move_size);
  if (!e.empty()) return {e.begin(), e.end()};
  return r.bytes();
}

void check_null_tensors(Checks& c, const frugal_router_vtable* vt, void* a) {
  c.begin("null-arguments");
  Routed r(layout_of(vt, a), 1);
  const frugal_route_call base{sizeof(frugal_route_call), r.x->view(), &r.plan.plan, nullptr};
  frugal_route_call args = base;
  args.logits = nullptr;
  c.expect_error("null-arguments", "route(args->logits NULL)", vt->route(a, &args));
  args = base;
  args.plan = nullptr;
  c.expect_error("null-arguments", "route(args->plan NULL)", vt->route(a, &args));
  const frugal_route_move_call move{sizeof(frugal_route_move_call), &r.plan.plan, r.in.view(), r.permuted.view(),
                                    nullptr};
  for (const auto& [slot, name] : {std::pair{vt->permute, "permute"}, std::pair{vt->combine, "combine"}}) {
    frugal_route_move_call m = move;
    m.plan = nullptr;
    c.expect_error("null-arguments", std::string(name) + "(args->plan NULL)", slot(a, &m));
    m = move;
    m.input = nullptr;
    c.expect_error("null-arguments", std::string(name) + "(args->input NULL)", slot(a, &m));
    m = move;
    m.output = nullptr;
    c.expect_error("null-arguments", std::string(name) + "(args->output NULL)", slot(a, &m));
  }
  const frugal_router_update_call update{sizeof(frugal_router_update_call), nullptr};
  c.expect_error("null-arguments", "update(args->expert_load NULL)", vt->update(a, &update));
}

void check_thread_safety(Checks& c, const frugal_router_vtable* vt, void* a) {
  // route reads the bias and never changes it (router_vtable.h), so
  // concurrent calls on one instance must equal sequential ones exactly.
  c.begin("thread-safety");
  constexpr int kThreads = 4;
  const frugal_route_layout l = layout_of(vt, a);
  std::vector<std::vector<unsigned char>> expected;
  for (int t = 0; t < kThreads; ++t) {
    Routed r(l, 10 + t);
    const std::string e = r.run(vt, a);
    if (!e.empty()) return c.fail("thread-safety", "sequential " + e);
    expected.push_back(r.bytes());
  }
  std::vector<int> same(kThreads, 1);
  run_concurrently(kThreads, [&](int t) {
    for (int round = 0; round < 8; ++round) {
      Routed r(l, 10 + t);
      same[t] = same[t] && r.run(vt, a).empty() && r.bytes() == expected[t];
    }
  });
  const bool all = std::all_of(same.begin(), same.end(), [](int v) { return v != 0; });
  c.check(all, "thread-safety",
          all ? "4 threads routing, permuting and combining on one instance (own tensors) give the bytes of "
                "sequential calls (FRUGAL_STRATEGY_THREAD_SAFE)"
              : "concurrent route/permute/combine calls on one instance give other bytes than sequential calls "
                "despite FRUGAL_STRATEGY_THREAD_SAFE");
}

}  // namespace

std::vector<unsigned char> route_plan_bytes(const frugal_route_layout& l, const RouteFn& route, std::string& error) {
  Plan plan(l, kTokens);
  const auto x = logits(l, 1);
  if (const Error e(route(x->view(), &plan.plan)); e) {
    error = e.describe();
    return {};
  }
  return plan.bytes();
}

std::vector<unsigned char> route_result(const frugal_router_vtable* vt, void* instance) {
  return routed_bytes(vt, instance, sizeof(frugal_route_call), sizeof(frugal_route_move_call));
}

void check_router_tensors(Checks& c, void* a) {
  const auto* vt = static_cast<const frugal_router_vtable*>(c.s.vtable);
  const frugal_route_layout l = layout_of(vt, a);
  if (!c.core_result.empty()) {
    c.begin("core-parity");
    std::string error;
    const auto direct = route_plan_bytes(
        l,
        [&](const frugal_tensor* x, const frugal_route_plan* plan) {
          const frugal_route_call call{sizeof call, x, plan, nullptr};
          return vt->route(a, &call);
        },
        error);
    c.check(direct == c.core_result, "core-parity",
            "frugal_router_route and a direct route call on the same logits write the same plan " + error);
  }
  c.begin("plan");
  Routed r(l, 1);
  const std::string run_error = r.run(vt, a);
  if (!run_error.empty()) return c.fail("plan", run_error);
  const std::string bad = plan_error(r.plan);
  c.check(bad.empty(), "plan",
          bad.empty() ? "128 tokens x " + std::to_string(l.experts) +
                            " experts: ids in range and distinct per token, "
                            "weights finite and >= 0, offsets, rows and the token index consistent"
                      : bad);
  c.begin("combine");
  const std::string moved = r.combine_error();
  c.check(moved.empty(), "combine",
          moved.empty() ? "combine(permute(x)) equals the token's kept weights times x within 1e-5" : moved);
  check_null_tensors(c, vt, a);

  c.begin("struct-size");
  const auto reference = route_result(vt, a);
  const bool same_min = routed_bytes(vt, a, kRouteMin, kMoveMin) == reference;
  const bool same_big =
      routed_bytes(vt, a, sizeof(Larger<frugal_route_call>), sizeof(Larger<frugal_route_move_call>)) == reference;
  c.check(same_min && same_big, "struct-size",
          "route/permute/combine args of struct_size " + std::to_string(kRouteMin) + "/" + std::to_string(kMoveMin) +
              " (v2.0 minimum) and with a zeroed 64-byte tail give the bytes of this header's size");
  if (c.s.flags & FRUGAL_STRATEGY_DETERMINISTIC) {
    c.begin("determinism");
    Instance b = c.create("determinism");
    if (b)
      c.check(route_result(vt, b.get()) == reference, "determinism",
              "two instances with the same options route, permute and combine identically "
              "(FRUGAL_STRATEGY_DETERMINISTIC)");
  }
  if (c.s.flags & FRUGAL_STRATEGY_THREAD_SAFE) check_thread_safety(c, vt, a);

  // Move the state (a bias router's bias) so the state rules restore
  // something: expert 0 overloaded, the others idle.
  HostTensor load(FRUGAL_DTYPE_INT64, l.experts);
  load.data<int64_t>()[0] = kTokens;
  const frugal_router_update_call update{sizeof(frugal_router_update_call), load.view()};
  c.begin("update");
  c.expect_ok("update", "update with an uneven expert load", vt->update(a, &update));
}

}  // namespace frugal::conformance
