// An engine with a comm, in one process (the `local` comm, a group of
// one): registration of slices and its refusals, a save that is not one
// checkpoint refused before its commit, and a round trip of format 3. The
// same engine across ranks: sharded_ranks.cpp under mpirun.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "ckpt_fixture.hpp"
#include "test_helpers.hpp"

using namespace frugal::test;
namespace host = frugal::host;

namespace {

struct Rig {
  ScratchDir dir;
  host::ContextPtr context = host::make_context();
  StorePtr store;
  host::CommPtr comm;
  EnginePtr engine;
  explicit Rig(bool with_comm = true) {
    store = open_fs_store(context.get(), dir.path.string());
    auto options = host::make_options();
    if (with_comm) {
      host::check(frugal_context_load_plugin(context.get(), builtin_path("comm_local").c_str()));
      comm = host::make_comm(context.get(), "local", nullptr);
      host::check(frugal_options_set_comm(options.get(), "comm", comm.get()));
    }
    frugal_ckpt_engine* e = nullptr;
    host::check(frugal_ckpt_engine_create(store.get(), options.get(), &e));
    engine.reset(e);
  }
};

frugal_ckpt_slice slice_of(std::vector<int64_t>& global, std::vector<int64_t>& offsets, bool replicated = false) {
  frugal_ckpt_slice slice{};
  slice.struct_size = sizeof(slice);
  slice.ndim = static_cast<int32_t>(global.size());
  slice.replicated = replicated ? 1 : 0;
  slice.global_shape = global.data();
  slice.offsets = offsets.data();
  return slice;
}

}  // namespace

TEST_CASE("register_slice: refusals name what is wrong") {
  HostTensor t({2, 3});
  std::vector<int64_t> global{4, 3};
  std::vector<int64_t> offsets{2, 0};
  SECTION("an engine without a comm") {
    Rig rig(false);
    auto slice = slice_of(global, offsets);
    expect_error(frugal_ckpt_register_slice(rig.engine.get(), "t", &t.view, &slice, 0), FRUGAL_ERR_FAILED_PRECONDITION,
                 {"created without a 'comm' option"});
  }
  Rig rig;
  SECTION("a box past the tensor") {
    offsets = {3, 0};
    auto slice = slice_of(global, offsets);
    expect_error(frugal_ckpt_register_slice(rig.engine.get(), "t", &t.view, &slice, 0), FRUGAL_ERR_OUT_OF_RANGE,
                 {"checkpoint slice 't' [2, 3] at [3, 0] of [4, 3]", "past the tensor's extent 4"});
  }
  SECTION("dimensions that differ from the view's") {
    auto slice = slice_of(global, offsets);
    slice.ndim = 1;
    expect_error(frugal_ckpt_register_slice(rig.engine.get(), "t", &t.view, &slice, 0), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"slice->ndim is 1 but the view has 2 dimensions"});
  }
  SECTION("a replicated tensor whose view is part of it") {
    auto slice = slice_of(global, offsets, true);
    expect_error(frugal_ckpt_register_slice(rig.engine.get(), "t", &t.view, &slice, 0), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"is replicated, so the view must be the whole tensor [4, 3]"});
  }
  SECTION("a struct older than its required fields") {
    auto slice = slice_of(global, offsets);
    slice.struct_size = sizeof(size_t);
    expect_error(frugal_ckpt_register_slice(rig.engine.get(), "t", &t.view, &slice, 0), FRUGAL_ERR_ABI_MISMATCH,
                 {"slice->struct_size is 8"});
  }
  SECTION("a NULL slice") {
    expect_error(frugal_ckpt_register_slice(rig.engine.get(), "t", &t.view, nullptr, 0), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"slice"});
  }
}

TEST_CASE("a save whose slices do not cover their tensor is not committed, and says which elements are missing") {
  Rig rig;
  HostTensor t({2, 3});
  std::vector<int64_t> global{4, 3};
  std::vector<int64_t> offsets{0, 0};
  auto slice = slice_of(global, offsets);
  host::check(frugal_ckpt_register_slice(rig.engine.get(), "t", &t.view, &slice, 0));
  const auto args = save_args(FRUGAL_CKPT_FULL, 1, "", FRUGAL_CKPT_SAVE_WAIT);
  frugal_ckpt_save_result result{};
  result.struct_size = sizeof(result);
  expect_error(frugal_ckpt_save(rig.engine.get(), &args, &result), FRUGAL_ERR_FAILED_PRECONDITION,
               {"was not committed", "covers 6 of the 12 elements of tensor 't'"});
  CHECK(list_all(rig.engine.get(), false).empty());  // nothing left behind
}

TEST_CASE("a group of one saves format 3 and restores it: slices, replicated and rank-local tensors") {
  Rig rig;
  HostTensor whole({4, 3});
  whole.fill(7);
  HostTensor replicated({5});
  replicated.fill(8);
  HostTensor own({2});
  own.fill(9);
  std::vector<int64_t> global{4, 3};
  std::vector<int64_t> zeros{0, 0};
  std::vector<int64_t> rep_global{5};
  std::vector<int64_t> rep_zero{0};
  auto slice = slice_of(global, zeros);
  auto rep = slice_of(rep_global, rep_zero, true);
  host::check(frugal_ckpt_register_slice(rig.engine.get(), "w", &whole.view, &slice, 0));
  host::check(frugal_ckpt_register_slice(rig.engine.get(), "r", &replicated.view, &rep, 0));
  host::check(frugal_ckpt_register(rig.engine.get(), "own", &own.view, 0));
  const std::string name = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 5, "meta");
  char* text = nullptr;
  host::check(frugal_ckpt_inspect_json(rig.engine.get(), name.c_str(), &text));
  const std::string json = text;
  frugal_string_free(text);
  CHECK(json.find("\"world_size\": 1") != std::string::npos);
  CHECK(json.find("\"rank_local\": true") != std::string::npos);
  const auto saved = std::vector{whole.data, replicated.data, own.data};
  std::memset(whole.data.data(), 0, whole.data.size() * sizeof(float));
  std::memset(replicated.data.data(), 0, replicated.data.size() * sizeof(float));
  std::memset(own.data.data(), 0, own.data.size() * sizeof(float));
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  char metadata[16];
  size_t metadata_size = 0;
  host::check(frugal_ckpt_restore(rig.engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, metadata, sizeof(metadata),
                                  &metadata_size, &info));
  CHECK(std::string(info.name) == name);
  CHECK(std::string(metadata, metadata_size) == "meta");
  CHECK(info.not_restored_count == 0);
  CHECK(whole.data == saved[0]);
  CHECK(replicated.data == saved[1]);
  CHECK(own.data == saved[2]);
}

TEST_CASE("an engine with a comm restores a checkpoint of one process (format 1), slice by slice") {
  ScratchDir dir;
  host::ContextPtr context = host::make_context();
  StorePtr store = open_fs_store(context.get(), dir.path.string());
  HostTensor whole({4, 3});
  whole.fill(11);
  {
    EnginePtr plain = make_engine(store.get());
    host::check(frugal_ckpt_register(plain.get(), "w", &whole.view, 0));
    save_and_wait(plain.get(), FRUGAL_CKPT_FULL, 3, "");
  }
  host::check(frugal_context_load_plugin(context.get(), builtin_path("comm_local").c_str()));
  auto comm = host::make_comm(context.get(), "local", nullptr);
  auto options = host::make_options();
  host::check(frugal_options_set_comm(options.get(), "comm", comm.get()));
  frugal_ckpt_engine* e = nullptr;
  host::check(frugal_ckpt_engine_create(store.get(), options.get(), &e));
  EnginePtr engine(e);
  // Rows 1..2 of the saved [4, 3] tensor.
  HostTensor rows({2, 3});
  std::vector<int64_t> global{4, 3};
  std::vector<int64_t> offsets{1, 0};
  auto slice = slice_of(global, offsets);
  host::check(frugal_ckpt_register_slice(engine.get(), "w", &rows.view, &slice, 0));
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  size_t metadata_size = 0;
  host::check(frugal_ckpt_restore(engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, nullptr, 0, &metadata_size, &info));
  CHECK(info.step == 3);
  CHECK(rows.data == std::vector<float>(whole.data.begin() + 3, whole.data.begin() + 9));
}
