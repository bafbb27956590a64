// Bad input to the packer C API, and packer plugins that break the
// contract: every failure has the right code and a message naming the
// problem, nothing crashes, and the packer (or the host) keeps working.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "test_helpers.hpp"
#include "test_packer_common.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

// The probe after every error: the packer still packs a valid plan.
void expect_still_works(frugal_packer* packer, const PackerConfig& config) {
  const auto lengths = make_lengths(Dist::uniform, 20, config.max_len, config.max_len, 1);
  auto plan = pack(packer, lengths);
  check_coverage(units_of(plan.get()), lengths, config);
  check_plan(plan.get(), config, lengths);
}

frugal_error* create_with(frugal_context* context, const frugal_options* options, frugal_packer** out) {
  return frugal_packer_create(context, "packer_seq", options, out);
}

}  // namespace

TEST_CASE("pack refuses zero and negative lengths, naming the first bad sequence") {
  auto context = packer_context();
  const PackerConfig config{64, 0, "ffd", nullptr};
  auto packer = make_seq_packer(context.get(), config);
  frugal_pack_plan* plan = nullptr;
  const std::vector<int64_t> zero{5, 3, 0, -2};
  expect_error(frugal_packer_pack(packer.get(), zero.data(), zero.size(), &plan), FRUGAL_ERR_INVALID_ARGUMENT,
               {"sequence 2", "length 0", ">= 1"});
  const std::vector<int64_t> negative{7, -4};
  expect_error(frugal_packer_pack(packer.get(), negative.data(), negative.size(), &plan), FRUGAL_ERR_INVALID_ARGUMENT,
               {"sequence 1", "length -4"});
  CHECK(plan == nullptr);
  expect_still_works(packer.get(), config);
}

TEST_CASE("overlong = error (the default) refuses a too-long sequence, naming it and the way out") {
  auto context = packer_context();
  const PackerConfig config{512, 0, "lpfhp", GENERATE(static_cast<const char*>(nullptr), "error")};
  auto packer = make_seq_packer(context.get(), config);
  const std::vector<int64_t> lengths{10, 512, 600, 700};
  frugal_pack_plan* plan = nullptr;
  expect_error(frugal_packer_pack(packer.get(), lengths.data(), lengths.size(), &plan), FRUGAL_ERR_INVALID_ARGUMENT,
               {"sequence 2", "600", "max_len 512", "truncate", "split"});
  CHECK(plan == nullptr);
  expect_still_works(packer.get(), config);
}

TEST_CASE("pack refuses empty input and NULL arguments") {
  auto context = packer_context();
  const PackerConfig config{64, 0, "bfd", nullptr};
  auto packer = make_seq_packer(context.get(), config);
  const int64_t lengths[] = {3, 4};
  frugal_pack_plan* plan = nullptr;
  expect_error(frugal_packer_pack(packer.get(), lengths, 0, &plan), FRUGAL_ERR_INVALID_ARGUMENT, {"empty"});
  expect_error(frugal_packer_pack(packer.get(), nullptr, 0, &plan), FRUGAL_ERR_INVALID_ARGUMENT, {"empty"});
  expect_error(frugal_packer_pack(packer.get(), nullptr, 2, &plan), FRUGAL_ERR_INVALID_ARGUMENT, {"'lengths'"});
  expect_error(frugal_packer_pack(nullptr, lengths, 2, &plan), FRUGAL_ERR_INVALID_ARGUMENT, {"'packer'"});
  expect_error(frugal_packer_pack(packer.get(), lengths, 2, nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"'out'"});
  CHECK(plan == nullptr);
  frugal_packer_destroy(nullptr);  // allowed
  frugal_pack_plan_destroy(nullptr);
  expect_still_works(packer.get(), config);
}

TEST_CASE("packer creation validates max_len, max_per_pack, overlong and the strategy's options") {
  auto context = packer_context();
  struct Case {
    const char* name;
    const char* text;  // parsed: "7" is an int, "x" a string
    int code;
    std::vector<const char*> mentions;
  };
  const Case bad = GENERATE(Case{"max_len", "0", FRUGAL_ERR_INVALID_ARGUMENT, {"'max_len'", "> 0", "got 0"}},
                            Case{"max_len", "-16", FRUGAL_ERR_INVALID_ARGUMENT, {"'max_len'", "-16"}},
                            Case{"max_len", "4294967296", FRUGAL_ERR_OUT_OF_RANGE, {"'max_len'", "int32"}},
                            Case{"max_per_pack", "-1", FRUGAL_ERR_INVALID_ARGUMENT, {"'max_per_pack'", "-1"}},
                            Case{"overlong", "bogus", FRUGAL_ERR_INVALID_ARGUMENT, {"'overlong'", "bogus", "split"}},
                            Case{"algo", "quantum", FRUGAL_ERR_INVALID_ARGUMENT, {"'algo'", "quantum", "ffd"}},
                            Case{"algorithm", "ffd", FRUGAL_ERR_INVALID_ARGUMENT, {"unknown option 'algorithm'"}});
  INFO(bad.name << " = " << bad.text);
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "max_len", 64));
  host::check(frugal_options_set_parsed(options.get(), bad.name, bad.text));
  frugal_packer* packer = nullptr;
  const auto result = outcome(create_with(context.get(), options.get(), &packer));
  INFO(result.message);
  CHECK(result.code == bad.code);
  CHECK(result.message.find("packer 'packer_seq'") != std::string::npos);
  for (const char* mention : bad.mentions) CHECK(result.message.find(mention) != std::string::npos);
  CHECK(packer == nullptr);
  // The context still makes packers.
  auto good = make_seq_packer(context.get(), {64, 0, "ffd", nullptr});
  expect_still_works(good.get(), {64, 0, "ffd", nullptr});
}

TEST_CASE("packer creation requires max_len and refuses NULL arguments and unknown strategies") {
  auto context = packer_context();
  auto no_max_len = host::make_options();
  host::check(frugal_options_set_string(no_max_len.get(), "algo", "ffd"));
  frugal_packer* packer = nullptr;
  expect_error(create_with(context.get(), no_max_len.get(), &packer), FRUGAL_ERR_INVALID_ARGUMENT,
               {"'max_len'", "required"});
  expect_error(create_with(context.get(), nullptr, &packer), FRUGAL_ERR_INVALID_ARGUMENT, {"'max_len'"});
  auto options = packer_options({64, 0, "ffd", nullptr});
  expect_error(create_with(nullptr, options.get(), &packer), FRUGAL_ERR_INVALID_ARGUMENT, {"'context'"});
  expect_error(frugal_packer_create(context.get(), nullptr, options.get(), &packer), FRUGAL_ERR_INVALID_ARGUMENT,
               {"'name'"});
  expect_error(create_with(context.get(), options.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"'out'"});
  expect_error(frugal_packer_create(context.get(), "packer_sequence", options.get(), &packer), FRUGAL_ERR_NOT_FOUND,
               {"'packer_sequence'"});
  CHECK(packer == nullptr);
  // The qualified name works as well as the short one.
  host::check(frugal_packer_create(context.get(), "packer_seq/packer_seq", options.get(), &packer));
  host::PackerPtr owned(packer);
  expect_still_works(owned.get(), {64, 0, "ffd", nullptr});
}

TEST_CASE("histogram packing refuses empty histograms, negative counts and bad lengths, naming the bin") {
  auto context = packer_context();
  const PackerConfig config{32, 0, "ffd", nullptr};
  auto packer = make_seq_packer(context.get(), config);
  frugal_pack_plan* plan = nullptr;
  const int64_t lengths[] = {4, 8, 0, 40};
  const int64_t zero_counts[] = {0, 0, 0, 0};
  const int64_t negative[] = {1, -2, 0, 0};
  const int64_t zero_length_used[] = {1, 1, 3, 0};
  const int64_t overlong_used[] = {1, 2, 0, 1};
  expect_error(frugal_packer_pack_histogram(packer.get(), lengths, zero_counts, 0, &plan), FRUGAL_ERR_INVALID_ARGUMENT,
               {"empty histogram"});
  expect_error(frugal_packer_pack_histogram(packer.get(), lengths, zero_counts, 4, &plan), FRUGAL_ERR_INVALID_ARGUMENT,
               {"empty histogram", "every count is 0"});
  expect_error(frugal_packer_pack_histogram(packer.get(), lengths, negative, 4, &plan), FRUGAL_ERR_INVALID_ARGUMENT,
               {"bin 1", "negative", "-2"});
  expect_error(frugal_packer_pack_histogram(packer.get(), lengths, zero_length_used, 4, &plan),
               FRUGAL_ERR_INVALID_ARGUMENT, {"bin 2", "length 0"});
  // Overlong under "error": the sequence ids follow bin order: 0, 1 2, 3.
  expect_error(frugal_packer_pack_histogram(packer.get(), lengths, overlong_used, 4, &plan),
               FRUGAL_ERR_INVALID_ARGUMENT, {"sequence 3", "40", "max_len 32"});
  expect_error(frugal_packer_pack_histogram(packer.get(), nullptr, negative, 4, &plan), FRUGAL_ERR_INVALID_ARGUMENT,
               {"'lengths'"});
  expect_error(frugal_packer_pack_histogram(packer.get(), lengths, nullptr, 4, &plan), FRUGAL_ERR_INVALID_ARGUMENT,
               {"'counts'"});
  expect_error(frugal_packer_pack_histogram(nullptr, lengths, negative, 4, &plan), FRUGAL_ERR_INVALID_ARGUMENT,
               {"'packer'"});
  expect_error(frugal_packer_pack_histogram(packer.get(), lengths, overlong_used, 3, nullptr),
               FRUGAL_ERR_INVALID_ARGUMENT, {"'out'"});
  CHECK(plan == nullptr);
  // A zero-length bin with count 0 holds no sequence; the rest packs.
  const int64_t fine[] = {1, 2, 0, 0};
  host::check(frugal_packer_pack_histogram(packer.get(), lengths, fine, 4, &plan));
  host::PackPlanPtr owned(plan);
  check_coverage(units_of(owned.get()), {4, 8, 8}, config);
  expect_still_works(packer.get(), config);
}

TEST_CASE("input that expands past the memory budget is refused before allocating, naming it and the limit") {
  auto context = packer_context();
  frugal_pack_plan* plan = nullptr;
  {
    // 2^40 sequences of one token: 140 TiB to pack.
    const PackerConfig config{64, 0, "spfhp", nullptr};
    auto packer = make_seq_packer(context.get(), config);
    const int64_t lengths[] = {3, 1};
    const int64_t counts[] = {0, int64_t{1} << 40};  // the histogram line, after an empty bin
    expect_error(frugal_packer_pack_histogram(packer.get(), lengths, counts, 2, &plan), FRUGAL_ERR_OUT_OF_MEMORY,
                 {"bin 1", "length 1", "count 1099511627776", "1099511627776 units", "GiB", "over the limit of",
                  "bytes per unit"});
    CHECK(plan == nullptr);
    expect_still_works(packer.get(), config);
  }
  {
    // One sequence split into 7.8e9 pieces of one token, at once and streamed.
    const PackerConfig config{1, 0, "ffd", "split"};
    auto packer = make_seq_packer(context.get(), config);
    const std::vector<int64_t> lengths{1, 7777777771};
    expect_error(frugal_packer_pack(packer.get(), lengths.data(), lengths.size(), &plan), FRUGAL_ERR_OUT_OF_MEMORY,
                 {"sequence 1", "length 7777777771", "7777777772 units", "over the limit of"});
    CHECK(plan == nullptr);
    frugal_pack_stream* raw = nullptr;
    host::check(frugal_pack_stream_create(packer.get(), nullptr, &raw));
    host::PackStreamPtr stream(raw);
    host::check(frugal_pack_stream_push(stream.get(), 0, 1));
    expect_error(frugal_pack_stream_push(stream.get(), 1, 7777777771), FRUGAL_ERR_OUT_OF_MEMORY,
                 {"sequence 1", "7777777771 pieces", "7777777772 units", "over the limit of"});
    size_t held = 0;
    host::check(frugal_pack_stream_pending(stream.get(), &held, nullptr));
    CHECK(held == 1);
  }
}

TEST_CASE("input whose tokens overflow int64 is refused, naming where the total overflowed") {
  auto context = packer_context();
  const PackerConfig config{8, 0, "ffd", "truncate"};
  auto packer = make_seq_packer(context.get(), config);
  frugal_pack_plan* plan = nullptr;
  const int64_t huge = INT64_MAX / 2 + 1;
  const std::vector<int64_t> lengths{5, huge, huge};
  expect_error(frugal_packer_pack(packer.get(), lengths.data(), lengths.size(), &plan), FRUGAL_ERR_OUT_OF_RANGE,
               {"sequence 2", "tokens (int64)"});
  const int64_t bins[] = {huge};
  const int64_t counts[] = {2};
  expect_error(frugal_packer_pack_histogram(packer.get(), bins, counts, 1, &plan), FRUGAL_ERR_OUT_OF_RANGE,
               {"bin 0", "count 2", "tokens (int64)"});
  CHECK(plan == nullptr);
  // Below the overflow the same lengths pack, their cut tokens counted.
  const std::vector<int64_t> fine{5, huge};
  auto ok = pack(packer.get(), fine);
  CHECK(stats_of(ok.get()).truncated_tokens == huge - 8);
}

TEST_CASE("per-pack calls refuse a pack index out of range, naming the index and the pack count") {
  auto context = packer_context();
  auto packer = make_seq_packer(context.get(), {8, 0, "ffd", nullptr});
  auto plan = pack(packer.get(), {8, 8});  // two full packs
  REQUIRE(stats_of(plan.get()).packs == 2);
  std::vector<int64_t> row(8), tokens(16, 1);
  std::vector<int32_t> row32(8);
  std::vector<uint8_t> mask(64);
  const int64_t offsets[] = {0, 8, 16};
  frugal_pack_gather_args args{};
  args.struct_size = sizeof(args);
  args.tokens = tokens.data();
  args.sequence_offsets = offsets;
  args.sequence_count = 2;
  args.out_tokens = row.data();
  args.out_length = 8;
  for (const size_t pack_index : {size_t{2}, size_t{1000}}) {
    const std::string index = "pack " + std::to_string(pack_index);
    expect_error(frugal_pack_plan_varlen(plan.get(), pack_index, row32.data(), 8, nullptr, nullptr),
                 FRUGAL_ERR_OUT_OF_RANGE, {index.c_str(), "2 packs"});
    expect_error(frugal_pack_plan_position_ids(plan.get(), pack_index, row.data(), 8), FRUGAL_ERR_OUT_OF_RANGE,
                 {index.c_str(), "2 packs"});
    expect_error(frugal_pack_plan_segment_ids(plan.get(), pack_index, row32.data(), 8), FRUGAL_ERR_OUT_OF_RANGE,
                 {index.c_str(), "2 packs"});
    expect_error(frugal_pack_plan_mask(plan.get(), pack_index, mask.data(), 8), FRUGAL_ERR_OUT_OF_RANGE,
                 {index.c_str(), "2 packs"});
    expect_error(frugal_pack_plan_gather(plan.get(), pack_index, &args), FRUGAL_ERR_OUT_OF_RANGE,
                 {index.c_str(), "2 packs"});
  }
  // The last pack is in range.
  host::check(frugal_pack_plan_gather(plan.get(), 1, &args));
  CHECK(row == std::vector<int64_t>(8, 1));
}

TEST_CASE("per-pack calls refuse too-small outputs: cu_seqlens capacity, row length, mask side") {
  auto context = packer_context();
  auto packer = make_seq_packer(context.get(), {16, 0, "ffd", nullptr});
  auto plan = pack(packer.get(), {5, 4, 3});  // one pack of 12 tokens, 3 units
  REQUIRE(stats_of(plan.get()).packs == 1);
  std::vector<int32_t> cu(4, -1);
  size_t written = 99;
  expect_error(frugal_pack_plan_varlen(plan.get(), 0, cu.data(), 3, &written, nullptr), FRUGAL_ERR_OUT_OF_RANGE,
               {"cu_seqlens", "holds 3", "needs 4"});
  CHECK(written == 99);
  CHECK(cu == std::vector<int32_t>(4, -1));  // nothing written
  std::vector<int64_t> row(16, -1);
  expect_error(frugal_pack_plan_position_ids(plan.get(), 0, row.data(), 11), FRUGAL_ERR_OUT_OF_RANGE,
               {"length", "11", "12 tokens"});
  std::vector<int32_t> row32(16, -1);
  expect_error(frugal_pack_plan_segment_ids(plan.get(), 0, row32.data(), 11), FRUGAL_ERR_OUT_OF_RANGE,
               {"length", "11", "12 tokens"});
  std::vector<uint8_t> mask(16 * 16, 3);
  expect_error(frugal_pack_plan_mask(plan.get(), 0, mask.data(), 11), FRUGAL_ERR_OUT_OF_RANGE,
               {"side", "11", "12 tokens"});
  CHECK(row == std::vector<int64_t>(16, -1));
  CHECK(mask == std::vector<uint8_t>(16 * 16, 3));
  // NULL outputs.
  expect_error(frugal_pack_plan_varlen(plan.get(), 0, nullptr, 4, nullptr, nullptr), FRUGAL_ERR_INVALID_ARGUMENT,
               {"'cu_seqlens'"});
  expect_error(frugal_pack_plan_position_ids(plan.get(), 0, nullptr, 16), FRUGAL_ERR_INVALID_ARGUMENT, {"'out'"});
  expect_error(frugal_pack_plan_segment_ids(plan.get(), 0, nullptr, 16), FRUGAL_ERR_INVALID_ARGUMENT, {"'out'"});
  expect_error(frugal_pack_plan_mask(plan.get(), 0, nullptr, 16), FRUGAL_ERR_INVALID_ARGUMENT, {"'out'"});
  expect_error(frugal_pack_plan_varlen(nullptr, 0, cu.data(), 4, nullptr, nullptr), FRUGAL_ERR_INVALID_ARGUMENT,
               {"'plan'"});
  // Exactly enough works: the row may equal the pack's tokens.
  host::check(frugal_pack_plan_varlen(plan.get(), 0, cu.data(), 4, &written, nullptr));
  CHECK(written == 4);
  host::check(frugal_pack_plan_position_ids(plan.get(), 0, row.data(), 12));
  CHECK(row[11] == view_of(plan.get()).unit_lengths[2] - 1);  // the last unit's last position
  CHECK(row[12] == -1);                                       // nothing written past the row
}

TEST_CASE("gather refuses arrays that do not match the plan, naming the sequence and both lengths") {
  auto context = packer_context();
  auto packer = make_seq_packer(context.get(), {16, 0, "ffd", nullptr});
  auto plan = pack(packer.get(), {5, 4});
  REQUIRE(stats_of(plan.get()).packs == 1);
  // The caller's sequence 1 has only 3 tokens where the plan packed 4.
  const std::vector<int64_t> tokens{1, 2, 3, 4, 5, 6, 7, 8};
  const int64_t short_offsets[] = {0, 5, 8};
  std::vector<int64_t> out(16), labels(16);
  frugal_pack_gather_args args{};
  args.struct_size = sizeof(args);
  args.tokens = tokens.data();
  args.sequence_offsets = short_offsets;
  args.sequence_count = 2;
  args.out_tokens = out.data();
  args.out_labels = labels.data();
  args.out_length = 16;
  expect_error(frugal_pack_plan_gather(plan.get(), 0, &args), FRUGAL_ERR_INVALID_ARGUMENT,
               {"sequence 1", "3 tokens", "needs 4"});
  // A sequence id not below sequence_count.
  args.sequence_count = 1;
  expect_error(frugal_pack_plan_gather(plan.get(), 0, &args), FRUGAL_ERR_INVALID_ARGUMENT,
               {"sequence 1", "sequence_count (1)"});
  args.sequence_count = 2;
  // out_length below the pack's tokens.
  const int64_t good_offsets[] = {0, 5, 9};
  const std::vector<int64_t> nine{1, 2, 3, 4, 5, 6, 7, 8, 9};
  args.tokens = nine.data();
  args.sequence_offsets = good_offsets;
  args.out_length = 8;
  expect_error(frugal_pack_plan_gather(plan.get(), 0, &args), FRUGAL_ERR_OUT_OF_RANGE, {"out_length", "9 tokens"});
  args.out_length = 16;
  // NULL arrays.
  frugal_pack_gather_args null_tokens = args;
  null_tokens.tokens = nullptr;
  expect_error(frugal_pack_plan_gather(plan.get(), 0, &null_tokens), FRUGAL_ERR_INVALID_ARGUMENT, {"args->tokens"});
  frugal_pack_gather_args null_offsets = args;
  null_offsets.sequence_offsets = nullptr;
  expect_error(frugal_pack_plan_gather(plan.get(), 0, &null_offsets), FRUGAL_ERR_INVALID_ARGUMENT,
               {"args->sequence_offsets"});
  frugal_pack_gather_args null_out = args;
  null_out.out_tokens = nullptr;
  expect_error(frugal_pack_plan_gather(plan.get(), 0, &null_out), FRUGAL_ERR_INVALID_ARGUMENT, {"args->out_tokens"});
  expect_error(frugal_pack_plan_gather(plan.get(), 0, nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"'args'"});
  // struct_size too small to reach mask_first_label: an ABI mismatch.
  frugal_pack_gather_args small = args;
  small.struct_size = offsetof(frugal_pack_gather_args, mask_first_label);
  expect_error(frugal_pack_plan_gather(plan.get(), 0, &small), FRUGAL_ERR_ABI_MISMATCH,
               {"struct_size", std::to_string(offsetof(frugal_pack_gather_args, mask_first_label)).c_str()});
  small.struct_size = 0;
  expect_error(frugal_pack_plan_gather(plan.get(), 0, &small), FRUGAL_ERR_ABI_MISMATCH, {"struct_size is 0"});
  // After all that, a correct call works.
  host::check(frugal_pack_plan_gather(plan.get(), 0, &args));
  int64_t sum = 0;
  for (std::size_t i = 0; i < 9; ++i) sum += out[i];
  CHECK(sum == 45);
}

TEST_CASE("stats and view refuse NULL arguments and a struct_size too small to hold anything") {
  auto context = packer_context();
  auto packer = make_seq_packer(context.get(), {16, 0, "ffd", nullptr});
  auto plan = pack(packer.get(), {5, 4});
  frugal_pack_stats stats{};
  stats.struct_size = 0;
  expect_error(frugal_pack_plan_stats(plan.get(), &stats), FRUGAL_ERR_INVALID_ARGUMENT, {"struct_size is 0"});
  frugal_pack_plan_view view{};
  view.struct_size = 4;
  expect_error(frugal_pack_plan_view_get(plan.get(), &view), FRUGAL_ERR_INVALID_ARGUMENT, {"struct_size is 4"});
  stats.struct_size = sizeof(stats);
  expect_error(frugal_pack_plan_stats(nullptr, &stats), FRUGAL_ERR_INVALID_ARGUMENT, {"'plan'"});
  expect_error(frugal_pack_plan_stats(plan.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"NULL"});
  expect_error(frugal_pack_plan_view_get(nullptr, &view), FRUGAL_ERR_INVALID_ARGUMENT, {"'plan'"});
  expect_error(frugal_pack_plan_view_get(plan.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"NULL"});
  CHECK(stats_of(plan.get()).real_tokens == 9);
}

// --- packer plugins that break the contract --------------------------------

namespace {

// A context with packer_seq and the bad packer variant `variant` loaded.
host::ContextPtr bad_packer_context(const char* variant) {
  auto context = packer_context();
  host::check(frugal_context_load_plugin(context.get(), plugin_path(variant).c_str()));
  return context;
}

host::PackerPtr make_bad_packer(frugal_context* context, int64_t max_len, int64_t max_per_pack) {
  auto options = packer_options({max_len, max_per_pack, nullptr, nullptr});
  return host::make_packer(context, "bad_packer", options.get());
}

}  // namespace

TEST_CASE("an assignment that breaks the contract fails the pack with INTERNAL naming the fault") {
  struct Fault {
    const char* variant;
    int64_t max_len;
    int64_t max_per_pack;
    std::vector<int64_t> lengths;
    std::vector<const char*> mentions;
  };
  const Fault fault = GENERATE(
      Fault{"bad_packer_twice", 100, 0, {1, 2, 3}, {"invalid assignment", "unit 0 is placed twice"}},
      Fault{"bad_packer_one_pack", 100, 0, {60, 50}, {"invalid assignment", "pack 0 holds 110 tokens > max_len 100"}},
      Fault{"bad_packer_one_pack", 100, 2, {1, 1, 1}, {"invalid assignment", "pack 0 holds 3 units > max_per_pack 2"}},
      Fault{"bad_packer_zero_packs", 100, 0, {5, 5}, {"returned 0 packs for 2 units"}},
      Fault{"bad_packer_empty_pack", 100, 0, {1, 2, 3}, {"invalid assignment", "pack 0 is empty"}},
      Fault{"bad_packer_bad_index", 100, 0, {1, 2, 3}, {"invalid assignment", "unit index 3", "out of range"}},
      Fault{"bad_packer_throws", 100, 0, {1, 2, 3}, {"threw an exception", "bad_packer exploded"}});
  INFO(fault.variant << " max_per_pack " << fault.max_per_pack);
  auto context = bad_packer_context(fault.variant);
  auto packer = make_bad_packer(context.get(), fault.max_len, fault.max_per_pack);
  frugal_pack_plan* plan = nullptr;
  const auto result = outcome(frugal_packer_pack(packer.get(), fault.lengths.data(), fault.lengths.size(), &plan));
  INFO(result.message);
  CHECK(result.code == FRUGAL_ERR_INTERNAL);
  CHECK(result.message.find("packer 'bad_packer'") != std::string::npos);
  for (const char* mention : fault.mentions) CHECK(result.message.find(mention) != std::string::npos);
  CHECK(plan == nullptr);
  // The same through a histogram (one bin per length).
  const std::vector<int64_t> ones(fault.lengths.size(), 1);
  CHECK(
      outcome(frugal_packer_pack_histogram(packer.get(), fault.lengths.data(), ones.data(), ones.size(), &plan)).code ==
      FRUGAL_ERR_INTERNAL);
  CHECK(plan == nullptr);
  // The host keeps working: packer_seq in the same context packs fine, and
  // the bad packer is destroyed cleanly (its destroy aborts on a wrong instance).
  packer.reset();
  const PackerConfig good{64, 0, "ffd", nullptr};
  expect_still_works(make_seq_packer(context.get(), good).get(), good);
}

TEST_CASE("a failing packing round in a stream leaves the window as it was") {
  auto context = bad_packer_context("bad_packer_twice");
  auto packer = make_bad_packer(context.get(), 100, 0);
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "window", 4));
  frugal_pack_stream* raw = nullptr;
  host::check(frugal_pack_stream_create(packer.get(), options.get(), &raw));
  host::PackStreamPtr stream(raw);
  for (int64_t id = 0; id < 3; ++id) host::check(frugal_pack_stream_push(stream.get(), id, 10));
  // The 4th fills the window: the round fails, and the push is undone.
  expect_error(frugal_pack_stream_push(stream.get(), 3, 10), FRUGAL_ERR_INTERNAL, {"unit 0 is placed twice"});
  size_t held = 0, ready = 0;
  host::check(frugal_pack_stream_pending(stream.get(), &held, &ready));
  CHECK(held == 3);
  CHECK(ready == 0);
  expect_error(frugal_pack_stream_flush(stream.get()), FRUGAL_ERR_INTERNAL, {"unit 0 is placed twice"});
  host::check(frugal_pack_stream_pending(stream.get(), &held, &ready));
  CHECK(held == 3);
  CHECK(ready == 0);
}

TEST_CASE("a valid raw-ABI packer: the core keeps its row order and names the method after the strategy") {
  // One unit per pack, in reverse order, method left NULL.
  auto context = bad_packer_context("bad_packer_ok");
  const PackerConfig config{16, 0, nullptr, nullptr};
  auto packer = make_bad_packer(context.get(), 16, 0);
  const std::vector<int64_t> lengths{3, 16, 7};
  auto plan = pack(packer.get(), lengths);
  check_coverage(units_of(plan.get()), lengths, config);
  check_plan(plan.get(), config, lengths);
  const auto view = view_of(plan.get());
  REQUIRE(view.unit_count == 3);
  CHECK(std::vector<int64_t>(view.sequence_ids, view.sequence_ids + 3) == std::vector<int64_t>{2, 1, 0});
  CHECK(std::string(stats_of(plan.get()).method) == "bad_packer");
}

TEST_CASE("a packer whose create returns a NULL instance is refused with INTERNAL") {
  auto context = bad_packer_context("bad_packer_null_instance");
  auto options = packer_options({16, 0, nullptr, nullptr});
  frugal_packer* packer = nullptr;
  expect_error(frugal_packer_create(context.get(), "bad_packer", options.get(), &packer), FRUGAL_ERR_INTERNAL,
               {"packer 'bad_packer'", "NULL instance"});
  CHECK(packer == nullptr);
  const PackerConfig good{64, 0, "ffd", nullptr};
  expect_still_works(make_seq_packer(context.get(), good).get(), good);
}
