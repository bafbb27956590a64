// Making, wrapping, splitting and leaving an `nccl` communicator.
#include "algorithms/nccl_comm.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "algorithms/nccl_comm_guard.hpp"

namespace frugal::comm_nccl {
namespace {

static_assert(sizeof(ncclUniqueId) == kUniqueIdBytes, "unique_id.hpp's size must be NCCL_UNIQUE_ID_BYTES");
static_assert(NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0),
              "comm_nccl needs NCCL 2.18 or newer (non-blocking init, ncclCommSplit with a config)");

// How long destroy waits for ncclCommFinalize at most: it is local (every
// collective has completed before its call returned), so this only bounds
// a stall inside NCCL; past it the communicator is aborted.
constexpr int64_t kFinalizeWaitMs = 10000;

ncclConfig_t non_blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

// One call on the bootstrap comm through the host table (comm_run).
void bootstrap_run(const sdk::Options& given, frugal_comm* comm, int32_t op, int32_t dtype, const void* send,
                   void* recv, size_t count, int64_t timeout_ms) {
  frugal_comm_call call{};
  call.struct_size = sizeof(call);
  call.op = op;
  call.dtype = dtype;
  call.reduce_op = op == FRUGAL_COMM_ALL_REDUCE ? FRUGAL_REDUCE_MAX : 0;
  call.send = send;
  call.recv = recv;
  call.count = count;
  call.timeout_ms = timeout_ms;
  const frugal_host_api* host = given.host();
  sdk::check(host, host->comm_run(comm, &call));
}

// The rest of a deadline, at least 1 ms (a comm_run timeout must be > 0).
int64_t remaining_ms(const CallScope& s) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(s.deadline - std::chrono::steady_clock::now()).count();
  return std::max<int64_t>(1, left);
}

}  // namespace

int pick_device(std::optional<int32_t> wanted, const CallScope& s) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count < 1) {
    const std::string said = status != cudaSuccess ? plugin_cuda::cuda_error_text(status, "cudaGetDeviceCount")
                                                   : std::string("cudaGetDeviceCount: 0 devices");
    throw sdk::PluginError(FRUGAL_ERR_FAILED_PRECONDITION,
                           where(s) + ": no CUDA device is present (" + said +
                               "); the nccl comm moves CUDA device memory (use 'mpi' or 'local' for host memory)");
  }
  if (wanted) {
    if (*wanted >= count)
      throw sdk::PluginError(FRUGAL_ERR_OUT_OF_RANGE, where(s) + ": option 'device' is " + std::to_string(*wanted) +
                                                          " but this process sees " + std::to_string(count) +
                                                          " CUDA device(s), 0 to " + std::to_string(count - 1) +
                                                          " (CUDA_VISIBLE_DEVICES narrows them)");
    return *wanted;
  }
  int current = 0;
  plugin_cuda::check(cudaGetDevice(&current), "cudaGetDevice");
  return current;
}

// ---------------------------------------------------------------------------
// DeviceResources
// ---------------------------------------------------------------------------

DeviceResources::DeviceResources(int device) : device_(device) {
  const plugin_cuda::DeviceGuard on(device);
  try {
    plugin_cuda::check(cudaStreamCreateWithFlags(&stream_, cudaStreamDefault), "cudaStreamCreateWithFlags");
    plugin_cuda::check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    scratch_ = std::make_unique<plugin_cuda::StreamScratch>(sizeof(int32_t), stream_);
    word_ = static_cast<int32_t*>(scratch_->get());
    plugin_cuda::check(cudaMemsetAsync(word_, 0, sizeof(int32_t), stream_), "cudaMemsetAsync");
    plugin_cuda::check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  } catch (...) {
    release();
    throw;
  }
}

DeviceResources::~DeviceResources() {
  try {
    const plugin_cuda::DeviceGuard on(device_);
    release();
  } catch (...) {
    release();
  }
}

void DeviceResources::release() noexcept {
  // Stream-ordered: none of this waits, even behind a collective a broken
  // communicator left stuck on the stream.
  scratch_.reset();
  word_ = nullptr;
  if (done_ != nullptr) static_cast<void>(cudaEventDestroy(done_));
  if (stream_ != nullptr) static_cast<void>(cudaStreamDestroy(stream_));
  done_ = nullptr;
  stream_ = nullptr;
}

// ---------------------------------------------------------------------------
// Joining
// ---------------------------------------------------------------------------

NcclComm::NcclComm(const sdk::Options& given) {
  const NcclOptions o = read_options(given);  // every refusal of the options comes before any CUDA call
  last_timeout_ms_ = o.join_timeout_ms;
  const bool wrapping = o.how == Bootstrap::wrap;
  const CallScope s = scope("create", wrapping ? 0 : o.rank, wrapping ? 0 : o.size, o.join_timeout_ms);
  translate_device_errors(s, [&] {
    switch (o.how) {
      case Bootstrap::unique_id:
        device_ = pick_device(o.device, s);
        resources_ = std::make_unique<DeviceResources>(device_);
        init(o.unique_id, o.rank, o.size, s);
        return;
      case Bootstrap::comm: {
        const UniqueIdBytes id = exchange_id(given, o, s);
        resources_ = std::make_unique<DeviceResources>(device_);
        init(id, o.rank, o.size, s);
        return;
      }
      case Bootstrap::wrap: wrap(o, s); return;
    }
  });
}

UniqueIdBytes NcclComm::exchange_id(const sdk::Options& given, const NcclOptions& o, const CallScope& s) {
  UniqueIdBytes id{};
  std::exception_ptr failure;
  auto try_local = [&](auto&& body) {
    try {
      translate_device_errors(s, body);
    } catch (...) {
      failure = std::current_exception();
    }
  };
  if (o.rank == 0) {
    try_local([&] {
      device_ = pick_device(o.device, s);
      const plugin_cuda::DeviceGuard on(device_);
      ncclUniqueId made{};
      check_nccl(ncclGetUniqueId(&made), s, "ncclGetUniqueId", Phase::join);
      std::memcpy(id.data(), &made, id.size());
    });
    if (failure) id.fill(0);  // is_null_id: the others learn of it below
  }
  bootstrap_run(given, o.bootstrap, FRUGAL_COMM_BROADCAST, FRUGAL_DTYPE_UINT8, nullptr, id.data(), id.size(),
                remaining_ms(s));
  if (o.rank != 0) try_local([&] { device_ = pick_device(o.device, s); });
  // Every rank learns whether one could not join (the highest such rank is named).
  const int32_t mine = failure ? o.rank + 1 : 0;
  int32_t worst = 0;
  bootstrap_run(given, o.bootstrap, FRUGAL_COMM_ALL_REDUCE, FRUGAL_DTYPE_INT32, &mine, &worst, 1, remaining_ms(s));
  if (failure) std::rethrow_exception(failure);
  if (worst > 0 || is_null_id(id))
    throw sdk::PluginError(FRUGAL_ERR_FAILED_PRECONDITION,
                           where(s) + ": rank " + std::to_string(std::max(worst - 1, 0)) +
                               " of the 'bootstrap' comm cannot join (its own error says why); no NCCL "
                               "communicator was made");
  return id;
}

void NcclComm::init(const UniqueIdBytes& id, int rank, int size, const CallScope& s) {
  const plugin_cuda::DeviceGuard on(device_);
  ncclUniqueId unique{};
  std::memcpy(&unique, id.data(), id.size());
  ncclConfig_t config = non_blocking_config();
  ncclComm_t comm = nullptr;
  const ncclResult_t started = ncclCommInitRankConfig(&comm, size, unique, rank, &config);
  try {
    check_nccl(started, s, "ncclCommInitRankConfig", Phase::join);
    if (comm == nullptr)
      throw sdk::PluginError(FRUGAL_ERR_INTERNAL, where(s) + ": ncclCommInitRankConfig gave no communicator");
    wait_ready(comm, s, "ncclCommInitRankConfig", Phase::join);
  } catch (const sdk::PluginError& e) {
    if (comm == nullptr) throw;
    static_cast<void>(ncclCommAbort(comm));
    throw sdk::PluginError(e.code(), std::string(e.what()) + "; the half-made NCCL communicator is aborted");
  }
  comm_ = comm;
  rank_ = rank;
  size_ = size;
}

void NcclComm::wrap(const NcclOptions& o, const CallScope& s) {
  pick_device(std::nullopt, s);  // no device: refuse before touching the pointer
  // The option carries the host's pointer as an integer: the cast is the point.
  auto* comm = reinterpret_cast<ncclComm_t>(o.nccl_comm);  // NOLINT(performance-no-int-to-ptr)
  try {
    wait_ready(comm, s, "the communicator given as 'nccl_comm' (still initialising)", Phase::join);
  } catch (const sdk::PluginError& e) {
    if (e.code() == FRUGAL_ERR_DEADLINE_EXCEEDED) throw;
    throw sdk::PluginError(FRUGAL_ERR_FAILED_PRECONDITION,
                           std::string(e.what()) + "; the communicator given as 'nccl_comm' has failed");
  }
  int size = 0;
  int rank = 0;
  int device = 0;
  check_nccl(ncclCommCount(comm, &size), s, "ncclCommCount", Phase::join);
  check_nccl(ncclCommUserRank(comm, &rank), s, "ncclCommUserRank", Phase::join);
  check_nccl(ncclCommCuDevice(comm, &device), s, "ncclCommCuDevice", Phase::join);
  if (o.device && *o.device != device)
    throw sdk::PluginError(FRUGAL_ERR_INVALID_ARGUMENT, where(s) + ": option 'device' is " + std::to_string(*o.device) +
                                                            " but the communicator given as 'nccl_comm' is on device " +
                                                            std::to_string(device));
  device_ = device;
  resources_ = std::make_unique<DeviceResources>(device_);
  comm_ = comm;
  owned_ = false;
  rank_ = rank;
  size_ = size;
}

NcclComm::NcclComm(Adopt, ncclComm_t comm, int device, int64_t timeout_ms, const CallScope& s)
    : device_(device), last_timeout_ms_(timeout_ms) {
  try {
    translate_device_errors(s, [&] {
      check_nccl(ncclCommCount(comm, &size_), s, "ncclCommCount", Phase::join);
      check_nccl(ncclCommUserRank(comm, &rank_), s, "ncclCommUserRank", Phase::join);
      resources_ = std::make_unique<DeviceResources>(device_);
    });
  } catch (...) {
    static_cast<void>(ncclCommAbort(comm));
    throw;
  }
  comm_ = comm;
}

// ---------------------------------------------------------------------------
// Leaving, describing, splitting
// ---------------------------------------------------------------------------

NcclComm::~NcclComm() {
  if (comm_ == nullptr || !owned_) return;  // aborted already, or the host's
  try {
    const plugin_cuda::DeviceGuard on(device_);
    // Every call waited for its collective, so nothing is in flight: a
    // finalize is local. Bounded all the same; past it, or on any error, abort.
    const CallScope s = scope("destroy", rank_, size_, std::min(last_timeout_ms_, kFinalizeWaitMs));
    const ncclResult_t started = ncclCommFinalize(comm_);
    check_nccl(started, s, "ncclCommFinalize", Phase::collective);
    wait_ready(comm_, s, "ncclCommFinalize", Phase::collective);
    if (ncclCommDestroy(comm_) != ncclSuccess) static_cast<void>(ncclCommAbort(comm_));
  } catch (...) {
    static_cast<void>(ncclCommAbort(comm_));
  }
  comm_ = nullptr;
}

frugal_comm_info NcclComm::info() const {
  frugal_comm_info out{};
  out.struct_size = sizeof(out);
  out.rank = rank_;
  out.size = size_;
  out.device_type = FRUGAL_DEVICE_CUDA;
  out.device_id = device_;
  return out;
}

std::unique_ptr<NcclComm> NcclComm::split(int32_t color, int32_t key, int64_t timeout_ms) {
  const CallScope s = scope("split", rank_, size_, timeout_ms);
  if (!broken_.empty())
    throw sdk::PluginError(FRUGAL_ERR_FAILED_PRECONDITION,
                           where(s) + ": the comm is broken by an earlier failure (" + broken_ + ")");
  last_timeout_ms_ = timeout_ms;
  std::unique_ptr<NcclComm> out;
  guarded(s, [&] {
    const plugin_cuda::DeviceGuard on(device_);
    ncclConfig_t config = non_blocking_config();
    // A non-blocking split writes the new communicator here from NCCL's
    // own thread when it completes: an abandoned split leaves the slot to
    // NCCL (leaked), never to be freed under it.
    auto slot = std::make_unique<ncclComm_t>(nullptr);
    const int nccl_color = color == FRUGAL_COMM_COLOR_NONE ? NCCL_SPLIT_NOCOLOR : color;
    const ncclResult_t started = ncclCommSplit(comm_, nccl_color, key, slot.get(), &config);
    try {
      check_nccl(started, s, "ncclCommSplit", Phase::join);
      wait_ready(comm_, s, "ncclCommSplit", Phase::join);
    } catch (...) {
      static_cast<void>(slot.release());
      throw;
    }
    ncclComm_t child = *slot;
    if (child == nullptr) {
      if (color != FRUGAL_COMM_COLOR_NONE)
        throw sdk::PluginError(FRUGAL_ERR_INTERNAL, where(s) + ": ncclCommSplit with color " + std::to_string(color) +
                                                        " gave no communicator");
      return;
    }
    try {
      wait_ready(child, s, "ncclCommSplit (the new communicator's init)", Phase::join);
    } catch (...) {
      static_cast<void>(ncclCommAbort(child));
      throw;
    }
    out.reset(new NcclComm(Adopt{}, child, device_, timeout_ms, s));
  });
  return out;
}

}  // namespace frugal::comm_nccl
