// `frugal pack (--lengths FILE | --histogram FILE) --max-len N ...` (its
// options: pack_spec below): packs sequence lengths with a
// packer strategy (the built-in packer_seq unless --strategy names another,
// e.g. a vendor's plugin on FRUGAL_PLUGIN_PATH) through the C API, like any
// host would, and reports efficiency against the lower bound.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "ckpt_args.hpp"
#include "cli_errors.hpp"
#include "commands.hpp"
#include "frugal/sdk/host.hpp"
#include "json_text.hpp"
#include "pack_input.hpp"

namespace frugal::cli {
namespace {

struct Summary {
  frugal_pack_stats stats{};
  double seconds = 0.0;
  int64_t max_per_pack = 0;
};

void print_table(const Summary& s) {
  const auto& st = s.stats;
  const double gap = st.lower_bound_tight > 0 ? 100.0 * static_cast<double>(st.packs - st.lower_bound_tight) /
                                                    static_cast<double>(st.lower_bound_tight)
                                              : 0.0;
  fmt::print("packed {} sequences ({} units, {} tokens) into packs of {} tokens with {}\n", st.sequences, st.units,
             st.real_tokens, st.max_len, st.method);
  fmt::print("  {:<22} {}\n", "packs", st.packs);
  fmt::print("  {:<22} {}   ceil(tokens / max_len)\n", "lower bound", st.lower_bound);
  fmt::print("  {:<22} {}   Martello-Toth L2 and the per-pack limit\n", "tight lower bound", st.lower_bound_tight);
  fmt::print("  {:<22} {:.3f}%\n", "gap to tight bound", gap);
  fmt::print("  {:<22} {:.4f}%\n", "efficiency", 100.0 * st.efficiency);
  fmt::print("  {:<22} {:.2f}%   one row per unit\n", "padding before", 100.0 * st.padding_before);
  fmt::print("  {:<22} {:.4f}%\n", "padding after", 100.0 * st.padding_after);
  fmt::print("  {:<22} {:.3f}x  rows before / rows after\n", "speed-up", st.speedup);
  fmt::print("  {:<22} {}\n", "max per pack",
             s.max_per_pack == 0 ? std::string("unlimited") : std::to_string(s.max_per_pack));
  fmt::print("  {:<22} {} sequences, {} tokens cut\n", "truncated", st.truncated_sequences, st.truncated_tokens);
  fmt::print("  {:<22} {} sequences\n", "split", st.split_sequences);
  fmt::print("  {:<22} {:.3f} s\n", "time", s.seconds);
}

void print_json(const Summary& s) {
  const auto& st = s.stats;
  const json::Json out = {{"algorithm", st.method},
                          {"max_len", st.max_len},
                          {"max_per_pack", s.max_per_pack},
                          {"sequences", st.sequences},
                          {"units", st.units},
                          {"real_tokens", st.real_tokens},
                          {"packs", st.packs},
                          {"lower_bound", st.lower_bound},
                          {"lower_bound_tight", st.lower_bound_tight},
                          {"efficiency", st.efficiency},
                          {"padding_before", st.padding_before},
                          {"padding_after", st.padding_after},
                          {"speedup", st.speedup},
                          {"truncated_sequences", st.truncated_sequences},
                          {"truncated_tokens", st.truncated_tokens},
                          {"split_sequences", st.split_sequences},
                          {"seconds", s.seconds}};
  fmt::print("{}\n", json::json_text(out, -1));
}

void write_assignments(const std::string& path, const frugal_pack_plan* plan, bool pieces) {
  frugal_pack_plan_view view{};
  view.struct_size = sizeof(view);
  host::check(frugal_pack_plan_view_get(plan, &view));
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) throw InputError(fmt::format("cannot create '{}'", path));
  std::string line;
  bool ok = true;
  for (std::size_t p = 0; p < view.pack_count && ok; ++p) {
    line.clear();
    for (auto k = view.pack_offsets[p]; k < view.pack_offsets[p + 1]; ++k) {
      const auto u = static_cast<std::size_t>(k);
      if (!line.empty()) line += ' ';
      line += std::to_string(view.sequence_ids[u]);
      if (pieces) line += fmt::format(":{}+{}", view.token_offsets[u], view.unit_lengths[u]);
    }
    line += '\n';
    ok = std::fwrite(line.data(), 1, line.size(), out) == line.size();
  }
  ok = std::fclose(out) == 0 && ok;
  if (!ok) throw InputError(fmt::format("cannot write '{}' (disk full?)", path));
}

// Pushes every sequence through a stream (push_all(push) calls push(id,
// length) for each), then flushes: one plan with all packs.
template <typename PushAll>
frugal_pack_plan* stream_all(frugal_packer* packer, int64_t window, int64_t max_rounds, PushAll&& push_all) {
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "window", window));
  if (max_rounds > 0) host::check(frugal_options_set_int(options.get(), "max_rounds", max_rounds));
  frugal_pack_stream* raw = nullptr;
  host::check(frugal_pack_stream_create(packer, options.get(), &raw));
  const host::PackStreamPtr stream(raw);
  push_all([&](int64_t id, int64_t length) { host::check(frugal_pack_stream_push(stream.get(), id, length)); });
  host::check(frugal_pack_stream_flush(stream.get()));
  frugal_pack_plan* plan = nullptr;
  host::check(frugal_pack_stream_pop(stream.get(), &plan));
  return plan;
}

}  // namespace

const args::Spec& pack_spec() {
  using args::value_flag;
  static const args::Spec spec{
      "frugal pack",
      "pack sequence lengths into rows of max-len tokens and report efficiency against the lower bound",
      "Packs sequence lengths with a packer strategy through the C API, as any host would, and reports efficiency "
      "against the lower bound. Give exactly one of --lengths and --histogram. Blank lines and lines starting with "
      "'#' in input files are ignored.\n\n"
      "  frugal pack --lengths lengths.txt --max-len 2048 --algo best --json",
      {},
      {value_flag("--lengths", "FILE", "one sequence length per line"),
       value_flag("--histogram", "FILE", "'length count' per line (sequences numbered in file order)"),
       args::required(value_flag("--max-len", "N", "tokens per pack")),
       value_flag("--strategy", "NAME",
                  "the packer strategy (default: packer_seq; any packer a plugin provides, see `frugal plugins`)"),
       value_flag("--algo", "NAME",
                  "packer_seq's method: ffd, bfd, spfhp, lpfhp, refined, best, naive_first_fit (default: refined)"),
       value_flag("--max-per-pack", "N", "at most N sequences per pack (default: unlimited)"),
       value_flag("--overlong", "POLICY", "sequences longer than max-len: error (default), truncate, split"),
       value_flag("--seed", "N", "seed for methods with random choices (default 0)"),
       value_flag("--window", "N",
                  "stream the sequences in file order through a window of at most N units (as a data loader "
                  "would) instead of packing them all at once"),
       value_flag("--max-rounds", "R", "with --window: at most R rounds a unit waits in the window"),
       value_flag("--assignments", "FILE",
                  "write one line per pack: its sequence ids in row order (with --overlong split: id:offset+length "
                  "for every unit)"),
       args::switch_flag("--json", "machine-readable summary")}};
  return spec;
}

int cmd_pack(const std::vector<std::string>& args) {
  ParsedArgs parsed;
  int64_t max_len = 0;
  int64_t max_per_pack = 0;
  int64_t seed = 0;
  int64_t window = 0;      // 0: pack everything at once
  int64_t max_rounds = 0;  // 0: the stream's default
  Overlong overlong = Overlong::error;
  const bool json = has_word(args, "--json");
  if ((!args.empty() && args[0] == "help") || wants_help(args)) return print_help(pack_spec());
  try {
    parsed = parse_args(args, pack_spec());
    if (!parsed.positional.empty()) throw UsageError(fmt::format("unexpected argument '{}'", parsed.positional[0]));
    if (parsed.has("--lengths") == parsed.has("--histogram"))
      throw UsageError("give exactly one of --lengths FILE or --histogram FILE");
    if (!parsed.has("--max-len")) throw UsageError("--max-len N is required");
    max_len = parse_int_flag("--max-len", *parsed.value("--max-len"), 1, std::numeric_limits<int32_t>::max());
    if (auto v = parsed.value("--max-per-pack")) max_per_pack = parse_int_flag("--max-per-pack", *v, 0, INT64_MAX);
    if (auto v = parsed.value("--seed")) seed = parse_int_flag("--seed", *v, 0, INT64_MAX);
    if (auto v = parsed.value("--window")) window = parse_int_flag("--window", *v, 1, INT64_MAX);
    if (auto v = parsed.value("--max-rounds")) {
      if (window == 0) throw UsageError("--max-rounds needs --window");
      max_rounds = parse_int_flag("--max-rounds", *v, 1, INT64_MAX);
    }
    if (auto v = parsed.value("--overlong")) {
      if (*v == "split") {
        overlong = Overlong::split;
      } else if (*v == "truncate") {
        overlong = Overlong::truncate;
      } else if (*v != "error") {
        throw UsageError(fmt::format("--overlong must be error, truncate or split, got '{}'", *v));
      }
    }
  } catch (const UsageError& e) {
    return report_error("pack", "USAGE", e.what(), kExitUsage, json);
  }

  try {
    auto context = host::make_context();
    host::check(frugal_context_discover_plugins(context.get(), 0, nullptr));
    auto options = host::make_options();
    host::check(frugal_options_set_int(options.get(), "max_len", max_len));
    host::check(frugal_options_set_int(options.get(), "max_per_pack", max_per_pack));
    host::check(frugal_options_set_int(options.get(), "seed", seed));
    if (auto v = parsed.value("--overlong"))
      host::check(frugal_options_set_string(options.get(), "overlong", v->c_str()));
    if (auto v = parsed.value("--algo")) host::check(frugal_options_set_string(options.get(), "algo", v->c_str()));
    host::PackerPtr packer;
    try {
      const std::string strategy = parsed.value("--strategy").value_or("packer_seq");
      packer = host::make_packer(context.get(), strategy.c_str(), options.get());
    } catch (const host::Exception& e) {
      if (e.code() != FRUGAL_ERR_INVALID_ARGUMENT && e.code() != FRUGAL_ERR_NOT_FOUND) throw;
      return report_error("pack", "USAGE", e.what(), kExitUsage, json);
    }

    // Every input line is checked against these before it is stored.
    const InputLimits limits = memory_limits(max_len, overlong);
    frugal_pack_plan* raw = nullptr;
    Summary summary;
    summary.max_per_pack = max_per_pack;
    if (window > 0) {
      const auto t0 = std::chrono::steady_clock::now();
      if (auto path = parsed.value("--lengths")) {
        const std::vector<int64_t> lengths = read_lengths_file(*path, limits);
        raw = stream_all(packer.get(), window, max_rounds, [&](auto&& push) {
          for (std::size_t i = 0; i < lengths.size(); ++i) push(static_cast<int64_t>(i), lengths[i]);
        });
      } else {
        // Sequences come straight from the bins: the histogram is never expanded here.
        const Histogram h = read_histogram_file(*parsed.value("--histogram"), limits);
        raw = stream_all(packer.get(), window, max_rounds, [&](auto&& push) {
          int64_t id = 0;
          for (std::size_t b = 0; b < h.lengths.size(); ++b)
            for (int64_t c = 0; c < h.counts[b]; ++c) push(id++, h.lengths[b]);
        });
      }
      summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else if (auto path = parsed.value("--lengths")) {
      const std::vector<int64_t> lengths = read_lengths_file(*path, limits);
      const auto t0 = std::chrono::steady_clock::now();
      host::check(frugal_packer_pack(packer.get(), lengths.data(), lengths.size(), &raw));
      summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else {
      const Histogram h = read_histogram_file(*parsed.value("--histogram"), limits);
      const auto t0 = std::chrono::steady_clock::now();
      host::check(
          frugal_packer_pack_histogram(packer.get(), h.lengths.data(), h.counts.data(), h.lengths.size(), &raw));
      summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    const host::PackPlanPtr plan(raw);
    summary.stats.struct_size = sizeof(summary.stats);
    host::check(frugal_pack_plan_stats(plan.get(), &summary.stats));
    if (auto path = parsed.value("--assignments"))
      write_assignments(*path, plan.get(), parsed.value("--overlong") == std::optional<std::string>("split"));
    if (parsed.has("--json")) {
      print_json(summary);
    } else {
      print_table(summary);
    }
    return kExitOk;
  } catch (const InputError& e) {
    return report_error("pack", "INVALID_ARGUMENT", e.what(), kExitProblem, json);
  } catch (const host::Exception& e) {
    return report_error("pack", frugal_error_code_name(e.code()), e.what(), kExitProblem, json);
  } catch (const std::bad_alloc&) {
    // An allocation the limits did not foresee (other processes took the
    // memory meanwhile): an error, not an abort.
    return report_error("pack", "OUT_OF_MEMORY",
                        "out of memory (the input was within the memory available when it was read)", kExitProblem,
                        json);
  }
}

}  // namespace frugal::cli
