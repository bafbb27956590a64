#include "comm/communicator.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "error.hpp"
#include "frugal/sdk/comm_ops.hpp"
#include "frugal/tensor.h"

namespace frugal {

class Communicator::CallLock {
 public:
  CallLock(Communicator& comm, const char* op) : comm_(comm) {
    if (comm.owner_.load() == std::this_thread::get_id())
      fail(FRUGAL_ERR_FAILED_PRECONDITION, "{}: {} called from inside another call on the same comm", comm.label(), op);
    comm.mutex_.lock();
    comm.owner_.store(std::this_thread::get_id());
  }
  ~CallLock() {
    comm_.owner_.store(std::thread::id{});
    comm_.mutex_.unlock();
  }
  CallLock(const CallLock&) = delete;
  CallLock& operator=(const CallLock&) = delete;

 private:
  Communicator& comm_;
};

namespace {

// Failures after which the ranks no longer agree on what has run: a
// backend reports them for dead or stalled peers and broken transports.
bool breaks_group(int32_t code) {
  return code == FRUGAL_ERR_DEADLINE_EXCEEDED || code == FRUGAL_ERR_IO || code == FRUGAL_ERR_CANCELLED ||
         code == FRUGAL_ERR_DEVICE || code == FRUGAL_ERR_INTERNAL;
}

}  // namespace

Communicator::Communicator(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record,
                           const frugal_options* options, std::string label)
    : plugin_(plugin), record_(&record), instance_(std::move(plugin), record, std::move(label)) {
  instance_.create(options);
  describe();
}

Communicator::Communicator(Adopt, const Communicator& parent, void* instance)
    : plugin_(parent.plugin_),
      record_(parent.record_),
      instance_(parent.plugin_, *parent.record_, parent.label()),
      timeout_ms_(parent.timeout_ms_),
      stream_(parent.stream_) {
  instance_.adopt(instance);
  describe();
}

void Communicator::describe() {
  frugal_comm_info info{};
  info.struct_size = sizeof(info);
  instance_.call(&frugal_comm_vtable::info, &info);
  const bool device_known = info.device_type == FRUGAL_DEVICE_CPU || info.device_type == FRUGAL_DEVICE_CUDA;
  if (info.size < 1 || info.rank < 0 || info.rank >= info.size || !device_known)
    fail(FRUGAL_ERR_INTERNAL,
         "{}: info reported rank {} of {} on device type {}; expected 0 <= rank < size, CPU or CUDA", label(),
         info.rank, info.size, info.device_type);
  info.struct_size = sizeof(info);
  info_ = info;
}

std::shared_ptr<Communicator> Communicator::split(int32_t color, int32_t key) {
  if (color < 0 && color != FRUGAL_COMM_COLOR_NONE)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: split: color {} is negative (use FRUGAL_COMM_COLOR_NONE, -1, to join none)",
         label(), color);
  CallLock lock(*this, "split");
  if (!broken_.empty())
    fail(FRUGAL_ERR_FAILED_PRECONDITION, "{}: split: the comm is broken by an earlier failure ({}); destroy it",
         label(), broken_);
  void* sub = nullptr;
  try {
    instance_.call(&frugal_comm_vtable::split, color, key, timeout_ms_, &sub);
  } catch (const Error& e) {
    if (breaks_group(e.code())) broken_ = e.what();
    throw;
  }
  if (sub == nullptr) {
    if (color != FRUGAL_COMM_COLOR_NONE)
      fail(FRUGAL_ERR_INTERNAL, "{}: split with color {} returned no sub-group", label(), color);
    return nullptr;
  }
  return std::shared_ptr<Communicator>(new Communicator(Adopt{}, *this, sub));
}

void Communicator::run(frugal_comm_call call, const comm::Extents& extents) {
  CallLock lock(*this, sdk::comm_op_name(call.op));
  if (!broken_.empty())
    fail(FRUGAL_ERR_FAILED_PRECONDITION, "{}: {}: the comm is broken by an earlier failure ({}); destroy it", label(),
         sdk::comm_op_name(call.op), broken_);
  std::vector<size_t> displs;
  try {
    comm::check_call(call, info_, extents, displs);
  } catch (const Error& e) {
    fail(e.code(), "{} (rank {} of {}): {}", label(), info_.rank, info_.size, e.what());
  }
  call.struct_size = sizeof(call);
  if (call.timeout_ms == 0) call.timeout_ms = timeout_ms_;
  if (call.stream == nullptr) call.stream = stream_;
  try {
    instance_.call(&frugal_comm_vtable::run, &call);
  } catch (const Error& e) {
    if (breaks_group(e.code())) broken_ = e.what();
    throw;
  }
}

void Communicator::set_timeout(int64_t timeout_ms) {
  if (timeout_ms <= 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: timeout_ms is {}; expected > 0 milliseconds", label(), timeout_ms);
  CallLock lock(*this, "set_timeout");
  timeout_ms_ = timeout_ms;
}

int64_t Communicator::timeout_ms() {
  CallLock lock(*this, "timeout_ms");
  return timeout_ms_;
}

void Communicator::set_stream(void* stream) {
  CallLock lock(*this, "set_stream");
  stream_ = stream;
}

}  // namespace frugal
