// router_bench: CPU throughput of the MoE router's algorithms.
//
//   top-k softmax          T 16384, E 64,  k 2
//   DeepSeek-V3 gate       T 4096,  E 256, k 8, 8 groups, top-4 groups, bias
//   dispatch plan build    for each routing (dropless)
//   permute / combine      H 4096 bf16 rows for each routing
//   C API route            the same routings through libfrugal and the
//                          router_moe plugin (plan copied into host tensors,
//                          the core's host-plan check), against the
//                          library's route + plan
//
// Each timing (median of --repeats runs) is printed next to a memcpy of the
// same number of bytes timed in the same run: the ratio says how far an
// operation is from moving its data once. --quick runs small sizes and
// checks invariants only (the ctest smoke test).
//
// Exit status: 0 when every invariant holds, 1 when one fails, 2 for a bad
// command line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/deepseek_gate.hpp"
#include "algorithms/dispatch_plan.hpp"
#include "algorithms/parallel.hpp"
#include "algorithms/permute.hpp"
#include "algorithms/topk_softmax.hpp"
#include "api_route.hpp"
#include "command_args.hpp"
#include "help_text.hpp"

namespace fr = frugal::router;

namespace {

struct Config {
  bool quick = false;
  int repeats = 5;
  unsigned threads = 0;
};

template <class Fn>
double median_seconds(int repeats, Fn&& fn) {
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(times.begin(), times.begin() + repeats / 2, times.end());
  return times[static_cast<std::size_t>(repeats / 2)];
}

// The same bytes through memcpy (fresh buffers of that size), same repeats.
double memcpy_seconds(std::size_t bytes, int repeats) {
  std::vector<unsigned char> src(bytes, 1), dst(bytes, 0);
  return median_seconds(repeats, [&] { std::memcpy(dst.data(), src.data(), bytes); });
}

// The C API's route next to the library's route + plan build.
bool api_line(const char* strategy, const std::vector<uint16_t>& logits, int64_t T, int64_t E, int64_t k,
              double library_seconds, const Config& c) {
  const double t = frugal::bench::api_route_seconds(strategy, logits, T, E, k, c.threads, c.repeats);
  if (t < 0.0) return false;
  std::printf("  %-34s %9.3f ms  %10.3g tokens/s   library route + plan: %8.3f ms  ratio %6.2f\n",
              "C API route (plan check included)", t * 1e3, static_cast<double>(T) / t, library_seconds * 1e3,
              t / library_seconds);
  return true;
}

void line(const char* what, double seconds, double items, const char* unit, std::size_t bytes, int repeats) {
  const double copy = memcpy_seconds(bytes, repeats);
  std::printf("  %-34s %9.3f ms  %10.3g %s/s   memcpy %.1f MB: %8.3f ms  ratio %6.2f\n", what, seconds * 1e3,
              items / seconds, unit, static_cast<double>(bytes) / 1e6, copy * 1e3, seconds / copy);
}

std::vector<uint16_t> bf16_random(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<uint16_t> v(n);
  for (auto& x : v) {
    const float f = d(rng);
    uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    x = static_cast<uint16_t>(bits >> 16);  // truncation is fine for benchmark data
  }
  return v;
}

// Times permute and combine of bf16 rows for a plan; checks that combine
// with unit weights returns k * x exactly for small integer-valued rows.
bool permute_combine(fr::DispatchPlan plan, int64_t hidden, const Config& c) {
  const auto T = plan.tokens;
  const auto rows = plan.rows();
  const auto x = bf16_random(static_cast<std::size_t>(T * hidden), 5);
  std::vector<uint16_t> y(static_cast<std::size_t>(rows * hidden)), out(static_cast<std::size_t>(T * hidden));
  const std::size_t row_bytes = static_cast<std::size_t>(rows * hidden) * 2;
  const double tp = median_seconds(c.repeats, [&] { fr::permute_rows(plan, x, hidden, y, c.threads); });
  line(("permute H " + std::to_string(hidden) + " bf16").c_str(), tp, static_cast<double>(rows), "rows", row_bytes,
       c.repeats);
  const double tc = median_seconds(c.repeats, [&] { fr::combine_rows(plan, y, hidden, out, c.threads); });
  line(("combine H " + std::to_string(hidden) + " bf16").c_str(), tc, static_cast<double>(T), "tokens", row_bytes,
       c.repeats);
  // Invariant: 1.0 (bf16 0x3F80) everywhere, unit weights, gives k per entry.
  std::fill(y.begin(), y.end(), uint16_t{0x3F80});
  std::fill(plan.row_weight.begin(), plan.row_weight.end(), 1.0f);
  fr::combine_rows(plan, y, hidden, out, c.threads);
  const uint16_t expect = plan.k == 2 ? uint16_t{0x4000} : uint16_t{0x4100};  // 2.0 or 8.0
  if (!std::all_of(out.begin(), out.end(), [&](uint16_t v) { return v == expect; })) {
    std::printf("FAIL: combine of ones with unit weights is not k\n");
    return false;
  }
  return true;
}

bool run(const Config& c) {
  bool ok = true;
  const int64_t hidden = c.quick ? 256 : 4096;
  std::printf("router_bench: threads %u, repeats %d%s\n", fr::resolve_threads(c.threads), c.repeats,
              c.quick ? " (quick: small sizes)" : "");
  {
    const int64_t T = c.quick ? 1024 : 16384, E = 64;
    const auto logits = bf16_random(static_cast<std::size_t>(T * E), 1);
    fr::TopkSoftmaxOptions o;
    o.k = 2;
    o.threads = c.threads;
    std::printf("top-k softmax: T %lld, E %lld, k 2, bf16 logits\n", static_cast<long long>(T),
                static_cast<long long>(E));
    fr::TopkSoftmaxResult r;
    const double t = median_seconds(c.repeats, [&] { r = fr::topk_softmax(fr::bf16_logits(logits, T, E), o); });
    line("route (softmax, top-k, losses)", t, static_cast<double>(T), "tokens", logits.size() * 2, c.repeats);
    fr::DispatchPlan plan;
    const double tb = median_seconds(c.repeats, [&] { plan = fr::build_dispatch_plan(r.routing); });
    line("dispatch plan", tb, static_cast<double>(T), "tokens", r.routing.expert.size() * 4, c.repeats);
    ok = ok && plan.rows() == T * 2 && r.aux_loss > 0.0f;
    ok = api_line("topk_softmax", logits, T, E, 2, t + tb, c) && ok;
    ok = permute_combine(std::move(plan), hidden, c) && ok;
  }
  {
    const int64_t T = c.quick ? 512 : 4096, E = 256;
    const auto logits = bf16_random(static_cast<std::size_t>(T * E), 2);
    std::vector<float> bias(static_cast<std::size_t>(E));
    for (std::size_t e = 0; e < bias.size(); ++e) bias[e] = 0.001f * static_cast<float>(e % 7);
    fr::DeepSeekGateOptions o;
    o.k = 8;
    o.groups = 8;
    o.topk_groups = 4;
    o.route_scale = 2.5f;
    o.threads = c.threads;
    std::printf("DeepSeek-V3 gate: T %lld, E %lld, k 8, 8 groups, top-4 groups, bias, bf16 logits\n",
                static_cast<long long>(T), static_cast<long long>(E));
    fr::Routing r;
    const double t =
        median_seconds(c.repeats, [&] { r = fr::deepseek_v3_gate(fr::bf16_logits(logits, T, E), bias, o); });
    line("route (sigmoid, groups, top-k)", t, static_cast<double>(T), "tokens", logits.size() * 2, c.repeats);
    fr::DispatchPlan plan;
    const double tb = median_seconds(c.repeats, [&] { plan = fr::build_dispatch_plan(r); });
    line("dispatch plan", tb, static_cast<double>(T), "tokens", r.expert.size() * 4, c.repeats);
    ok = ok && plan.rows() == T * 8;
    ok = api_line("deepseek_v3", logits, T, E, 8, t + tb, c) && ok;
    ok = permute_combine(std::move(plan), hidden, c) && ok;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  static const frugal::args::Spec spec{
      "router_bench",
      "CPU throughput of the MoE router's algorithms",
      "CPU throughput of the MoE router's algorithms, each timing (median of --repeats runs) next to a memcpy of the "
      "same bytes. Exit status: 0 when every invariant holds, 1 when one fails, 2 for a bad command line.",
      {},
      {frugal::args::switch_flag("--quick", "one repeat at small sizes (the ctest smoke test)"),
       frugal::args::value_flag("--repeats", "R", "timed runs per case (a positive number; default 5)"),
       frugal::args::value_flag("--threads", "N", "worker threads (a positive number; default: all cores)")}};
  // The tools' one parser (support/args); the values are checked here.
  frugal::args::ParsedArgs parsed;
  try {
    parsed = frugal::args::parse(std::vector<std::string>(argv + 1, argv + argc), spec);
    if (!parsed.positional.empty())
      throw frugal::args::UsageError("unexpected argument '" + parsed.positional.front() + "'");
  } catch (const frugal::args::UsageError& e) {
    std::fputs(frugal::args::usage_error_text(spec, e.what()).c_str(), stderr);
    return 2;
  }
  if (parsed.help) {
    std::fputs(frugal::args::help_text(spec).c_str(), stdout);
    return 0;
  }
  if (parsed.has("--quick")) {
    c.quick = true;
    c.repeats = 1;
  }
  for (const char* flag : {"--repeats", "--threads"}) {
    const auto text = parsed.value(flag);
    if (!text) continue;
    const int v = std::atoi(text->c_str());
    if (v <= 0) {
      std::fputs(frugal::args::usage_error_text(spec, std::string(flag) + " needs a positive number").c_str(), stderr);
      return 2;
    }
    if (std::string_view(flag) == "--repeats")
      c.repeats = v;
    else
      c.threads = static_cast<unsigned>(v);
  }
  const bool ok = run(c);
  std::printf("%s\n", ok ? "router_bench: invariants hold" : "router_bench: FAILED");
  return ok ? 0 : 1;
}
