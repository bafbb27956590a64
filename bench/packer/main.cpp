// packer_bench: quality and speed of the sequence packer's algorithms on
// synthetic length distributions. docs/benchmarks.md ("Sequence packer")
// says how the published tables were produced.
//
// Exit status: 0 when every judged target and invariant holds, 1 when one
// fails (each is printed), 2 for a bad command line.
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "command_args.hpp"
#include "help_text.hpp"
#include "modes.hpp"
#include "report.hpp"

namespace bp = frugal::bench::packer;

namespace {

const frugal::args::Spec& command_line() {
  using frugal::args::grouped;
  using frugal::args::switch_flag;
  using frugal::args::value_flag;
  const std::string modes = "modes (at least one)";
  static const frugal::args::Spec spec{
      "packer_bench",
      "quality and speed of the sequence packer's algorithms",
      "Quality and speed of the sequence packer's algorithms on synthetic length distributions "
      "(docs/benchmarks.md, \"Sequence packer\"). Exit status: 0 when every judged target and invariant holds, 1 "
      "when one fails (each is printed), 2 for a bad command line.",
      {},
      {grouped(modes, switch_flag("--quality",
                                  "efficiency and gaps to the lower bounds, every distribution, max_len "
                                  "512/2048/8192, per-pack limit none/3 (default n 1000000)")),
       grouped(modes, switch_flag("--speed",
                                  "time per fast algorithm at n 16Mi (2^24), max_len 2048; run it pinned "
                                  "to one core: taskset -c 0 packer_bench --speed")),
       grouped(modes, switch_flag("--versus-naive", "naive first fit against the fast algorithms at 20k, 100k, 400k")),
       grouped(modes, switch_flag("--quick",
                                  "all three at small sizes, checking invariants only (no timing or 0.1 % "
                                  "targets): the ctest smoke test")),
       value_flag("--n", "N", "sequences for --quality and --speed"),
       value_flag("--sizes", "A,B,...", "sizes for --versus-naive"),
       value_flag("--repeats", "R", "timed runs per cell (median reported)"),
       switch_flag("--markdown", "print Markdown tables (for docs/benchmarks.md)")}};
  return spec;
}

bool parse_count(std::string_view text, int64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size() && out > 0;
}

bool parse_sizes(std::string_view text, std::vector<int64_t>& out) {
  out.clear();
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    int64_t n = 0;
    if (!parse_count(text.substr(0, comma), n)) return false;
    out.push_back(n);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return !out.empty();
}

int usage_error(const std::string& message) {
  std::fputs(frugal::args::usage_error_text(command_line(), message).c_str(), stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool quality = false, speed = false, versus = false, quick = false;
  bp::Format format = bp::Format::text;
  int64_t n = 0, repeats = 0;
  std::vector<int64_t> sizes;
  // The tools' one parser (support/args): it words unknown flags and missing
  // values; the values are checked here.
  frugal::args::ParsedArgs parsed;
  try {
    parsed = frugal::args::parse(std::vector<std::string>(argv + 1, argv + argc), command_line());
  } catch (const frugal::args::UsageError& e) {
    return usage_error(e.what());
  }
  if (parsed.help) {
    std::fputs(frugal::args::help_text(command_line()).c_str(), stdout);
    return 0;
  }
  if (!parsed.positional.empty()) return usage_error("unexpected argument '" + parsed.positional.front() + "'");
  quality = parsed.has("--quality");
  speed = parsed.has("--speed");
  versus = parsed.has("--versus-naive");
  quick = parsed.has("--quick");
  if (parsed.has("--markdown")) format = bp::Format::markdown;
  if (const auto v = parsed.value("--n"); v && !parse_count(*v, n)) return usage_error("--n needs a positive count");
  if (const auto v = parsed.value("--repeats"); v && !parse_count(*v, repeats))
    return usage_error("--repeats needs a positive count");
  if (const auto v = parsed.value("--sizes"); v && !parse_sizes(*v, sizes))
    return usage_error("--sizes needs counts like 20000,100000");
  if (quick && !quality && !speed && !versus) quality = speed = versus = true;
  if (!quality && !speed && !versus) return usage_error("choose a mode");

  bp::QualityOptions q;
  bp::SpeedOptions s;
  bp::VersusOptions v;
  if (quick) {
    // Small enough for a sanitizer build to finish in seconds; the timing and
    // 0.1 % targets need full sizes, so only invariants are judged.
    q.n = 20'000;
    q.judge_gap_target = false;
    s.n = 100'000;
    s.repeats = 1;
    s.judge_time_target = false;
    v.sizes = {2'000, 5'000};
    v.repeats = 1;
    v.naive_repeats = 1;
  }
  if (n > 0) q.n = s.n = n;
  if (repeats > 0) s.repeats = v.repeats = v.naive_repeats = static_cast<int>(repeats);
  if (!sizes.empty()) v.sizes = sizes;

  std::printf("packer_bench%s%s%s%s\n", quick ? " --quick" : "", quality ? " quality" : "", speed ? " speed" : "",
              versus ? " versus-naive" : "");
#ifndef NDEBUG
  std::puts("note: assertions are on (not a Release build): timings are not representative");
#endif
  bp::Verdict verdict;
  try {
    if (quality) bp::run_quality(q, format, verdict);
    if (speed) bp::run_speed(s, format, verdict);
    if (versus) bp::run_versus_naive(v, format, verdict);
  } catch (const std::exception& e) {
    verdict.fail(std::string("unexpected error: ") + e.what());
  }
  verdict.print(stdout);
  return verdict.ok() ? 0 : 1;
}
