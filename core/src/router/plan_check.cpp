// verify_host_plan (plan_views.hpp): a router bug must surface as an error,
// not as tokens silently dropped, duplicated or sent to the wrong expert.
// O(T * k + R + E), small next to routing itself.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <vector>

#include "error.hpp"
#include "router/plan_views.hpp"

namespace frugal::routing {
namespace {

class PlanChecker {
 public:
  PlanChecker(const PlanViews& p, const frugal_route_layout& layout, const std::string& label)
      : p_(p), layout_(layout), label_(label), T_(p.shape.tokens), E_(layout.experts), R_(p.shape.max_rows) {}

  void run() {
    check_expert_offsets();
    check_rows();
    check_token_index();
    if (layout_.ep_ranks > 0) check_group();
    if (p_.token_choice) {
      check_slots();
    } else if (layout_.ep_ranks == 0) {
      for (int64_t e = 0; e < E_; ++e) {
        expect(count(e) == p_.shape.capacity, "expert {} took {} tokens; expert choice gives each {}", e, count(e),
               p_.shape.capacity);
        expect(demand(e) == p_.shape.capacity, "expert_demand[{}] is {}; expert choice asks {}", e, demand(e),
               p_.shape.capacity);
      }
    }
    for (int64_t e = 0; e < E_; ++e) {
      const float m = p_.mean_prob.data<const float>()[e];
      expect(std::isfinite(m) && m >= 0.0f, "mean_prob[{}] is {}", e, m);
    }
    for (int i = 0; i < 2; ++i) {
      const float v = p_.losses.data<const float>()[i];
      expect(std::isfinite(v), "losses[{}] is {}", i, v);
    }
  }

 private:
  template <class... Args>
  void expect(bool ok, fmt::format_string<Args...> what, Args&&... args) const {
    if (!ok)
      fail(FRUGAL_ERR_INTERNAL, "{}: the plugin wrote an inconsistent plan: {}", label_,
           fmt::format(what, std::forward<Args>(args)...));
  }

  [[nodiscard]] int64_t offset(int64_t e) const { return p_.expert_offsets.data<const int64_t>()[e]; }
  [[nodiscard]] int64_t count(int64_t e) const { return offset(e + 1) - offset(e); }
  [[nodiscard]] int64_t demand(int64_t e) const { return p_.expert_demand.data<const int64_t>()[e]; }
  [[nodiscard]] int64_t row_token(int64_t r) const { return p_.row_token.data<const int64_t>()[r]; }

  void check_expert_offsets() {
    expect(offset(0) == 0, "expert_offsets[0] is {}, not 0", offset(0));
    for (int64_t e = 0; e < E_; ++e) {
      expect(count(e) >= 0, "expert_offsets fall from {} to {} at expert {}", offset(e), offset(e + 1), e);
      expect(demand(e) >= count(e), "expert {} kept {} rows but was asked for {}", e, count(e), demand(e));
      if (p_.shape.capacity > 0)
        expect(count(e) <= p_.shape.capacity, "expert {} kept {} rows; its capacity is {}", e, count(e),
               p_.shape.capacity);
    }
    rows_ = offset(E_);
    expect(rows_ <= R_, "expert_offsets[E] is {}; the plan holds {} rows", rows_, R_);
  }

  // Rows of each expert: real tokens, rising; the tail past N is blank.
  void check_rows() {
    const float* weight = p_.row_weight.data<const float>();
    for (int64_t e = 0; e < E_; ++e) {
      for (int64_t r = offset(e); r < offset(e + 1); ++r) {
        expect(row_token(r) >= 0 && row_token(r) < T_, "row {} names token {} of {}", r, row_token(r), T_);
        if (r > offset(e))  // (expect's arguments are evaluated even when it holds)
          expect(row_token(r - 1) < row_token(r),
                 "expert {}'s rows {} and {} hold tokens {} and {}; tokens must rise inside an expert", e, r - 1, r,
                 row_token(r - 1), row_token(r));
        expect(std::isfinite(weight[r]), "row {} has weight {}", r, weight[r]);
      }
    }
    const int64_t* token_rows = p_.token_rows.data<const int64_t>();
    for (int64_t r = rows_; r < R_; ++r)
      expect(row_token(r) == -1 && token_rows[r] == -1 && weight[r] == 0.0f,
             "unused row {} (past the {} kept) must hold row_token = token_rows = -1 and weight 0", r, rows_);
  }

  // Every kept row appears once in the token index, under its own token.
  void check_token_index() {
    const int64_t* offsets = p_.token_offsets.data<const int64_t>();
    const int64_t* token_rows = p_.token_rows.data<const int64_t>();
    expect(offsets[0] == 0, "token_offsets[0] is {}, not 0", offsets[0]);
    expect(offsets[T_] == rows_, "token_offsets[T] is {}; the plan kept {} rows", offsets[T_], rows_);
    std::vector<bool> seen(static_cast<std::size_t>(rows_), false);
    for (int64_t t = 0; t < T_; ++t) {
      expect(offsets[t] <= offsets[t + 1], "token_offsets fall from {} to {} at token {}", offsets[t], offsets[t + 1],
             t);
      expect(offsets[t + 1] <= rows_, "token_offsets[{}] is {}; the plan kept {} rows", t + 1, offsets[t + 1], rows_);
      for (int64_t i = offsets[t]; i < offsets[t + 1]; ++i) {
        const int64_t r = token_rows[i];
        expect(r >= 0 && r < rows_, "token_rows[{}] is {}; rows are 0 to {}", i, r, rows_ - 1);
        expect(!seen[static_cast<std::size_t>(r)], "row {} appears twice in token_rows", r);
        seen[static_cast<std::size_t>(r)] = true;
        expect(row_token(r) == t, "token_rows lists row {} under token {}, but the row holds token {}", r, t,
               row_token(r));
        if (!p_.token_choice && i > offsets[t])
          expect(token_rows[i - 1] < r, "token {}'s rows {} and {} are not in expert order", t, token_rows[i - 1], r);
      }
    }
  }

  // Expert parallelism: this rank's entries match its plan, and the group
  // kept what one router over all its tokens keeps: min(demand, C) rows per
  // expert for token choice (every demand when dropless), C for expert
  // choice, where C is the formula's over the group's tokens.
  void check_group() {
    const int64_t W = layout_.ep_ranks;
    const int64_t me = layout_.ep_rank;
    const int64_t* tokens = p_.ep_tokens.data<const int64_t>();
    const int64_t* rows = p_.ep_rows.data<const int64_t>();
    expect(tokens[me] == T_, "ep_tokens[{}] is {}; this rank routed {} tokens", me, tokens[me], T_);
    int64_t group = 0;
    for (int64_t r = 0; r < W; ++r) {
      expect(tokens[r] >= 1, "ep_tokens[{}] is {}; every rank routes at least one token", r, tokens[r]);
      group += tokens[r];
    }
    expect(group <= (int64_t{1} << 32), "the group routed {} tokens; at most 2^32", group);
    group_capacity_ = group_capacity(layout_, group);
    for (int64_t e = 0; e < E_; ++e) {
      expect(rows[me * E_ + e] == count(e), "ep_rows[{}, {}] is {}; this rank kept {} rows for expert {}", me, e,
             rows[me * E_ + e], count(e), e);
      int64_t kept = 0;
      for (int64_t r = 0; r < W; ++r) {
        expect(rows[r * E_ + e] >= 0, "ep_rows[{}, {}] is {}", r, e, rows[r * E_ + e]);
        kept += rows[r * E_ + e];
      }
      const int64_t want = !p_.token_choice      ? group_capacity_
                           : group_capacity_ > 0 ? std::min(demand(e), group_capacity_)
                                                 : demand(e);
      expect(kept == want, "the group kept {} rows for expert {}; with demand {} and capacity {} it keeps {}", kept, e,
             demand(e), group_capacity_, want);
      if (!p_.token_choice)
        expect(demand(e) == group_capacity_, "expert_demand[{}] is {}; expert choice asks {} of the group", e,
               demand(e), group_capacity_);
    }
  }

  // Slots, the dropped mask and the rows agree; the demand counts the slots.
  void check_slots() {
    const int64_t k = layout_.top_k;
    const int32_t* ids = p_.expert_ids.data<const int32_t>();
    const float* weights = p_.weights.data<const float>();
    const uint8_t* dropped = p_.dropped.data<const uint8_t>();
    const int64_t* slot_row = p_.slot_row.data<const int64_t>();
    const int64_t* token_rows = p_.token_rows.data<const int64_t>();
    const int64_t* token_offsets = p_.token_offsets.data<const int64_t>();
    const float* row_weight = p_.row_weight.data<const float>();
    std::vector<int64_t> asked(static_cast<std::size_t>(E_), 0);
    int64_t kept = 0;
    for (int64_t t = 0; t < T_; ++t) {
      int64_t next = token_offsets[t];  // this token's kept rows, in slot order
      for (int64_t s = t * k; s < (t + 1) * k; ++s) {
        const int32_t e = ids[s];
        expect(e >= 0 && e < E_, "slot {} names expert {} of {}", s, e, E_);
        for (int64_t j = t * k; j < s; ++j) expect(ids[j] != e, "token {} chose expert {} twice", t, e);
        expect(std::isfinite(weights[s]), "slot {} has weight {}", s, weights[s]);
        ++asked[static_cast<std::size_t>(e)];
        expect(dropped[s] <= 1, "dropped[{}] is {}; it must be 0 or 1", s, dropped[s]);
        const int64_t r = slot_row[s];
        if (dropped[s] != 0) {
          expect(r == -1, "slot {} is dropped but slot_row names row {}", s, r);
          continue;
        }
        ++kept;
        expect(r >= offset(e) && r < offset(e + 1), "slot {} (expert {}) has row {}, outside the expert's [{}, {})", s,
               e, r, offset(e), offset(e + 1));
        expect(row_token(r) == t, "slot {} of token {} has row {}, which holds token {}", s, t, r, row_token(r));
        expect(row_weight[r] == weights[s], "row {} has weight {} but its slot {} has {}", r, row_weight[r], s,
               weights[s]);
        expect(next < token_offsets[t + 1] && token_rows[next] == r,
               "token {}'s rows in token_rows are not its kept slots' rows in slot order", t);
        ++next;
      }
    }
    expect(kept == rows_, "{} slots are kept but the experts hold {} rows", kept, rows_);
    if (layout_.ep_ranks > 0) {
      // The demand is the group's (check_group checked what was kept).
      for (int64_t e = 0; e < E_; ++e)
        expect(asked[static_cast<std::size_t>(e)] <= demand(e),
               "expert_demand[{}] is {}, the group's, but {} slots of this rank chose it", e, demand(e),
               asked[static_cast<std::size_t>(e)]);
      return;
    }
    // A router drops only past capacity: each expert keeps min(demand, C).
    const int64_t capacity = p_.shape.capacity;
    for (int64_t e = 0; e < E_; ++e) {
      expect(asked[static_cast<std::size_t>(e)] == demand(e), "expert_demand[{}] is {}; {} slots chose it", e,
             demand(e), asked[static_cast<std::size_t>(e)]);
      const int64_t room = capacity > 0 ? std::min(demand(e), capacity) : demand(e);
      expect(count(e) == room,
             "expert {} kept {} of its {} assignments with capacity {}; assignments may be dropped only past capacity",
             e, count(e), demand(e), capacity > 0 ? fmt::format("{}", capacity) : std::string("none: dropless"));
    }
  }

  const PlanViews& p_;
  const frugal_route_layout& layout_;
  const std::string& label_;
  const int64_t T_, E_, R_;
  int64_t rows_ = 0;
  int64_t group_capacity_ = 0;
};

}  // namespace

void verify_host_plan(const PlanViews& plan, const frugal_route_layout& layout, const std::string& label) {
  PlanChecker(plan, layout, label).run();
}

}  // namespace frugal::routing
