// Tour steps 2-3 (samples/README.md): the cosine LR schedule against its
// closed form, and packing sequences into rows. Each step makes its own
// strategy object, checks what it returns against expectations computed
// here independently, and lets the owning handles free it.
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <numeric>
#include <string>
#include <vector>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"
#include "tour.hpp"

namespace tour {
namespace {

// Linear warm-up, cosine decay to min_lr, then min_lr: written out here so
// the plugin is checked against something it did not compute.
double cosine_closed_form(int64_t step) {
  if (step < kWarmupSteps) return kPeakLr * static_cast<double>(step + 1) / static_cast<double>(kWarmupSteps);
  if (step >= kTotalSteps) return kMinLr;
  const double progress = static_cast<double>(step - kWarmupSteps) / static_cast<double>(kTotalSteps - kWarmupSteps);
  return kMinLr + (kPeakLr - kMinLr) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

constexpr int64_t kMaxLen = 2048;
constexpr std::size_t kSequences = 256;

frugal_pack_stats plan_stats(const frugal_pack_plan* plan) {
  frugal_pack_stats stats{};
  stats.struct_size = sizeof(stats);
  host::check(frugal_pack_plan_stats(plan, &stats));
  return stats;
}

frugal_pack_plan_view plan_view(const frugal_pack_plan* plan) {
  frugal_pack_plan_view view{};
  view.struct_size = sizeof(view);
  host::check(frugal_pack_plan_view_get(plan, &view));
  return view;
}

// Pack 0's cu_seqlens: 0, then a rise by each of its sequences' lengths,
// ending at the pack's token count. Returns the number of sequences in it.
std::size_t check_first_pack(const frugal_pack_plan* plan, const frugal_pack_plan_view& view,
                             const std::vector<int64_t>& lengths) {
  if (view.pack_count == 0) throw Mismatch("pack: the plan has no packs");
  const auto first = static_cast<std::size_t>(view.pack_offsets[0]);
  const auto units = static_cast<std::size_t>(view.pack_offsets[1]) - first;
  std::vector<int32_t> cu_seqlens(units + 1);
  std::size_t written = 0;
  host::check(frugal_pack_plan_varlen(plan, 0, cu_seqlens.data(), cu_seqlens.size(), &written, nullptr));
  if (written != units + 1) {
    throw Mismatch("pack: cu_seqlens of pack 0 has " + std::to_string(written) + " entries, expected " +
                   std::to_string(units + 1));
  }
  if (cu_seqlens[0] != 0) throw Mismatch("pack: cu_seqlens of pack 0 starts at " + std::to_string(cu_seqlens[0]));
  for (std::size_t u = 0; u < units; ++u) {
    const int64_t length = lengths[static_cast<std::size_t>(view.sequence_ids[first + u])];
    if (cu_seqlens[u + 1] - cu_seqlens[u] != length) {
      throw Mismatch("pack: cu_seqlens of pack 0 rises by " + std::to_string(cu_seqlens[u + 1] - cu_seqlens[u]) +
                     " at entry " + std::to_string(u) + "; its sequence has " + std::to_string(length) + " tokens");
    }
  }
  if (cu_seqlens[units] != view.pack_tokens[0]) {
    throw Mismatch("pack: cu_seqlens of pack 0 ends at " + std::to_string(cu_seqlens[units]) + "; the pack holds " +
                   std::to_string(view.pack_tokens[0]) + " tokens");
  }
  return units;
}

}  // namespace

void schedule_step(host::Context& context) {
  constexpr std::array<int64_t, 7> kSteps = {0, 99, 100, 550, 999, 1000, 5000};
  const host::SchedulePtr schedule = host::make_schedule(context.get(), "cosine", cosine_options().get());
  std::array<double, kSteps.size()> lr{};
  for (std::size_t i = 0; i < kSteps.size(); ++i) {
    host::check(frugal_schedule_lr(schedule.get(), kSteps[i], &lr[i]));
    const double want = cosine_closed_form(kSteps[i]);
    if (std::abs(lr[i] - want) > 1e-12 * std::abs(want)) {
      throw mismatch("schedule: lr at step %lld is %.17g; the closed form gives %.17g",
                     static_cast<long long>(kSteps[i]), lr[i], want);
    }
  }
  std::printf("schedule: cosine lr at steps 0 99 100 550 999 1000 5000 = %.6e %.6e %.6e %.6e %.6e %.6e %.6e\n", lr[0],
              lr[1], lr[2], lr[3], lr[4], lr[5], lr[6]);
}

void pack_step(host::Context& context) {
  Lcg rng(7);
  std::vector<int64_t> lengths(kSequences);
  for (auto& length : lengths) length = 1 + static_cast<int64_t>(rng.next() % 1024);

  host::Options options;
  options.set("max_len", kMaxLen);
  const host::PackerPtr packer = host::make_packer(context.get(), "packer_seq", options.get());
  frugal_pack_plan* raw_plan = nullptr;
  host::check(frugal_packer_pack(packer.get(), lengths.data(), lengths.size(), &raw_plan));
  const host::PackPlanPtr plan(raw_plan);
  const frugal_pack_stats stats = plan_stats(plan.get());
  const frugal_pack_plan_view view = plan_view(plan.get());

  std::vector<int> seen(kSequences, 0);
  for (std::size_t u = 0; u < view.unit_count; ++u) {
    const int64_t id = view.sequence_ids[u];
    if (id < 0 || id >= static_cast<int64_t>(kSequences))
      throw Mismatch("pack: unit " + std::to_string(u) + " names sequence " + std::to_string(id));
    ++seen[static_cast<std::size_t>(id)];
  }
  for (std::size_t s = 0; s < kSequences; ++s) {
    if (seen[s] != 1)
      throw Mismatch("pack: sequence " + std::to_string(s) + " appears " + std::to_string(seen[s]) + " times");
  }
  // Tokens per pack from the caller's own lengths, not the plan's.
  for (std::size_t p = 0; p < view.pack_count; ++p) {
    int64_t tokens = 0;
    for (auto u = view.pack_offsets[p]; u < view.pack_offsets[p + 1]; ++u)
      tokens += lengths[static_cast<std::size_t>(view.sequence_ids[u])];
    if (tokens > kMaxLen)
      throw Mismatch("pack: pack " + std::to_string(p) + " holds " + std::to_string(tokens) + " tokens");
  }
  const int64_t total = std::accumulate(lengths.begin(), lengths.end(), int64_t{0});
  if (stats.real_tokens != total) {
    throw Mismatch("pack: real_tokens is " + std::to_string(stats.real_tokens) + "; the lengths sum to " +
                   std::to_string(total));
  }
  if (!(stats.efficiency >= 0.95)) throw Mismatch("pack: efficiency " + std::to_string(stats.efficiency) + " < 0.95");
  const std::size_t first_units = check_first_pack(plan.get(), view, lengths);

  std::printf(
      "pack: %zu sequences, %lld tokens in %lld packs of %lld (efficiency %.4f, %s); pack 0: %zu sequences, "
      "%lld tokens\n",
      kSequences, static_cast<long long>(stats.real_tokens), static_cast<long long>(stats.packs),
      static_cast<long long>(kMaxLen), stats.efficiency, stats.method, first_units,
      static_cast<long long>(view.pack_tokens[0]));
}

}  // namespace tour
