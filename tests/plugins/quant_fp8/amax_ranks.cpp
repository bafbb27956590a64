// quant_fp8's amax_comm across processes, run under mpirun (CMakeLists.txt):
//   amax_ranks agree    every rank quantizes its own data for 20 steps with
//                       each recipe of amax_agreement.hpp, its amax agreed
//                       over a comm_mpi group; after every step
//                         - the state blob's hash is the same on every rank
//                           (MPI_Allgather), and so is the scale;
//                         - both equal those of a reference quantizer (no
//                           comm) in this process fed every rank's tensor
//                           stacked, and this rank's codes are that
//                           reference's codes of this rank's rows;
//                         - a control quantizer without the comm, fed this
//                           rank's tensor, disagrees across ranks at some
//                           step (so the checks above can fail);
//   amax_ranks timeout  rank 0 makes one recording call the others do not
//                       make: it gets the comm's DEADLINE_EXCEEDED and its
//                       state is unchanged. The comm is then broken, so no
//                       rank calls MPI_Finalize; each prints its verdict
//                       and the test counts the "passed" lines.
// Every rank computes every rank's data from the seed (argv[2]).
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "amax_agreement.hpp"

namespace host = frugal::host;
namespace amax = frugal::test::amax;

namespace {

constexpr int kSteps = 20;

int g_rank = 0;
int g_failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", g_rank, what.c_str());
    ++g_failures;
  }
}

std::string builtin_path(const std::string& name) {
  return std::string(FRUGAL_BUILTIN_PLUGIN_DIR) + "/" + name + ".so";
}

// Whether `mine` is the same on every rank.
bool same_on_all(uint64_t mine, int size) {
  std::vector<uint64_t> all(static_cast<size_t>(size));
  MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (const uint64_t v : all)
    if (v != all[0]) return false;
  return true;
}

uint64_t bits_of(float f) {
  uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

struct Group {
  host::ContextPtr context = host::make_context();
  host::CommPtr comm;
  explicit Group(int64_t timeout_ms) {
    host::check(frugal_context_load_plugin(context.get(), builtin_path("quant_fp8").c_str()));
    host::check(frugal_context_load_plugin(context.get(), builtin_path("comm_mpi").c_str()));
    comm = host::make_comm(context.get(), "mpi", nullptr);
    host::check(frugal_comm_set_timeout(comm.get(), timeout_ms));
  }
};

void agree(uint32_t seed, int rank, int size) {
  Group g(60000);
  expect(frugal_comm_size(g.comm.get()) == size && frugal_comm_rank(g.comm.get()) == rank,
         "the comm is MPI_COMM_WORLD's rank and size");
  for (const amax::Recipe& recipe : amax::recipes()) {
    const std::string name = recipe.name;
    auto agreed = amax::make_quantizer(g.context.get(), recipe, g.comm.get());
    auto reference = amax::make_quantizer(g.context.get(), recipe, nullptr);
    auto control = amax::make_quantizer(g.context.get(), recipe, nullptr);
    int control_disagreed = 0;
    for (int step = 0; step < kSteps; ++step) {
      const std::string at = name + ", step " + std::to_string(step) + ": ";
      const std::vector<float> x = amax::rank_data(seed, rank, size, step);
      amax::Quantized mine, ref, own;
      host::check(amax::quantize(agreed.get(), x, amax::kRows, 0, mine));
      host::check(amax::quantize(reference.get(), amax::stacked_data(seed, size, step), amax::kRows * size, 0, ref));
      host::check(amax::quantize(control.get(), x, amax::kRows, 0, own));
      const std::vector<uint8_t> state = amax::state_of(agreed.get());
      expect(recipe.stateful == !state.empty(), at + "a state blob exactly for the delayed recipe");
      expect(same_on_all(amax::hash_of(state), size), at + "the state differs across ranks");
      expect(same_on_all(bits_of(mine.scale), size), at + "the scale differs across ranks");
      expect(state == amax::state_of(reference.get()), at + "the state differs from the stacked reference's");
      expect(amax::same_float(mine.scale, ref.scale) && amax::same_float(mine.scale_inv, ref.scale_inv),
             at + "scale " + std::to_string(mine.scale) + ", the stacked reference's " + std::to_string(ref.scale));
      expect(mine.codes == amax::rows_of(ref, rank * amax::kRows, amax::kRows),
             at + "the codes differ from the stacked reference's rows of this rank");
      expect(amax::same_float(mine.amax, amax::amax_of(x)), at + "the amax written is not this rank's");
      const uint64_t control_key = recipe.stateful ? amax::hash_of(amax::state_of(control.get())) : bits_of(own.scale);
      control_disagreed += same_on_all(control_key, size) ? 0 : 1;
    }
    expect(size == 1 || control_disagreed > 0,
           name + ": without amax_comm the ranks never disagreed: the data cannot tell agreement from chance");
  }
}

void timeout(uint32_t seed, int rank, int size) {
  auto* g = new Group(400);  // never destroyed: rank 0's comm ends broken
  auto q = amax::make_quantizer(g->context.get(), amax::recipes()[0], g->comm.get());
  amax::Quantized out;
  for (int step = 0; step < 2; ++step)
    host::check(amax::quantize(q.get(), amax::rank_data(seed, rank, size, step), amax::kRows, 0, out));
  const std::vector<uint8_t> before = amax::state_of(q.get());
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    const auto started = std::chrono::steady_clock::now();
    frugal_error* error = amax::quantize(q.get(), amax::rank_data(seed, 0, size, 2), amax::kRows, 0, out);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const int32_t code = frugal_error_code(error);
    const std::string message = error != nullptr ? frugal_error_message(error) : "";
    frugal_error_destroy(error);
    expect(code == FRUGAL_ERR_DEADLINE_EXCEEDED,
           "a call the other ranks do not make times out, code " + std::to_string(code) + ": " + message);
    expect(message.find("comm 'mpi'") != std::string::npos &&
               message.find("all_reduce on rank 0 of " + std::to_string(size)) != std::string::npos,
           "the error names the group and the rank: " + message);
    expect(seconds < 10.0, "the error came within the deadline, not after " + std::to_string(seconds) + " s");
    expect(amax::state_of(q.get()) == before, "the state is unchanged after the failed all_reduce");
  }
  std::printf("rank %d: timeout %s\n", rank, g_failures == 0 ? "passed" : "FAILED");
  std::fflush(stdout);
  // MPI_COMM_WORLD still works (comm_mpi runs on its own duplicate).
  MPI_Barrier(MPI_COMM_WORLD);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let mpirun forward the lines
  std::_Exit(g_failures == 0 ? 0 : 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: amax_ranks agree|timeout SEED\n");
    return 2;
  }
  const std::string mode = argv[1];
  const auto seed = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    if (mode == "agree")
      agree(seed, g_rank, size);
    else if (mode == "timeout")
      timeout(seed, g_rank, size);
    else
      expect(false, "unknown mode " + mode);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", g_rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  if (g_failures == 0) std::printf("rank %d: %s passed\n", g_rank, mode.c_str());
  return g_failures == 0 ? 0 : 1;
}
