// libFuzzer target: bytes as a `frugal pack` lengths file and as a
// histogram file, then whatever the readers accept packed through
// libfrugal with packer_seq (batch, histogram and a stream).
//
// The first two bytes choose the packing (algorithm, overlong policy,
// max_len 1..64, window); the rest is the file. Limits are small (4096
// units) so every input runs in milliseconds. The oracle: the readers
// either accept or throw InputError (nothing else escapes: that would be a
// crash here), and for accepted input every pack call succeeds and its
// plan holds exactly the input's sequences and tokens.
//
// Built and run by scripts/fuzz.sh (docs/fuzzing.md), seeds in
// tests/fuzz/corpus/fuzz_pack_input/.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"
#include "pack_input.hpp"

namespace {

using namespace frugal;

constexpr const char* kAlgos[] = {"ffd", "bfd", "spfhp", "lpfhp", "refined", "best", "naive_first_fit"};
constexpr const char* kOverlong[] = {"error", "truncate", "split"};

[[noreturn]] void fault(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_pack_input: %s: %s\n", what, detail.c_str());
  std::abort();
}

// Runs a C API call that must succeed on input the readers accepted.
void must(frugal_error* error, const char* what) {
  if (error == nullptr) return;
  const std::string message = frugal_error_message(error);
  frugal_error_destroy(error);
  fault(what, message);
}

frugal_context* context() {
  static frugal_context* c = [] {
    frugal_context* made = nullptr;
    must(frugal_context_create(&made), "frugal_context_create");
    must(frugal_context_discover_plugins(made, 0, nullptr), "discover plugins");
    return made;
  }();
  return c;
}

struct Setup {
  const char* algo;
  cli::Overlong overlong;
  const char* overlong_name;
  int64_t max_len;
  int64_t window;  // 0: no stream
};

// The plan holds every sequence once and every token (kept or cut).
void check_plan(frugal_pack_plan* plan, uint64_t sequences, int64_t tokens, const char* what) {
  frugal_pack_stats stats{};
  stats.struct_size = sizeof(stats);
  must(frugal_pack_plan_stats(plan, &stats), "frugal_pack_plan_stats");
  if (static_cast<uint64_t>(stats.sequences) != sequences)
    fault(what, "plan has " + std::to_string(stats.sequences) + " sequences, input " + std::to_string(sequences));
  if (stats.real_tokens + stats.truncated_tokens != tokens)
    fault(what, "plan has " + std::to_string(stats.real_tokens) + " + " + std::to_string(stats.truncated_tokens) +
                    " cut tokens, input " + std::to_string(tokens));
  frugal_pack_plan_destroy(plan);
}

void pack_all(const Setup& setup, const std::vector<int64_t>& lengths, const cli::Histogram* histogram) {
  host::OptionsPtr options = host::make_options();
  must(frugal_options_set_int(options.get(), "max_len", setup.max_len), "set max_len");
  must(frugal_options_set_string(options.get(), "algo", setup.algo), "set algo");
  must(frugal_options_set_string(options.get(), "overlong", setup.overlong_name), "set overlong");
  frugal_packer* packer = nullptr;
  must(frugal_packer_create(context(), "packer_seq", options.get(), &packer), "frugal_packer_create");
  const host::PackerPtr owned(packer);
  int64_t tokens = 0;
  for (const int64_t len : lengths) tokens += len;  // the readers bound the sum
  frugal_pack_plan* plan = nullptr;
  if (histogram != nullptr) {
    must(frugal_packer_pack_histogram(packer, histogram->lengths.data(), histogram->counts.data(),
                                      histogram->lengths.size(), &plan),
         "frugal_packer_pack_histogram");
  } else {
    must(frugal_packer_pack(packer, lengths.data(), lengths.size(), &plan), "frugal_packer_pack");
  }
  check_plan(plan, lengths.size(), tokens, "batch");
  if (setup.window == 0) return;
  host::OptionsPtr stream_options = host::make_options();
  must(frugal_options_set_int(stream_options.get(), "window", setup.window), "set window");
  frugal_pack_stream* stream = nullptr;
  must(frugal_pack_stream_create(packer, stream_options.get(), &stream), "frugal_pack_stream_create");
  const host::PackStreamPtr owned_stream(stream);
  for (std::size_t i = 0; i < lengths.size(); ++i)
    must(frugal_pack_stream_push(stream, static_cast<int64_t>(i), lengths[i]), "frugal_pack_stream_push");
  must(frugal_pack_stream_flush(stream), "frugal_pack_stream_flush");
  must(frugal_pack_stream_pop(stream, &plan), "frugal_pack_stream_pop");
  check_plan(plan, lengths.size(), tokens, "stream");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  Setup setup{};
  setup.algo = kAlgos[data[0] % 7];
  const unsigned policy = (data[0] / 7) % 3;
  setup.overlong = static_cast<cli::Overlong>(policy);
  setup.overlong_name = kOverlong[policy];
  setup.max_len = 1 + data[1] % 64;
  setup.window = (data[1] & 0x40) != 0 ? 1 + data[1] % 16 : 0;
  cli::InputLimits limits;
  limits.max_len = setup.max_len;
  limits.overlong = setup.overlong;
  limits.max_units = 4096;
  limits.why = "the fuzz target's limit";
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);

  try {
    std::istringstream in(text);
    const std::vector<int64_t> lengths = cli::read_lengths(in, "fuzz", limits);
    pack_all(setup, lengths, nullptr);
  } catch (const cli::InputError&) {
  }
  try {
    std::istringstream in(text);
    const cli::Histogram h = cli::read_histogram(in, "fuzz", limits);
    std::vector<int64_t> lengths;  // within max_units, so small
    for (std::size_t b = 0; b < h.lengths.size(); ++b)
      lengths.insert(lengths.end(), static_cast<std::size_t>(h.counts[b]), h.lengths[b]);
    pack_all(setup, lengths, &h);
  } catch (const cli::InputError&) {
  }
  return 0;
}
