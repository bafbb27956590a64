// The communicator API on the `local` backend (a group of one): every
// collective, the checks the core makes before any backend sees a call,
// comms handed to strategies as options, and a plugin using collectives
// through the host table.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "comm_cases.hpp"
#include "frugal/sdk/host.hpp"
#include "test_helpers.hpp"

namespace host = frugal::host;
using frugal::test::builtin_path;
using frugal::test::expect_error;
using frugal::test::plugin_path;

namespace {

struct LocalRig {
  host::ContextPtr context = host::make_context();
  host::CommPtr comm;
  LocalRig() {
    host::check(frugal_context_load_plugin(context.get(), builtin_path("comm_local").c_str()));
    comm = host::make_comm(context.get(), "local", nullptr);
  }
};

// A compact 1-D float32 tensor over `values`.
struct Floats {
  std::vector<float> values;
  int64_t extent;
  frugal_tensor view{};
  explicit Floats(size_t n, float fill = 0.0f) : values(n, fill), extent(static_cast<int64_t>(n)) {
    view.struct_size = sizeof(view);
    view.data = values.data();
    view.dtype = FRUGAL_DTYPE_FLOAT32;
    view.ndim = 1;
    view.device = {FRUGAL_DEVICE_CPU, 0};
    view.shape = &extent;
  }
  Floats(const Floats&) = delete;
  Floats& operator=(const Floats&) = delete;
};

}  // namespace

TEST_CASE("the local comm is rank 0 of 1 and passes every collective") {
  LocalRig rig;
  CHECK(frugal_comm_rank(rig.comm.get()) == 0);
  CHECK(frugal_comm_size(rig.comm.get()) == 1);
  CHECK(frugal_comm_device_type(rig.comm.get()) == FRUGAL_DEVICE_CPU);
  frugal::test::check_every_collective(rig.comm.get(), 17);
  frugal::test::check_uneven_collectives(rig.comm.get());
}

TEST_CASE("split: a color gives a sub-group, FRUGAL_COMM_COLOR_NONE gives none") {
  LocalRig rig;
  frugal_comm* sub = nullptr;
  host::check(frugal_comm_split(rig.comm.get(), 3, 0, &sub));
  REQUIRE(sub != nullptr);
  host::CommPtr owned(sub);
  CHECK(frugal_comm_size(sub) == 1);
  frugal::test::check_every_collective(sub, 3);
  frugal_comm* none = reinterpret_cast<frugal_comm*>(&rig);  // must be overwritten with NULL
  host::check(frugal_comm_split(rig.comm.get(), FRUGAL_COMM_COLOR_NONE, 0, &none));
  CHECK(none == nullptr);
  expect_error(frugal_comm_split(rig.comm.get(), -7, 0, &none), FRUGAL_ERR_INVALID_ARGUMENT,
               {"color -7 is negative", "FRUGAL_COMM_COLOR_NONE"});
}

TEST_CASE("the core checks a collective's tensors before the backend sees it") {
  LocalRig rig;
  frugal_comm* c = rig.comm.get();
  Floats four(4), three(3), eight(8);
  SECTION("recv of another size") {
    expect_error(frugal_comm_all_reduce(c, &four.view, &three.view, FRUGAL_REDUCE_SUM), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"comm 'local' (rank 0 of 1)", "all_reduce: recv has 3 elements; expected 4"});
    expect_error(frugal_comm_all_gather(c, &four.view, &eight.view), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"all_gather: recv has 8 elements; expected 4"});
    expect_error(frugal_comm_reduce_scatter(c, &eight.view, &four.view, FRUGAL_REDUCE_MAX), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"reduce_scatter: send has 8 elements; expected 4"});
  }
  SECTION("dtypes that disagree, and reductions a dtype does not take") {
    std::vector<uint8_t> bytes(4);
    int64_t extent = 4;
    frugal_tensor u8 = four.view;
    u8.data = bytes.data();
    u8.dtype = FRUGAL_DTYPE_UINT8;
    u8.shape = &extent;
    expect_error(frugal_comm_all_reduce(c, &four.view, &u8, FRUGAL_REDUCE_SUM), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"send has dtype float32 and recv dtype uint8"});
    expect_error(frugal_comm_all_reduce(c, &u8, &u8, FRUGAL_REDUCE_SUM), FRUGAL_ERR_UNSUPPORTED,
                 {"sum of uint8 is not supported"});
    host::check(frugal_comm_all_reduce(c, &u8, &u8, FRUGAL_REDUCE_MAX));  // max of uint8 is
    frugal_tensor fp8 = u8;
    fp8.dtype = FRUGAL_DTYPE_FLOAT8_E4M3FN;
    expect_error(frugal_comm_all_reduce(c, &fp8, &fp8, FRUGAL_REDUCE_MAX), FRUGAL_ERR_UNSUPPORTED,
                 {"max of float8_e4m3fn is not supported"});
    expect_error(frugal_comm_all_reduce(c, &four.view, &four.view, 9), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"reduce_op 9 is not a frugal_reduce_op_values value"});
  }
  SECTION("strided, quantized, misplaced or missing memory") {
    int64_t strides = 2;
    int64_t extent = 2;
    frugal_tensor strided = four.view;
    strided.shape = &extent;
    strided.strides = &strides;
    expect_error(frugal_comm_broadcast(c, &strided, 0), FRUGAL_ERR_UNSUPPORTED, {"broadcast: buffer", "compact"});
    frugal_quant_meta meta{};
    meta.struct_size = sizeof(meta);
    meta.scaling_mode = FRUGAL_SCALING_CURRENT;
    frugal_tensor quantized = four.view;
    quantized.quant = &meta;
    expect_error(frugal_comm_all_gather(c, &quantized, &four.view), FRUGAL_ERR_UNSUPPORTED,
                 {"all_gather: send", "quantized"});
    frugal_tensor on_gpu = four.view;
    on_gpu.device = {FRUGAL_DEVICE_CUDA, 0};
    expect_error(frugal_comm_all_to_all(c, &four.view, &on_gpu), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"recv is on CUDA:0; this comm moves host memory"});
    frugal_tensor no_data = four.view;
    no_data.data = nullptr;
    expect_error(frugal_comm_all_reduce(c, &no_data, &four.view, FRUGAL_REDUCE_SUM), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"all_reduce: send: data is NULL"});
    expect_error(frugal_comm_all_reduce(c, nullptr, &four.view, FRUGAL_REDUCE_SUM), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"send is NULL"});
    frugal_tensor pinned = four.view;
    pinned.device = {FRUGAL_DEVICE_CUDA_PINNED, 0};
    host::check(frugal_comm_all_reduce(c, &pinned, &pinned, FRUGAL_REDUCE_SUM));  // pinned host memory is host memory
  }
  SECTION("overlapping send and recv (only all_reduce runs in place)") {
    frugal_tensor shifted = three.view;
    shifted.data = four.values.data() + 1;
    frugal_tensor first3 = three.view;
    first3.data = four.values.data();
    expect_error(frugal_comm_all_reduce(c, &first3, &shifted, FRUGAL_REDUCE_SUM), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"send and recv overlap", "in place means the same memory"});
    expect_error(frugal_comm_all_gather(c, &four.view, &four.view), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"all_gather: send and recv overlap"});
  }
  SECTION("broadcast from a rank outside the group") {
    expect_error(frugal_comm_broadcast(c, &four.view, 1), FRUGAL_ERR_OUT_OF_RANGE,
                 {"broadcast: root 1 is outside the group's ranks 0..0"});
  }
  SECTION("all_to_all_v parts: outside the tensor, overlapping, or sent and expected counts that differ") {
    const size_t counts[] = {5};
    const size_t fits[] = {4};
    const size_t late[] = {1};
    expect_error(frugal_comm_all_to_all_v(c, &four.view, counts, nullptr, &eight.view, counts, nullptr),
                 FRUGAL_ERR_OUT_OF_RANGE, {"all_to_all_v: send part 0 (elements 0..5) lies outside its 4 elements"});
    expect_error(frugal_comm_all_to_all_v(c, &four.view, fits, late, &eight.view, fits, nullptr),
                 FRUGAL_ERR_OUT_OF_RANGE, {"send part 0 (elements 1..5)"});
    expect_error(frugal_comm_all_to_all_v(c, &four.view, nullptr, nullptr, &eight.view, fits, nullptr),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"send_counts is NULL"});
    const size_t three_of[] = {3};
    expect_error(frugal_comm_all_to_all_v(c, &four.view, fits, nullptr, &eight.view, three_of, nullptr),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"comm 'local'", "sends 4 elements to itself but expects 3"});
    const size_t gather_counts[] = {3};
    expect_error(frugal_comm_all_gather_v(c, &four.view, &eight.view, gather_counts, nullptr),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"recv_counts[0] (this rank) is 3, but send has 4 elements"});
  }
  SECTION("deadlines must be positive") {
    expect_error(frugal_comm_set_timeout(c, 0), FRUGAL_ERR_INVALID_ARGUMENT, {"timeout_ms is 0; expected > 0"});
    host::check(frugal_comm_set_timeout(c, 5));
  }
  // Nothing of the refused calls reached the buffers.
  for (const float v : four.values) CHECK(v == 0.0f);
}

TEST_CASE("a comm handed over as an option outlives the host's handle") {
  LocalRig rig;
  host::Options options;
  options.set("group", rig.comm.get());
  CHECK(frugal_options_type(options.get(), "group") == FRUGAL_OPTION_COMM);
  frugal_comm* read = nullptr;
  host::check(frugal_options_get_comm(options.get(), "group", &read));
  REQUIRE(read != nullptr);
  rig.comm.reset();  // the options' reference keeps the communicator
  CHECK(frugal_comm_size(read) == 1);
  Floats x(2, 1.5f);
  host::check(frugal_comm_all_reduce(read, &x.view, &x.view, FRUGAL_REDUCE_SUM));
  CHECK(x.values[0] == 1.5f);
  frugal_comm* absent = read;
  host::check(frugal_options_get_comm(options.get(), "other", &absent));
  CHECK(absent == nullptr);
  int64_t not_int = 0;
  expect_error(frugal_options_get_int(options.get(), "group", 0, &not_int), FRUGAL_ERR_INVALID_ARGUMENT,
               {"option 'group' has type comm; expected int"});
  expect_error(frugal_options_set_comm(options.get(), "x", nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"comm"});
}

TEST_CASE("a plugin runs collectives on the comm it was handed, through the host table") {
  LocalRig rig;
  host::check(frugal_context_load_plugin(rig.context.get(), plugin_path("comm_user").c_str()));
  host::Options options;
  options.set("comm", rig.comm.get());
  auto schedule = host::make_schedule(rig.context.get(), "rank_sum", options.get());
  rig.comm.reset();
  options = host::Options();  // the instance holds the comm itself now
  double lr = 0.0;
  host::check(frugal_schedule_lr(schedule.get(), 41, &lr));
  CHECK(lr == 41.0);  // step + rank over a group of one
  frugal_schedule* missing = nullptr;
  expect_error(frugal_schedule_create(rig.context.get(), "rank_sum", nullptr, &missing), FRUGAL_ERR_INVALID_ARGUMENT,
               {"comm"});
  host::Options wrong;
  wrong.set("comm", 3);
  expect_error(frugal_schedule_create(rig.context.get(), "rank_sum", wrong.get(), &missing),
               FRUGAL_ERR_INVALID_ARGUMENT, {"option 'comm'", "expected comm"});
}
