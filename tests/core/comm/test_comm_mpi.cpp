// The `mpi` comm across ranks: run under mpirun -np N (N = 1..4, see
// CMakeLists.txt). Every rank runs the same test cases in the same order,
// so each case's collectives meet; every expected value is computed on
// the rank itself (comm_cases.cpp), never taken from a backend.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "comm_cases.hpp"
#include "frugal/sdk/host.hpp"
#include "test_helpers.hpp"

namespace host = frugal::host;
using frugal::test::builtin_path;
using frugal::test::outcome;
using frugal::test::plugin_path;

namespace {

// A test's deadline: generous for 4 ranks on 2 oversubscribed cores under
// a sanitizer, far below ctest's.
constexpr int64_t kTimeoutMs = 60000;

struct MpiRig {
  host::ContextPtr context = host::make_context();
  host::CommPtr comm;
  explicit MpiRig(const frugal_options* options = nullptr) {
    host::check(frugal_context_load_plugin(context.get(), builtin_path("comm_mpi").c_str()));
    comm = host::make_comm(context.get(), "mpi", options);
    host::check(frugal_comm_set_timeout(comm.get(), kTimeoutMs));
  }
  [[nodiscard]] int rank() const { return frugal_comm_rank(comm.get()); }
  [[nodiscard]] int size() const { return frugal_comm_size(comm.get()); }
};

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace

TEST_CASE("the mpi comm is this process's place in MPI_COMM_WORLD") {
  MpiRig rig;  // initialises MPI (the test never calls MPI_Init itself)
  int world_rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  CHECK(rig.rank() == world_rank);
  CHECK(rig.size() == world_size());
  CHECK(frugal_comm_device_type(rig.comm.get()) == FRUGAL_DEVICE_CPU);
}

TEST_CASE("every collective and dtype across the ranks matches the reference") {
  MpiRig rig;
  frugal::test::check_every_collective(rig.comm.get(), 7);
  frugal::test::check_every_collective(rig.comm.get(), 40000);  // past the eager limits of shared memory and TCP
}

TEST_CASE("all-reduce as a ring: every dtype and reduction, from fewer elements than ranks up") {
  // ring_min_bytes 0 sends every all-reduce through the ring
  // (ring_all_reduce.cpp), whose chunks are uneven or empty when the count
  // does not divide by the ranks; the reference is computed on each rank.
  // Small segments make each chunk many segments long, the last one
  // short; a segment smaller than an element still carries one.
  for (const int64_t segment_bytes : {int64_t{1}, int64_t{4096}, int64_t{1} << 20}) {
    host::Options options;
    options.set("ring_min_bytes", int64_t{0});
    options.set("ring_segment_bytes", segment_bytes);
    MpiRig rig(options.get());
    for (const size_t count : {size_t{1}, size_t{2}, size_t{7}, segment_bytes == 1 ? size_t{300} : size_t{40000}}) {
      INFO("segments of " << segment_bytes << " bytes, count " << count);
      frugal::test::check_every_collective(rig.comm.get(), count);
    }
  }
}

TEST_CASE("the ring's options are checked before MPI is touched") {
  MpiRig rig;  // loads the plugin
  struct Case {
    const char* name;
    int64_t value;
  };
  for (const Case& bad : {Case{"ring_segment_bytes", 0}, Case{"ring_segment_bytes", (int64_t{1} << 30) + 1},
                          Case{"ring_min_bytes", -1}}) {
    INFO(bad.name << " = " << bad.value);
    host::Options options;
    options.set(bad.name, bad.value);
    frugal_comm* comm = nullptr;
    const auto refused = outcome(frugal_comm_create(rig.context.get(), "mpi", options.get(), &comm));
    CHECK(refused.code == FRUGAL_ERR_OUT_OF_RANGE);
    CHECK_THAT(refused.message, Catch::Contains(std::string("option '") + bad.name + "'"));
    CHECK(comm == nullptr);
  }
}

TEST_CASE("uneven all_to_all_v and all_gather_v, zero counts included") {
  MpiRig rig;
  frugal::test::check_uneven_collectives(rig.comm.get());
}

TEST_CASE("split makes sub-groups ordered by key, and NONE joins none") {
  MpiRig rig;
  const int rank = rig.rank();
  const int size = rig.size();
  frugal_comm* sub = nullptr;
  host::check(frugal_comm_split(rig.comm.get(), rank % 2, -rank, &sub));  // higher world rank first
  REQUIRE(sub != nullptr);
  host::CommPtr parity(sub);
  int same = 0;
  int above = 0;
  for (int r = 0; r < size; ++r)
    if (r % 2 == rank % 2) {
      ++same;
      above += r > rank;
    }
  CHECK(frugal_comm_size(sub) == same);
  CHECK(frugal_comm_rank(sub) == above);
  frugal::test::check_every_collective(sub, 5);
  frugal::test::check_uneven_collectives(sub);

  frugal_comm* rest = nullptr;
  host::check(frugal_comm_split(rig.comm.get(), rank == size - 1 ? FRUGAL_COMM_COLOR_NONE : 4, rank, &rest));
  host::CommPtr rest_owned(rest);
  if (rank == size - 1) {
    CHECK(rest == nullptr);
  } else {
    REQUIRE(rest != nullptr);
    CHECK(frugal_comm_size(rest) == size - 1);
    CHECK(frugal_comm_rank(rest) == rank);
    frugal::test::check_every_collective(rest, 3);
  }
  host::check(frugal_comm_barrier(rig.comm.get()));  // the parent is unchanged by its splits
}

TEST_CASE("check_calls: a call that differs on one rank fails on every rank, and the comm stays usable") {
  host::Options options;
  options.set("check_calls", true);
  MpiRig rig(options.get());
  const int rank = rig.rank();
  const int size = rig.size();
  if (size == 1) {
    SUCCEED("one rank cannot disagree with itself");
    return;
  }
  std::vector<float> values(5, 1.0f);
  int64_t extent = rank == 0 ? 4 : 5;
  frugal_tensor view{};
  view.struct_size = sizeof(view);
  view.data = values.data();
  view.dtype = FRUGAL_DTYPE_FLOAT32;
  view.ndim = 1;
  view.device = {FRUGAL_DEVICE_CPU, 0};
  view.shape = &extent;
  const auto refused = outcome(frugal_comm_all_reduce(rig.comm.get(), &view, &view, FRUGAL_REDUCE_SUM));
  INFO(refused.message);
  CHECK(refused.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(refused.message, Catch::Contains("every rank must make the same call"));
  CHECK_THAT(refused.message, Catch::Contains(rank == 0 ? "rank 1 called all_reduce (float32, 5 elements, sum)"
                                                        : "rank 0 called all_reduce (float32, 4 elements, sum)"));
  CHECK(values[0] == 1.0f);  // nothing was sent

  // all_to_all_v: rank 0 sends rank 1 one element; rank 1 expects two.
  std::vector<size_t> send_counts(static_cast<size_t>(size), 0);
  std::vector<size_t> recv_counts(static_cast<size_t>(size), 0);
  if (rank == 0) send_counts[1] = 1;
  if (rank == 1) recv_counts[0] = 2;
  const auto mismatch = outcome(
      frugal_comm_all_to_all_v(rig.comm.get(), &view, send_counts.data(), nullptr, &view, recv_counts.data(), nullptr));
  INFO(mismatch.message);
  CHECK(mismatch.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(mismatch.message, Catch::Contains("rank 0 sends rank 1 another number of elements"));

  extent = 5;
  host::check(frugal_comm_all_reduce(rig.comm.get(), &view, &view, FRUGAL_REDUCE_SUM));
  CHECK(values[4] == static_cast<float>(size));
}

TEST_CASE("check_calls accepts the v ops' counts that differ by rank by design") {
  host::Options options;
  options.set("check_calls", true);
  MpiRig rig(options.get());
  frugal::test::check_uneven_collectives(rig.comm.get());
}

TEST_CASE("a plugin's collectives through the host table reach every rank") {
  MpiRig rig;
  host::check(frugal_context_load_plugin(rig.context.get(), plugin_path("comm_user").c_str()));
  host::Options options;
  options.set("comm", rig.comm.get());
  auto schedule = host::make_schedule(rig.context.get(), "rank_sum", options.get());
  const int n = rig.size();
  for (const int64_t step : {0, 9}) {
    double lr = -1.0;
    host::check(frugal_schedule_lr(schedule.get(), step, &lr));
    CHECK(lr == static_cast<double>(n * step + n * (n - 1) / 2));
  }
}

TEST_CASE("the host's own communicator, handed over by its Fortran handle") {
  MpiRig rig;  // MPI is up
  const int rank = rig.rank();
  MPI_Comm halves = MPI_COMM_NULL;
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, rank < rig.size() / 2 ? 0 : 1, rank, &halves) == MPI_SUCCESS);
  int half_size = 0;
  int half_rank = 0;
  MPI_Comm_size(halves, &half_size);
  MPI_Comm_rank(halves, &half_rank);
  host::Options options;
  options.set("fortran_handle", static_cast<int64_t>(MPI_Comm_c2f(halves)));
  auto wrapped = host::make_comm(rig.context.get(), "mpi", options.get());
  CHECK(frugal_comm_size(wrapped.get()) == half_size);
  CHECK(frugal_comm_rank(wrapped.get()) == half_rank);
  frugal::test::check_every_collective(wrapped.get(), 3);
  wrapped.reset();
  MPI_Comm_free(&halves);  // the host's communicator is still the host's
}

TEST_CASE("at one rank, comm_local and comm_mpi give the same bytes") {
  MpiRig rig;
  if (rig.size() != 1) {
    SUCCEED("compared at -np 1 only");
    return;
  }
  host::check(frugal_context_load_plugin(rig.context.get(), builtin_path("comm_local").c_str()));
  auto local = host::make_comm(rig.context.get(), "local", nullptr);
  frugal::test::check_same_results(local.get(), rig.comm.get());
}
