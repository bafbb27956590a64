// quant_fp8's option amax_comm in one process (across processes:
// amax_ranks.cpp under mpirun):
//   - on a group of one (comm_local) every recipe it applies to gives the
//     bytes and the state of the same quantizer without a comm (current
//     scaling takes another path with a comm: measure, agree, cast);
//   - with a made-up second rank (comm_peer, tests/plugins/quant_fp8)
//     holding a larger amax, every scale and state is that of one quantizer
//     fed both ranks' tensors stacked;
//   - a collective that times out returns the comm's error, logs the
//     option's name, and records nothing;
//   - where the option means nothing (per-channel, block, MX, int8_asym,
//     a value of another type, a device comm) it is refused by name.
#include <catch2/catch.hpp>

#include "test_seed.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "amax_agreement.hpp"
#include "quant_api_support.hpp"
#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;
namespace amax = frugal::test::amax;

namespace {

constexpr int kSteps = 20;

host::CommPtr local_comm(frugal_context* context) {
  host::check(frugal_context_load_plugin(context, builtin_path("comm_local").c_str()));
  return host::make_comm(context, "local", nullptr);
}

// A comm_peer comm: rank 0 of 2, the made-up rank 1 holding `peer_amax`.
host::CommPtr peer_comm(frugal_context* context, double peer_amax, int64_t fail_after = -1,
                        const char* device = "cpu") {
  host::check(frugal_context_load_plugin(context, plugin_path("comm_peer").c_str()));
  auto options = host::make_options();
  host::check(frugal_options_set_double(options.get(), "peer_amax", peer_amax));
  host::check(frugal_options_set_int(options.get(), "fail_after", fail_after));
  host::check(frugal_options_set_string(options.get(), "device", device));
  return host::make_comm(context, "peer", options.get());
}

void check_same(const amax::Quantized& got, const amax::Quantized& want) {
  CHECK(got.codes == want.codes);
  CHECK(amax::same_float(got.scale, want.scale));
  CHECK(amax::same_float(got.scale_inv, want.scale_inv));
  CHECK(amax::same_float(got.amax, want.amax));
}

Outcome create_outcome(frugal_context* context, const std::vector<Option>& options, frugal_comm* comm,
                       const char* as = "amax_comm") {
  auto o = make_quant_options(options);
  if (comm != nullptr) host::check(frugal_options_set_comm(o.get(), as, comm));
  frugal_quantizer* q = nullptr;
  const Outcome result = outcome(frugal_quantizer_create(context, "quant_fp8", o.get(), &q));
  frugal_quantizer_destroy(q);
  return result;
}

}  // namespace

TEST_CASE("amax_comm over a group of one changes no byte and no state") {
  const uint32_t seed = frugal_test::test_seed32();
  INFO("seed " << seed);
  auto context = quant_context();
  auto comm = local_comm(context.get());
  for (const amax::Recipe& recipe : amax::recipes()) {
    INFO(recipe.name);
    auto with = amax::make_quantizer(context.get(), recipe, comm.get());
    auto without = amax::make_quantizer(context.get(), recipe, nullptr);
    for (int step = 0; step < kSteps; ++step) {
      INFO("step " << step);
      const std::vector<float> x = amax::rank_data(seed, 0, 1, step);
      amax::Quantized a, b;
      host::check(amax::quantize(with.get(), x, amax::kRows, 0, a));
      host::check(amax::quantize(without.get(), x, amax::kRows, 0, b));
      check_same(a, b);
      CHECK(amax::same_float(a.amax, amax::amax_of(x)));
      CHECK(amax::state_of(with.get()) == amax::state_of(without.get()));
    }
    if (recipe.stateful) CHECK(!amax::state_of(with.get()).empty());
  }
}

TEST_CASE("amax_comm with a peer holding a larger amax: the scales of both ranks' tensors stacked") {
  auto context = quant_context();
  // The peer's amax lies inside the data's range (2^-5 .. 2^4), so some
  // steps take this rank's amax and others the peer's.
  constexpr float kPeer = 5.0f;
  auto comm = peer_comm(context.get(), kPeer);
  // The equalities hold for any data: a fresh seed, and a fixed one whose
  // data are known to make the peer matter (a control, below).
  constexpr uint32_t kFixedSeed = 20250;
  for (const uint32_t seed : {kFixedSeed, frugal_test::test_seed32()}) {
    INFO("seed " << seed);
    for (const amax::Recipe& recipe : amax::recipes()) {
      INFO(recipe.name);
      auto agreed = amax::make_quantizer(context.get(), recipe, comm.get());
      auto reference = amax::make_quantizer(context.get(), recipe, nullptr);
      auto alone = amax::make_quantizer(context.get(), recipe, nullptr);
      int peer_won = 0, differs_alone = 0;
      for (int step = 0; step < kSteps; ++step) {
        INFO("step " << step);
        const std::vector<float> x = amax::rank_data(seed, 0, 1, step);
        // The stack: this rank's rows, then one row standing for the peer.
        std::vector<float> stack = x;
        stack.resize(x.size() + amax::kCols, 0.0f);
        stack[x.size()] = -kPeer;
        amax::Quantized mine, ref, own;
        host::check(amax::quantize(agreed.get(), x, amax::kRows, 0, mine));
        host::check(amax::quantize(reference.get(), stack, amax::kRows + 1, 0, ref));
        host::check(amax::quantize(alone.get(), x, amax::kRows, 0, own));
        CHECK(mine.codes == amax::rows_of(ref, 0, amax::kRows));
        CHECK(amax::same_float(mine.scale, ref.scale));
        CHECK(amax::same_float(mine.scale_inv, ref.scale_inv));
        CHECK(amax::same_float(mine.amax, amax::amax_of(x)));  // the amax written is this rank's
        CHECK(amax::state_of(agreed.get()) == amax::state_of(reference.get()));
        peer_won += std::isfinite(mine.amax) && mine.amax < kPeer ? 1 : 0;
        differs_alone += !amax::same_float(own.scale, mine.scale) ? 1 : 0;
      }
      // The control: with these data the peer matters, so the checks above
      // can fail (without the comm the scales differ).
      if (seed == kFixedSeed) {
        CHECK(peer_won > 2);
        CHECK(differs_alone > 2);
      }
    }
  }
}

TEST_CASE("a timed-out amax all_reduce returns the comm's error and records nothing") {
  const uint32_t seed = frugal_test::test_seed32();
  INFO("seed " << seed);
  CapturingContext captured;
  frugal_context* context = captured.context.get();
  host::check(frugal_context_load_plugin(context, builtin_path("quant_fp8").c_str()));

  SECTION("delayed: the state is unchanged, FREEZE_SCALE calls still work") {
    auto comm = peer_comm(context, 0.0, 3);
    auto q = amax::make_quantizer(context, amax::recipes()[0], comm.get());
    amax::Quantized out;
    for (int step = 0; step < 3; ++step)
      host::check(amax::quantize(q.get(), amax::rank_data(seed, 0, 1, step), amax::kRows, 0, out));
    const std::vector<float> x = amax::rank_data(seed, 0, 1, 3);
    // A FREEZE_SCALE call makes no collective: it shows the scale the state holds.
    host::check(amax::quantize(q.get(), x, amax::kRows, FRUGAL_QUANTIZE_FREEZE_SCALE, out));
    const float scale_before = out.scale;
    const std::vector<uint8_t> before = amax::state_of(q.get());
    // The fourth collective times out: the error is the comm's, naming it and the ranks.
    expect_error(amax::quantize(q.get(), x, amax::kRows, 0, out), FRUGAL_ERR_DEADLINE_EXCEEDED,
                 {"comm 'peer'", "all_reduce on rank 0 of 2", "did not take part"});
    CHECK(amax::same_float(out.scale, scale_before));  // the codes were cast with the kept scale
    CHECK(captured.logged("option 'amax_comm' (rank 0 of 2) failed"));
    CHECK(captured.logged("this call's amax was not recorded (the state is unchanged)"));
    CHECK(amax::state_of(q.get()) == before);
    // FREEZE_SCALE calls still work, with the kept scale.
    host::check(amax::quantize(q.get(), x, amax::kRows, FRUGAL_QUANTIZE_FREEZE_SCALE, out));
    CHECK(amax::same_float(out.scale, scale_before));
    // The core refuses further collectives on a comm that failed; still nothing recorded.
    expect_error(amax::quantize(q.get(), x, amax::kRows, 0, out), FRUGAL_ERR_FAILED_PRECONDITION, {"broken"});
    CHECK(amax::state_of(q.get()) == before);
  }
  SECTION("current: nothing is written") {
    auto comm = peer_comm(context, 0.0, 0);
    auto q = amax::make_quantizer(context, amax::recipes()[2], comm.get());
    amax::Quantized out;
    expect_error(amax::quantize(q.get(), amax::rank_data(seed, 0, 1, 0), amax::kRows, 0, out),
                 FRUGAL_ERR_DEADLINE_EXCEEDED, {"comm 'peer'", "rank 0 of 2"});
    CHECK(captured.logged("nothing was written"));
    CHECK(out.codes == std::vector<uint8_t>(out.codes.size(), 0xEE));
    CHECK(out.scale_inv == -1.0f);
  }
}

TEST_CASE("amax_comm is accepted for delayed and current, refused by name elsewhere") {
  auto context = quant_context();
  auto comm = local_comm(context.get());
  for (const std::vector<Option>& ok : std::vector<std::vector<Option>>{
           {{"recipe", "delayed"}}, {{"format", "e5m2"}, {"recipe", "current"}}, {{"format", "int8"}}}) {
    const Outcome result = create_outcome(context.get(), ok, comm.get());
    INFO(result.message);
    CHECK(result.code == FRUGAL_OK);
  }
  for (const char* recipe : {"per_channel", "block", "mx"}) {
    const Outcome refused = create_outcome(context.get(), {{"recipe", recipe}}, comm.get());
    INFO(refused.message);
    CHECK(refused.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK_THAT(refused.message, Catch::Contains("option 'amax_comm' does not apply to recipe " + std::string(recipe)));
  }
  const Outcome asym = create_outcome(context.get(), {{"format", "int8_asym"}}, comm.get());
  CHECK(asym.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(asym.message, Catch::Contains("option 'amax_comm' does not apply to format int8_asym"));

  // A value of another type: the core names the option and the type it wants.
  const Outcome typed = create_outcome(context.get(), {{"amax_comm", int64_t{3}}}, nullptr);
  INFO(typed.message);
  CHECK(typed.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(typed.message, Catch::Contains("'amax_comm'") && Catch::Contains("comm"));

  // A comm whose buffers live on a device: the amax is reduced in host memory.
  auto on_device = peer_comm(context.get(), 0.0, -1, "cuda");
  const Outcome device = create_outcome(context.get(), {{"recipe", "delayed"}}, on_device.get());
  INFO(device.message);
  CHECK(device.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(device.message, Catch::Contains("option 'amax_comm'") && Catch::Contains("host comm"));
}
