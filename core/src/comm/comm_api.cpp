// The C entry points of frugal/comm.h, and the host-table slots through
// which plugins reach a comm (frugal_host_api.comm_info, comm_run): host
// tensors become one frugal_comm_call, checked by the communicator.
#include <fmt/format.h>

#include "comm/communicator.hpp"
#include "comm/host_slots.hpp"
#include "compact_tensor.hpp"
#include "context.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "frugal/comm.h"
#include "frugal/options.h"
#include "frugal/sdk/comm_ops.hpp"
#include "matrix_view.hpp"
#include "sized_structs.hpp"

using frugal::guard;
using frugal::require_non_null;

namespace {

frugal::Communicator& impl_of(const frugal_comm* comm, const char* function) {
  require_non_null(comm, function, "comm");
  return *comm->impl;
}

// A tensor for a collective on `comm`: compact, and where the comm's
// backend takes memory from (host backends also take pinned host memory).
frugal::CompactBuffer buffer_for(const frugal::Communicator& comm, const frugal_tensor* tensor, const char* op,
                                 const char* role) {
  const auto b = frugal::to_compact(tensor, fmt::format("{}: {}", op, role).c_str());
  const int32_t type = b.device.type == FRUGAL_DEVICE_CUDA_PINNED ? FRUGAL_DEVICE_CPU : b.device.type;
  if (b.count > 0 && type != comm.info().device_type)
    frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {}: {} is on {}; this comm moves {} memory", comm.label(), op, role,
                 frugal::device_name(b.device), comm.info().device_type == FRUGAL_DEVICE_CPU ? "host" : "CUDA");
  return b;
}

void require_same_dtype(const frugal::Communicator& comm, const char* op, const frugal::CompactBuffer& send,
                        const frugal::CompactBuffer& recv) {
  if (send.dtype != recv.dtype)
    frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {}: send has dtype {} and recv dtype {}; they must agree",
                 comm.label(), op, frugal::find_dtype(send.dtype)->name, frugal::find_dtype(recv.dtype)->name);
}

frugal_comm_call new_call(int32_t op, int32_t dtype) {
  frugal_comm_call call{};
  call.struct_size = sizeof(call);
  call.op = op;
  call.dtype = dtype;
  return call;
}

// The collectives with one send and one recv tensor; count is taken from
// the tensor the op sizes its blocks by.
void run_pair(frugal_comm* comm, const char* function, int32_t op, const frugal_tensor* send, const frugal_tensor* recv,
              int32_t reduce_op) {
  auto& c = impl_of(comm, function);
  const char* name = frugal::sdk::comm_op_name(op);
  const auto s = buffer_for(c, send, name, "send");
  const auto r = buffer_for(c, recv, name, "recv");
  require_same_dtype(c, name, s, r);
  auto call = new_call(op, s.dtype);
  call.send = s.data;
  call.recv = r.data;
  call.reduce_op = reduce_op;
  const auto size = static_cast<size_t>(c.info().size);
  switch (op) {
    case FRUGAL_COMM_REDUCE_SCATTER: call.count = r.count; break;
    case FRUGAL_COMM_ALL_TO_ALL:
      if (s.count % size != 0)
        frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT,
                     "{}: all_to_all: send has {} elements, not a multiple of the {} ranks", c.label(), s.count, size);
      call.count = s.count / size;
      break;
    default: call.count = s.count; break;
  }
  c.run(call, {s.count, r.count});
}

}  // namespace

namespace frugal::comm {

frugal_error* host_comm_info(const frugal_comm* comm, frugal_comm_info* out) noexcept {
  return guard("frugal_host_api.comm_info", [&] {
    write_sized(out, impl_of(comm, "frugal_host_api.comm_info").info(), "frugal_host_api.comm_info");
  });
}

frugal_error* host_comm_run(frugal_comm* comm, const frugal_comm_call* call) noexcept {
  return guard("frugal_host_api.comm_run", [&] {
    auto& c = impl_of(comm, "frugal_host_api.comm_run");
    require_non_null(call, "frugal_host_api.comm_run", "call");
    const frugal_comm_call copy = read_sized(call);
    require_size(&copy, FRUGAL_COMM_CALL_MIN_SIZE, "call");
    c.run(copy, {});
  });
}

}  // namespace frugal::comm

extern "C" {

FRUGAL_API frugal_error* frugal_comm_create(frugal_context* context, const char* name, const frugal_options* options,
                                            frugal_comm** out) {
  return guard("frugal_comm_create", [&] {
    require_non_null(out, "frugal_comm_create", "out");
    *out = nullptr;
    auto resolved = frugal::resolve_strategy(context, FRUGAL_KIND_COMM, name);
    auto comm = std::make_unique<frugal_comm>();
    comm->impl = std::make_shared<frugal::Communicator>(resolved.plugin, *resolved.record, options,
                                                        fmt::format("comm '{}'", name));
    *out = comm.release();
  });
}

FRUGAL_API void frugal_comm_destroy(frugal_comm* comm) { delete comm; }

FRUGAL_API int32_t frugal_comm_rank(const frugal_comm* comm) { return comm != nullptr ? comm->impl->info().rank : 0; }

FRUGAL_API int32_t frugal_comm_size(const frugal_comm* comm) { return comm != nullptr ? comm->impl->info().size : 0; }

FRUGAL_API int32_t frugal_comm_device_type(const frugal_comm* comm) {
  return comm != nullptr ? comm->impl->info().device_type : 0;
}

FRUGAL_API frugal_error* frugal_comm_split(frugal_comm* comm, int32_t color, int32_t key, frugal_comm** out) {
  return guard("frugal_comm_split", [&] {
    require_non_null(out, "frugal_comm_split", "out");
    *out = nullptr;
    auto sub = impl_of(comm, "frugal_comm_split").split(color, key);
    if (sub) *out = new frugal_comm{std::move(sub)};
  });
}

FRUGAL_API frugal_error* frugal_comm_set_timeout(frugal_comm* comm, int64_t timeout_ms) {
  return guard("frugal_comm_set_timeout", [&] { impl_of(comm, "frugal_comm_set_timeout").set_timeout(timeout_ms); });
}

FRUGAL_API frugal_error* frugal_comm_set_stream(frugal_comm* comm, void* stream) {
  return guard("frugal_comm_set_stream", [&] { impl_of(comm, "frugal_comm_set_stream").set_stream(stream); });
}

FRUGAL_API frugal_error* frugal_comm_all_reduce(frugal_comm* comm, const frugal_tensor* send, const frugal_tensor* recv,
                                                int32_t reduce_op) {
  return guard("frugal_comm_all_reduce",
               [&] { run_pair(comm, "frugal_comm_all_reduce", FRUGAL_COMM_ALL_REDUCE, send, recv, reduce_op); });
}

FRUGAL_API frugal_error* frugal_comm_broadcast(frugal_comm* comm, const frugal_tensor* buffer, int32_t root) {
  return guard("frugal_comm_broadcast", [&] {
    auto& c = impl_of(comm, "frugal_comm_broadcast");
    const auto b = buffer_for(c, buffer, "broadcast", "buffer");
    auto call = new_call(FRUGAL_COMM_BROADCAST, b.dtype);
    call.recv = b.data;
    call.count = b.count;
    call.root = root;
    c.run(call, {0, b.count});
  });
}

FRUGAL_API frugal_error* frugal_comm_all_gather(frugal_comm* comm, const frugal_tensor* send,
                                                const frugal_tensor* recv) {
  return guard("frugal_comm_all_gather",
               [&] { run_pair(comm, "frugal_comm_all_gather", FRUGAL_COMM_ALL_GATHER, send, recv, 0); });
}

FRUGAL_API frugal_error* frugal_comm_all_gather_v(frugal_comm* comm, const frugal_tensor* send,
                                                  const frugal_tensor* recv, const size_t* recv_counts,
                                                  const size_t* recv_displs) {
  return guard("frugal_comm_all_gather_v", [&] {
    auto& c = impl_of(comm, "frugal_comm_all_gather_v");
    const auto s = buffer_for(c, send, "all_gather_v", "send");
    const auto r = buffer_for(c, recv, "all_gather_v", "recv");
    require_same_dtype(c, "all_gather_v", s, r);
    auto call = new_call(FRUGAL_COMM_ALL_GATHER_V, s.dtype);
    call.send = s.data;
    call.recv = r.data;
    call.count = s.count;
    call.recv_counts = recv_counts;
    call.recv_displs = recv_displs;
    c.run(call, {s.count, r.count});
  });
}

FRUGAL_API frugal_error* frugal_comm_reduce_scatter(frugal_comm* comm, const frugal_tensor* send,
                                                    const frugal_tensor* recv, int32_t reduce_op) {
  return guard("frugal_comm_reduce_scatter", [&] {
    run_pair(comm, "frugal_comm_reduce_scatter", FRUGAL_COMM_REDUCE_SCATTER, send, recv, reduce_op);
  });
}

FRUGAL_API frugal_error* frugal_comm_all_to_all(frugal_comm* comm, const frugal_tensor* send,
                                                const frugal_tensor* recv) {
  return guard("frugal_comm_all_to_all",
               [&] { run_pair(comm, "frugal_comm_all_to_all", FRUGAL_COMM_ALL_TO_ALL, send, recv, 0); });
}

FRUGAL_API frugal_error* frugal_comm_all_to_all_v(frugal_comm* comm, const frugal_tensor* send,
                                                  const size_t* send_counts, const size_t* send_displs,
                                                  const frugal_tensor* recv, const size_t* recv_counts,
                                                  const size_t* recv_displs) {
  return guard("frugal_comm_all_to_all_v", [&] {
    auto& c = impl_of(comm, "frugal_comm_all_to_all_v");
    const auto s = buffer_for(c, send, "all_to_all_v", "send");
    const auto r = buffer_for(c, recv, "all_to_all_v", "recv");
    require_same_dtype(c, "all_to_all_v", s, r);
    auto call = new_call(FRUGAL_COMM_ALL_TO_ALL_V, s.dtype);
    call.send = s.data;
    call.recv = r.data;
    call.send_counts = send_counts;
    call.send_displs = send_displs;
    call.recv_counts = recv_counts;
    call.recv_displs = recv_displs;
    c.run(call, {s.count, r.count});
  });
}

FRUGAL_API frugal_error* frugal_comm_barrier(frugal_comm* comm) {
  return guard("frugal_comm_barrier",
               [&] { impl_of(comm, "frugal_comm_barrier").run(new_call(FRUGAL_COMM_BARRIER, 0), {}); });
}

}  // extern "C"
