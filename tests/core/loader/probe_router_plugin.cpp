// A router plugin for the core's router tests. It does no real routing:
// token t picks experts (t + j) % E with weight 1/k, expert e takes tokens
// e, e + 1, ... (mod T). Its layout comes from options, so one .so covers
// every layout the core must size plans for, and two options break it on
// purpose: layout_fault reports an invalid layout, plan_fault writes a plan
// that is wrong in exactly one way, so the tests can check that the core's
// host-plan check catches each. With option echo, route, permute, combine
// and update fail on purpose (FRUGAL_ERR_CANCELLED) with a message
// describing the views the core handed over, which the tests parse.
// Written against the raw C ABI: the point is what the core passes and
// accepts, not the sdk adapter.
//
// Strategy "probe_router". Options: experts (int, 4), k (int, 2; 0 for
// expert choice), choice (token | expert), drop_policy (none | probability
// | position), capacity_factor (double; 0 when dropless, else 1), bias
// (bool), echo (bool), layout_fault and plan_fault (see kLayoutFaults and
// kPlanFaults).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "frugal/plugin.h"
#include "frugal/router_vtable.h"

namespace {

struct Probe {
  const frugal_host_api* host;
  frugal_route_layout layout;
  std::string plan_fault;
  bool echo;
  int64_t total_load;  // the state: every load update() has seen, summed
};

frugal_error* error(const Probe& p, int32_t code, const std::string& message) {
  return p.host->error_create(code, message.c_str());
}

// ---------------------------------------------------------------- layouts

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// An expert-choice layout, wrong in whichever field the caller gets wrong.
void expert_choice(frugal_route_layout& l, int32_t top_k, int32_t drop_policy, double capacity_factor) {
  l = {l.struct_size, FRUGAL_ROUTER_EXPERT_CHOICE, l.experts, top_k, drop_policy, capacity_factor, 0, 0, 0, 0};
}

// A token-choice layout whose capacity factor does not fit its drop policy.
void drop_with(frugal_route_layout& l, int32_t drop_policy, double capacity_factor) {
  l.drop_policy = drop_policy;
  l.capacity_factor = capacity_factor;
}

// Each entry turns a valid layout into one the core must refuse.
struct LayoutFault {
  const char* name;
  void (*apply)(frugal_route_layout& l);
};

constexpr LayoutFault kLayoutFaults[] = {
    {"none", [](frugal_route_layout&) {}},
    {"experts0", [](frugal_route_layout& l) { l.experts = 0; }},
    {"experts_huge", [](frugal_route_layout& l) { l.experts = (1 << 20) + 1; }},
    {"k_zero", [](frugal_route_layout& l) { l.top_k = 0; }},
    {"k_too_big", [](frugal_route_layout& l) { l.top_k = l.experts + 1; }},
    {"bad_choice", [](frugal_route_layout& l) { l.choice = 7; }},
    {"bad_drop", [](frugal_route_layout& l) { l.drop_policy = 3; }},
    {"expert_k", [](frugal_route_layout& l) { expert_choice(l, 2, FRUGAL_ROUTER_DROPLESS, 1.0); }},
    {"expert_drop", [](frugal_route_layout& l) { expert_choice(l, 0, FRUGAL_ROUTER_DROP_BY_POSITION, 1.0); }},
    {"zero_factor", [](frugal_route_layout& l) { expert_choice(l, 0, FRUGAL_ROUTER_DROPLESS, 0.0); }},
    {"nan_factor", [](frugal_route_layout& l) { drop_with(l, FRUGAL_ROUTER_DROP_BY_POSITION, kNaN); }},
    {"inf_factor", [](frugal_route_layout& l) { drop_with(l, FRUGAL_ROUTER_DROP_BY_PROBABILITY, kInf); }},
    {"factor_while_dropless", [](frugal_route_layout& l) { drop_with(l, FRUGAL_ROUTER_DROPLESS, 1.5); }},
    {"unknown_flag", [](frugal_route_layout& l) { l.flags = 6; }},
};

// ------------------------------------------------------------------ plans

// The plan's tensors as typed host arrays (the core folded byte_offset
// into data and made them compact), with the sizes the probe wrote.
struct Plan {
  int64_t T, E, k, R, C, N;  // tokens, experts, top_k, max_rows, capacity (0: dropless), rows kept
  int32_t* ids;
  uint8_t* dropped;
  float *weights, *row_weight, *mean_prob, *losses;
  int64_t *slot_row, *offsets, *demand, *row_token, *token_offsets, *token_rows;

  [[nodiscard]] int64_t count(int64_t e) const { return offsets[e + 1] - offsets[e]; }
  [[nodiscard]] int64_t rows_of(int64_t t) const { return token_offsets[t + 1] - token_offsets[t]; }
};

template <class T>
T* data_of(const frugal_tensor* t) {
  return t != nullptr ? static_cast<T*>(t->data) : nullptr;
}

// ceil(n * factor / experts) clamped below by 1, in double like the core.
int64_t capacity_for(int64_t n, double factor, int64_t experts) {
  return std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(static_cast<double>(n) * factor / static_cast<double>(experts))));
}

Plan plan_of(const frugal_route_layout& l, const frugal_route_call& a) {
  const frugal_route_plan& p = *a.plan;
  const int64_t T = a.logits->shape[0], E = l.experts, k = l.top_k;
  int64_t C = 0;
  if (l.choice == FRUGAL_ROUTER_EXPERT_CHOICE)
    C = std::min(T, capacity_for(T, l.capacity_factor, E));
  else if (l.drop_policy != FRUGAL_ROUTER_DROPLESS)
    C = capacity_for(T * k, l.capacity_factor, E);
  return Plan{.T = T,
              .E = E,
              .k = k,
              .R = p.row_token->shape[0],
              .C = C,
              .N = 0,
              .ids = data_of<int32_t>(p.expert_ids),
              .dropped = data_of<uint8_t>(p.dropped),
              .weights = data_of<float>(p.weights),
              .row_weight = data_of<float>(p.row_weight),
              .mean_prob = data_of<float>(p.mean_prob),
              .losses = data_of<float>(p.losses),
              .slot_row = data_of<int64_t>(p.slot_row),
              .offsets = data_of<int64_t>(p.expert_offsets),
              .demand = data_of<int64_t>(p.expert_demand),
              .row_token = data_of<int64_t>(p.row_token),
              .token_offsets = data_of<int64_t>(p.token_offsets),
              .token_rows = data_of<int64_t>(p.token_rows)};
}

// Rows past the N kept are blank; the per-expert numbers every plan has.
void finish(Plan& p) {
  for (int64_t r = p.N; r < p.R; ++r) {
    p.row_token[r] = -1;
    p.token_rows[r] = -1;
    p.row_weight[r] = 0.0f;
  }
  for (int64_t e = 0; e < p.E; ++e) p.mean_prob[e] = 1.0f / static_cast<float>(p.E);
  // Not zero, so the tests see the statistics pass the plugin's losses on.
  p.losses[0] = 0.25f;
  p.losses[1] = 0.125f;
}

// Token choice, dropping by position past the capacity. needless_drop
// drops the last slot as well, though its expert has room (or the router
// is dropless): a silent token loss the core should catch.
void write_token_choice(Plan& p, bool needless_drop) {
  const int64_t S = p.T * p.k;
  std::vector<int64_t> kept(static_cast<size_t>(p.E), 0);
  std::vector<bool> keep(static_cast<size_t>(S));
  std::fill(p.demand, p.demand + p.E, 0);
  for (int64_t s = 0; s < S; ++s) {
    const int64_t t = s / p.k, j = s % p.k;
    const auto e = static_cast<int32_t>((t + j) % p.E);
    p.ids[s] = e;
    p.weights[s] = 1.0f / static_cast<float>(p.k);
    ++p.demand[e];
    keep[s] = (p.C == 0 || kept[e] < p.C) && !(needless_drop && s == S - 1);
    if (keep[s]) ++kept[e];
  }
  p.offsets[0] = 0;
  for (int64_t e = 0; e < p.E; ++e) p.offsets[e + 1] = p.offsets[e] + kept[e];
  p.N = p.offsets[p.E];
  std::vector<int64_t> fill(static_cast<size_t>(p.E), 0);
  int64_t index = 0;  // slots are visited in token order, so tokens rise inside each expert
  p.token_offsets[0] = 0;
  for (int64_t s = 0; s < S; ++s) {
    const int64_t t = s / p.k;
    p.dropped[s] = keep[s] ? 0 : 1;
    p.slot_row[s] = -1;
    if (keep[s]) {
      const int64_t r = p.offsets[p.ids[s]] + fill[p.ids[s]]++;
      p.slot_row[s] = r;
      p.row_token[r] = t;
      p.row_weight[r] = p.weights[s];
      p.token_rows[index++] = r;
    }
    if (s % p.k == p.k - 1) p.token_offsets[t + 1] = index;
  }
  finish(p);
}

// Expert choice: expert e takes tokens e, e + 1, ... (mod T), C of them
// (C - 1 for the last expert with expert_short), in rising order.
void write_expert_choice(Plan& p, bool expert_short) {
  std::vector<int64_t> per_token(static_cast<size_t>(p.T) + 1, 0);
  p.offsets[0] = 0;
  for (int64_t e = 0; e < p.E; ++e) {
    const int64_t take = expert_short && e == p.E - 1 ? p.C - 1 : p.C;
    std::vector<int64_t> tokens;
    for (int64_t i = 0; i < take; ++i) tokens.push_back((e + i) % p.T);
    std::sort(tokens.begin(), tokens.end());
    for (int64_t i = 0; i < take; ++i) {
      const int64_t r = p.offsets[e] + i;
      p.row_token[r] = tokens[i];
      p.row_weight[r] = 1.0f / static_cast<float>(p.C);
      ++per_token[tokens[i] + 1];
    }
    p.offsets[e + 1] = p.offsets[e] + take;
    p.demand[e] = p.C;
  }
  p.N = p.offsets[p.E];
  // The token index lists each token's rows in expert (= row) order.
  for (int64_t t = 0; t < p.T; ++t) per_token[t + 1] += per_token[t];
  std::copy(per_token.begin(), per_token.end(), p.token_offsets);
  std::vector<int64_t> next(per_token.begin(), per_token.end() - 1);
  for (int64_t r = 0; r < p.N; ++r) p.token_rows[next[p.row_token[r]]++] = r;
  finish(p);
}

// The first token with two rows or more (plans in the tests always have one).
int64_t token_with_two_rows(const Plan& p) {
  int64_t t = 0;
  while (t + 1 < p.T && p.rows_of(t) < 2) ++t;
  return t;
}

// Each entry breaks one rule of frugal/router.h's "Plan checks" in an
// otherwise correct plan. needless_drop and expert_short are applied while
// writing (see above). Faults name slots and rows by the plans the tests
// use (T >= 3, E >= 2, expert 0 holding two rows or more).
struct PlanFault {
  const char* name;
  void (*apply)(Plan& p);
};

constexpr PlanFault kPlanFaults[] = {
    {"none", [](Plan&) {}},
    {"needless_drop", [](Plan&) {}},
    {"expert_short", [](Plan&) {}},
    // expert_offsets and expert_demand
    {"offsets_start", [](Plan& p) { p.offsets[0] = 1; }},
    {"offsets_fall", [](Plan& p) { p.offsets[2] = p.offsets[1] - 1; }},
    {"offsets_end",
     [](Plan& p) {
       ++p.offsets[p.E];     // the last expert claims a row past R ...
       ++p.demand[p.E - 1];  // ... and was asked for it
     }},
    {"demand_low", [](Plan& p) { p.demand[0] = p.count(0) - 1; }},
    {"demand_wrong", [](Plan& p) { ++p.demand[0]; }},
    {"over_capacity", [](Plan& p) { ++p.offsets[1]; }},
    // rows
    {"bad_row_token", [](Plan& p) { p.row_token[0] = p.T; }},
    {"tokens_not_rising", [](Plan& p) { std::swap(p.row_token[0], p.row_token[1]); }},
    {"nan_row_weight", [](Plan& p) { p.row_weight[0] = std::numeric_limits<float>::quiet_NaN(); }},
    {"tail_not_blank", [](Plan& p) { p.row_token[p.N] = 0; }},
    // the token index
    {"token_offsets_start", [](Plan& p) { p.token_offsets[0] = 1; }},
    {"missing_token", [](Plan& p) { --p.token_offsets[p.T]; }},
    {"token_offsets_fall", [](Plan& p) { p.token_offsets[2] = p.token_offsets[1] - 1; }},
    {"token_offsets_overrun", [](Plan& p) { p.token_offsets[p.T - 1] = p.token_offsets[p.T] + 1; }},
    {"token_rows_range", [](Plan& p) { p.token_rows[0] = -1; }},
    {"duplicate_row", [](Plan& p) { p.token_rows[1] = p.token_rows[0]; }},
    {"token_rows_mixed", [](Plan& p) { std::swap(p.token_rows[0], p.token_rows[p.token_offsets[1]]); }},
    {"token_rows_order",
     [](Plan& p) {
       const int64_t first = p.token_offsets[token_with_two_rows(p)];
       std::swap(p.token_rows[first], p.token_rows[first + 1]);
     }},
    // slots
    {"bad_expert", [](Plan& p) { p.ids[0] = static_cast<int32_t>(p.E); }},
    {"repeated_expert", [](Plan& p) { p.ids[1] = p.ids[0]; }},
    {"nan_slot_weight", [](Plan& p) { p.weights[0] = std::numeric_limits<float>::quiet_NaN(); }},
    {"dropped_value", [](Plan& p) { p.dropped[0] = 2; }},
    {"dropped_mismatch", [](Plan& p) { p.dropped[0] = 1; }},
    {"dropped_row_kept",
     [](Plan& p) {
       // token 0's last slot says dropped, but its row stays in the plan
       p.dropped[p.k - 1] = 1;
       p.slot_row[p.k - 1] = -1;
     }},
    {"slot_row_wrong_expert", [](Plan& p) { p.slot_row[0] = p.N - 1; }},
    {"slot_row_wrong_token", [](Plan& p) { ++p.slot_row[0]; }},
    {"weight_mismatch", [](Plan& p) { p.row_weight[p.slot_row[0]] *= 2.0f; }},
    // per-expert numbers
    {"negative_mean_prob", [](Plan& p) { p.mean_prob[0] = -1.0f; }},
    {"nan_loss", [](Plan& p) { p.losses[1] = std::numeric_limits<float>::quiet_NaN(); }},
};

template <class Table, size_t N>
const Table* find_named(const Table (&table)[N], const std::string& name) {
  for (const Table& entry : table)
    if (name == entry.name) return &entry;
  return nullptr;
}

// ------------------------------------------------------------------ views

// " name=2d 10x4 s6,1 t1 @0x... dev1 +0" for one view, " name=-" for NULL:
// ndim, shape, strides, dtype, data, device type and byte_offset.
std::string describe(const std::string& name, const frugal_tensor* t) {
  if (t == nullptr) return " " + name + "=-";
  std::string out = " " + name + "=" + std::to_string(t->ndim) + "d";
  for (int32_t i = 0; i < t->ndim; ++i) out += (i == 0 ? " " : "x") + std::to_string(t->shape[i]);
  for (int32_t i = 0; i < t->ndim; ++i)
    out += (i == 0 ? " s" : ",") + (t->strides != nullptr ? std::to_string(t->strides[i]) : std::string("null"));
  char rest[96];
  std::snprintf(rest, sizeof rest, " t%d @%p dev%d +%llu", static_cast<int>(t->dtype), t->data,
                static_cast<int>(t->device.type), static_cast<unsigned long long>(t->byte_offset));
  return out + rest;
}

std::string describe(const frugal_route_plan& p) {
  const std::pair<const char*, const frugal_tensor*> members[] = {
      {"expert_ids", p.expert_ids},
      {"weights", p.weights},
      {"dropped", p.dropped},
      {"slot_row", p.slot_row},
      {"expert_offsets", p.expert_offsets},
      {"expert_demand", p.expert_demand},
      {"row_token", p.row_token},
      {"row_weight", p.row_weight},
      {"token_offsets", p.token_offsets},
      {"token_rows", p.token_rows},
      {"mean_prob", p.mean_prob},
      {"losses", p.losses},
  };
  std::string out;
  for (const auto& [name, tensor] : members) out += describe(std::string("plan.") + name, tensor);
  return out;
}

frugal_error* echo(const Probe& p, const std::string& seen) { return error(p, FRUGAL_ERR_CANCELLED, "echo:" + seen); }

// The probe runs on host memory only (the core hands pinned memory over as CPU).
frugal_error* require_host(const Probe& p, const frugal_tensor* t, const char* what) {
  if (t->device.type == FRUGAL_DEVICE_CPU) return nullptr;
  return error(p, FRUGAL_ERR_UNSUPPORTED,
               std::string(what) + " is on CUDA:" + std::to_string(t->device.id) + "; probe_router runs on the CPU");
}

// ------------------------------------------------------------------ slots

// Option reads go on after a failure; the first error is the one returned.
void keep_first(const frugal_host_api* host, frugal_error** failure, frugal_error* e) {
  if (*failure == nullptr)
    *failure = e;
  else
    host->error_destroy(e);
}

std::string option_string(const frugal_host_api* host, const frugal_options* options, const char* name,
                          const char* fallback, frugal_error** failure) {
  const char* value = fallback;
  if (frugal_error* e = host->option_get_string(options, name, fallback, &value)) keep_first(host, failure, e);
  return value != nullptr ? value : fallback;
}

frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** instance) {
  static const char* const kKnown[] = {"experts", "k",    "choice",       "drop_policy", "capacity_factor",
                                       "bias",    "echo", "layout_fault", "plan_fault"};
  if (frugal_error* e = host->options_check_known(options, kKnown, std::size(kKnown), nullptr)) return e;
  frugal_error* failure = nullptr;
  const std::string choice = option_string(host, options, "choice", "token", &failure);
  const std::string drop = option_string(host, options, "drop_policy", "none", &failure);
  const std::string layout_fault = option_string(host, options, "layout_fault", "none", &failure);
  const std::string plan_fault = option_string(host, options, "plan_fault", "none", &failure);
  if (failure != nullptr) return failure;
  const bool expert_choice = choice == "expert";
  int64_t experts = 0, k = 0;
  double factor = 0.0;
  int32_t bias = 0, echo_on = 0;
  const bool dropless = drop == "none" && !expert_choice;
  for (frugal_error* e :
       {host->option_get_int(options, "experts", 4, &experts),
        host->option_get_int(options, "k", expert_choice ? 0 : 2, &k),
        host->option_get_double(options, "capacity_factor", dropless ? 0.0 : 1.0, &factor),
        host->option_get_bool(options, "bias", 0, &bias), host->option_get_bool(options, "echo", 0, &echo_on)})
    if (e != nullptr) keep_first(host, &failure, e);
  if (failure != nullptr) return failure;
  const auto bad = [&](const std::string& what) {
    return host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, what.c_str());
  };
  if (choice != "token" && !expert_choice) return bad("choice '" + choice + "': token or expert");
  const int32_t policy = drop == "none"          ? FRUGAL_ROUTER_DROPLESS
                         : drop == "probability" ? FRUGAL_ROUTER_DROP_BY_PROBABILITY
                         : drop == "position"    ? FRUGAL_ROUTER_DROP_BY_POSITION
                                                 : -1;
  if (policy < 0) return bad("drop_policy '" + drop + "': none, probability or position");
  const LayoutFault* broken = find_named(kLayoutFaults, layout_fault);
  if (broken == nullptr) return bad("unknown layout_fault '" + layout_fault + "'");
  if (find_named(kPlanFaults, plan_fault) == nullptr) return bad("unknown plan_fault '" + plan_fault + "'");
  frugal_route_layout layout{sizeof(frugal_route_layout),
                             expert_choice ? FRUGAL_ROUTER_EXPERT_CHOICE : FRUGAL_ROUTER_TOKEN_CHOICE,
                             static_cast<int32_t>(experts),
                             static_cast<int32_t>(k),
                             policy,
                             factor,
                             bias != 0 ? FRUGAL_ROUTE_LAYOUT_BIAS : 0u,
                             0,
                             0,
                             0};
  broken->apply(layout);
  *instance = new Probe{host, layout, plan_fault, echo_on != 0, 0};
  return nullptr;
}

void destroy(void* instance) { delete static_cast<Probe*>(instance); }

frugal_error* layout(void* instance, frugal_route_layout* out) {
  const auto* p = static_cast<Probe*>(instance);
  const size_t size = out->struct_size;  // the core's struct: fill up to it, keep its size
  std::memcpy(static_cast<void*>(out), &p->layout, std::min(size, sizeof(frugal_route_layout)));
  out->struct_size = size;
  return nullptr;
}

frugal_error* route(void* instance, const frugal_route_call* a) {
  const auto& p = *static_cast<Probe*>(instance);
  if (p.echo) return echo(p, describe("logits", a->logits) + describe(*a->plan));
  if (frugal_error* e = require_host(p, a->logits, "logits")) return e;
  Plan plan = plan_of(p.layout, *a);
  if (p.layout.choice == FRUGAL_ROUTER_EXPERT_CHOICE)
    write_expert_choice(plan, p.plan_fault == "expert_short");
  else
    write_token_choice(plan, p.plan_fault == "needless_drop");
  find_named(kPlanFaults, p.plan_fault)->apply(plan);
  return nullptr;
}

// Activations: FLOAT32 or BFLOAT16 (the core checked), rows strided.
float load(const frugal_tensor* t, int64_t row, int64_t col) {
  const int64_t i = row * t->strides[0] + col;
  if (t->dtype == FRUGAL_DTYPE_FLOAT32) return static_cast<const float*>(t->data)[i];
  const uint32_t bits = static_cast<uint32_t>(static_cast<const uint16_t*>(t->data)[i]) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

void store(const frugal_tensor* t, int64_t row, int64_t col, float value) {
  const int64_t i = row * t->strides[0] + col;
  if (t->dtype == FRUGAL_DTYPE_FLOAT32) {
    static_cast<float*>(t->data)[i] = value;
    return;
  }
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest even (the tests use no NaN)
  static_cast<uint16_t*>(t->data)[i] = static_cast<uint16_t>(bits >> 16);
}

// What permute and combine do first: echo, or refuse device memory.
frugal_error* before_move(const Probe& p, const frugal_route_move_call* a) {
  if (p.echo) return echo(p, describe("input", a->input) + describe("output", a->output) + describe(*a->plan));
  return require_host(p, a->input, "input");
}

frugal_error* permute(void* instance, const frugal_route_move_call* a) {
  if (frugal_error* e = before_move(*static_cast<Probe*>(instance), a)) return e;
  const int64_t rows = data_of<const int64_t>(a->plan->expert_offsets)[a->plan->expert_offsets->shape[0] - 1];
  const int64_t* row_token = data_of<const int64_t>(a->plan->row_token);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < a->input->shape[1]; ++c) store(a->output, r, c, load(a->input, row_token[r], c));
  return nullptr;
}

frugal_error* combine(void* instance, const frugal_route_move_call* a) {
  if (frugal_error* e = before_move(*static_cast<Probe*>(instance), a)) return e;
  const int64_t* offsets = data_of<const int64_t>(a->plan->token_offsets);
  const int64_t* token_rows = data_of<const int64_t>(a->plan->token_rows);
  const float* weight = data_of<const float>(a->plan->row_weight);
  for (int64_t t = 0; t < a->output->shape[0]; ++t)
    for (int64_t c = 0; c < a->output->shape[1]; ++c) {
      float sum = 0.0f;
      for (int64_t i = offsets[t]; i < offsets[t + 1]; ++i)
        sum += weight[token_rows[i]] * load(a->input, token_rows[i], c);
      store(a->output, t, c, sum);
    }
  return nullptr;
}

frugal_error* update(void* instance, const frugal_router_update_call* a) {
  auto& p = *static_cast<Probe*>(instance);
  if (p.echo) return echo(p, describe("expert_load", a->expert_load));
  const auto* load = data_of<const int64_t>(a->expert_load);
  for (int64_t e = 0; e < a->expert_load->shape[0]; ++e) p.total_load += load[e];
  return nullptr;
}

// The state is total_load's 8 bytes, so the size query, the short-buffer
// path and a round trip can be tested.
frugal_error* export_state(void* instance, void* buffer, size_t capacity, size_t* size) {
  const auto& p = *static_cast<Probe*>(instance);
  *size = sizeof p.total_load;
  if (buffer == nullptr) return nullptr;
  if (capacity < sizeof p.total_load) return error(p, FRUGAL_ERR_OUT_OF_RANGE, "probe state needs 8 bytes");
  std::memcpy(buffer, &p.total_load, sizeof p.total_load);
  return nullptr;
}

frugal_error* import_state(void* instance, const void* data, size_t size) {
  auto& p = *static_cast<Probe*>(instance);
  if (size != sizeof p.total_load)
    return error(p, FRUGAL_ERR_DATA_CORRUPTED, "probe state is 8 bytes, not " + std::to_string(size));
  std::memcpy(&p.total_load, data, sizeof p.total_load);
  return nullptr;
}

constexpr frugal_router_vtable kVtable{sizeof(frugal_router_vtable),
                                       create,
                                       destroy,
                                       layout,
                                       route,
                                       permute,
                                       combine,
                                       update,
                                       export_state,
                                       import_state,
                                       nullptr,
                                       nullptr};
constexpr frugal_strategy_desc kProbe{sizeof(frugal_strategy_desc),
                                      FRUGAL_KIND_ROUTER,
                                      0,
                                      "probe_router",
                                      "routes round-robin; plans breakable on purpose",
                                      &kVtable,
                                      nullptr};
constexpr const frugal_strategy_desc* kStrategies[] = {&kProbe};
constexpr frugal_plugin_desc kPlugin{sizeof(frugal_plugin_desc),
                                     FRUGAL_ABI_VERSION_MAJOR,
                                     FRUGAL_ABI_VERSION_MINOR,
                                     "probe_router",
                                     "0.0.0",
                                     "frugal tests",
                                     "MIT",
                                     1,
                                     kStrategies,
                                     "router probe for the core's plan and tensor checks",
                                     nullptr,
                                     nullptr};

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v2(const frugal_host_api*,
                                                                    const frugal_plugin_desc** out) {
  *out = &kPlugin;
  return nullptr;
}
