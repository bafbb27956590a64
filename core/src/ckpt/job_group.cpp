#include "ckpt/job_group.hpp"

#include <algorithm>

#include "comm/communicator.hpp"
#include "error.hpp"

namespace frugal::ckpt {
namespace {

// A 1-D host view of `count` elements of `dtype` at `data`; `extent`
// must outlive the view.
frugal_tensor host_view(const void* data, int32_t dtype, int64_t& extent, size_t count) {
  extent = static_cast<int64_t>(count);
  frugal_tensor view{};
  view.struct_size = sizeof(view);
  view.data = const_cast<void*>(data);  // NOLINT(cppcoreguidelines-pro-type-const-cast): send buffers are only read
  view.dtype = dtype;
  view.ndim = 1;
  view.shape = &extent;
  view.device = {FRUGAL_DEVICE_CPU, 0};
  return view;
}

void check(frugal_error* error, const char* what) {
  rethrow_if_error(error, std::string("checkpoint job group, ") + what + ": ");
}

frugal_comm* split_of(frugal_comm* host) {
  frugal_comm* out = nullptr;
  check(frugal_comm_split(host, 0, frugal_comm_rank(host), &out), "splitting the engine's group");
  return out;
}

}  // namespace

GroupComm::~GroupComm() { frugal_comm_destroy(comm_); }

GroupComm::Deadline::Deadline(GroupComm& group, std::optional<std::chrono::steady_clock::time_point> deadline)
    : group_(group) {
  if (!deadline) return;
  auto& comm = *group.comm_->impl;
  const int64_t previous = comm.timeout_ms();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
  comm.set_timeout(std::clamp<int64_t>(left.count(), 1, previous));
  previous_ms_ = previous;
}

GroupComm::Deadline::~Deadline() {
  if (!previous_ms_) return;
  try {
    group_.comm_->impl->set_timeout(*previous_ms_);
  } catch (...) {
    // A broken comm's timeout no longer matters: no call will run on it.
  }
}

int32_t GroupComm::rank() const { return frugal_comm_rank(comm_); }

int32_t GroupComm::size() const { return frugal_comm_size(comm_); }

bool GroupComm::any(bool mine) {
  int64_t extent_in = 0;
  int64_t extent_out = 0;
  const int32_t flag = mine ? 1 : 0;
  int32_t result = 0;
  const auto send = host_view(&flag, FRUGAL_DTYPE_INT32, extent_in, 1);
  const auto recv = host_view(&result, FRUGAL_DTYPE_INT32, extent_out, 1);
  check(frugal_comm_all_reduce(comm_, &send, &recv, FRUGAL_REDUCE_MAX), "all_reduce");
  return result != 0;
}

std::vector<int64_t> GroupComm::all_gather(std::span<const int64_t> mine) {
  std::vector<int64_t> out(mine.size() * static_cast<size_t>(size()));
  int64_t extent_in = 0;
  int64_t extent_out = 0;
  const auto send = host_view(mine.data(), FRUGAL_DTYPE_INT64, extent_in, mine.size());
  const auto recv = host_view(out.data(), FRUGAL_DTYPE_INT64, extent_out, out.size());
  check(frugal_comm_all_gather(comm_, &send, &recv), "all_gather");
  return out;
}

std::vector<std::vector<uint8_t>> GroupComm::all_gather_bytes(const std::vector<uint8_t>& mine) {
  const int64_t length = static_cast<int64_t>(mine.size());
  const auto lengths = all_gather(std::span(&length, 1));
  std::vector<size_t> counts(lengths.size());
  std::vector<size_t> displs(lengths.size());
  size_t total = 0;
  for (size_t r = 0; r < lengths.size(); ++r) {
    counts[r] = static_cast<size_t>(lengths[r]);
    displs[r] = total;
    total += counts[r];
  }
  std::vector<uint8_t> all(std::max<size_t>(total, 1));
  int64_t extent_in = 0;
  int64_t extent_out = 0;
  const auto send = host_view(mine.data(), FRUGAL_DTYPE_UINT8, extent_in, mine.size());
  const auto recv = host_view(all.data(), FRUGAL_DTYPE_UINT8, extent_out, total);
  check(frugal_comm_all_gather_v(comm_, &send, &recv, counts.data(), displs.data()), "all_gather_v");
  std::vector<std::vector<uint8_t>> out;
  out.reserve(lengths.size());
  for (size_t r = 0; r < lengths.size(); ++r)
    out.emplace_back(all.begin() + static_cast<ptrdiff_t>(displs[r]),
                     all.begin() + static_cast<ptrdiff_t>(displs[r] + counts[r]));
  return out;
}

std::string GroupComm::broadcast_text(const std::string& text) {
  int64_t length = static_cast<int64_t>(text.size());
  int64_t extent = 0;
  const auto length_view = host_view(&length, FRUGAL_DTYPE_INT64, extent, 1);
  check(frugal_comm_broadcast(comm_, &length_view, 0), "broadcast");
  std::string out = rank() == 0 ? text : std::string(static_cast<size_t>(length), '\0');
  if (length > 0) {
    int64_t bytes_extent = 0;
    const auto bytes = host_view(out.data(), FRUGAL_DTYPE_UINT8, bytes_extent, out.size());
    check(frugal_comm_broadcast(comm_, &bytes, 0), "broadcast");
  }
  return out;
}

JobGroup::JobGroup(frugal_comm* host) {
  if (frugal_comm_device_type(host) != FRUGAL_DEVICE_CPU)
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "checkpoint engine: option 'comm' must take host memory (an mpi or local comm); the engine exchanges "
         "its records in host buffers");
  caller_ = std::make_unique<GroupComm>(split_of(host));
  worker_ = std::make_unique<GroupComm>(split_of(host));
}

}  // namespace frugal::ckpt
