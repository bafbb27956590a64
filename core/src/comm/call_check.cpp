#include "comm/call_check.hpp"

#include <algorithm>
#include <utility>

#include "dtype.hpp"
#include "error.hpp"
#include "frugal/sdk/comm_ops.hpp"

namespace frugal::comm {
namespace {

bool reducible(int32_t dtype, int32_t reduce_op) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32:
    case FRUGAL_DTYPE_FLOAT64:
    case FRUGAL_DTYPE_FLOAT16:
    case FRUGAL_DTYPE_BFLOAT16:
    case FRUGAL_DTYPE_INT32:
    case FRUGAL_DTYPE_INT64: return true;
    case FRUGAL_DTYPE_UINT8: return reduce_op != FRUGAL_REDUCE_SUM;
    default: return false;
  }
}

const char* reduce_name(int32_t reduce_op) {
  switch (reduce_op) {
    case FRUGAL_REDUCE_SUM: return "sum";
    case FRUGAL_REDUCE_MAX: return "max";
    case FRUGAL_REDUCE_MIN: return "min";
    default: return "?";
  }
}

size_t times(size_t a, size_t b, const char* op, const char* what) {
  size_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: {} overflows", op, what);
  return out;
}

// The elements [displs[i], displs[i] + counts[i]) of `size` parts: fills
// NULL displacements as packed ones, checks that the parts fit in `extent`
// and, for parts that are written, that they do not overlap. Returns the
// elements the parts span.
size_t check_parts(const char* op, const char* which, const size_t* counts, const size_t*& displs, int32_t size,
                   size_t extent, bool written, std::vector<size_t>& storage) {
  if (counts == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {}_counts is NULL", op, which);
  if (displs == nullptr) {
    const size_t first = storage.size();
    size_t at = 0;
    for (int32_t r = 0; r < size; ++r) {
      storage.push_back(at);
      if (__builtin_add_overflow(at, counts[r], &at))
        fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: {}_counts overflow", op, which);
    }
    displs = storage.data() + first;  // after the pushes: they may have moved storage
  }
  size_t span = 0;
  std::vector<std::pair<size_t, size_t>> parts;
  for (int32_t r = 0; r < size; ++r) {
    size_t end = 0;
    if (__builtin_add_overflow(displs[r], counts[r], &end))
      fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: {} part {} ends past SIZE_MAX", op, which, r);
    if (extent != kUnknown && end > extent)
      fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: {} part {} (elements {}..{}) lies outside its {} elements", op, which, r,
           displs[r], end, extent);
    span = std::max(span, end);
    if (written && counts[r] > 0) parts.emplace_back(displs[r], end);
  }
  std::sort(parts.begin(), parts.end());
  for (size_t i = 1; i < parts.size(); ++i)
    if (parts[i].first < parts[i - 1].second)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {} parts overlap (elements {}..{} and {}..{})", op, which,
           parts[i - 1].first, parts[i - 1].second, parts[i].first, parts[i].second);
  return span;
}

void require_equal(const char* op, const char* which, size_t extent, size_t expected, const char* why) {
  if (extent != kUnknown && extent != expected)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {} has {} elements; expected {} ({})", op, which, extent, expected, why);
}

}  // namespace

void check_call(frugal_comm_call& call, const frugal_comm_info& info, const Extents& extents,
                std::vector<size_t>& displs) {
  const char* op = sdk::comm_op_name(call.op);
  if (call.op < FRUGAL_COMM_ALL_REDUCE || call.op > FRUGAL_COMM_BARRIER)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "comm call: op {} is not a frugal_comm_op_values value", call.op);
  if (call.timeout_ms < 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: timeout_ms is {}; expected > 0", op, call.timeout_ms);
  if (call.op == FRUGAL_COMM_BARRIER) {
    call.send = nullptr;
    call.recv = nullptr;
    call.count = 0;
    return;
  }
  const DtypeInfo* dtype = find_dtype(call.dtype);
  if (dtype == nullptr)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: dtype {} is not a frugal_dtype_values value", op, call.dtype);
  const bool reduces = call.op == FRUGAL_COMM_ALL_REDUCE || call.op == FRUGAL_COMM_REDUCE_SCATTER;
  if (reduces) {
    if (call.reduce_op < FRUGAL_REDUCE_SUM || call.reduce_op > FRUGAL_REDUCE_MIN)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: reduce_op {} is not a frugal_reduce_op_values value", op, call.reduce_op);
    if (!reducible(call.dtype, call.reduce_op))
      fail(FRUGAL_ERR_UNSUPPORTED,
           "{}: {} of {} is not supported (sum, max and min take float32, float64, float16, bfloat16, int32 and "
           "int64; max and min also uint8)",
           op, reduce_name(call.reduce_op), dtype->name);
  } else {
    call.reduce_op = 0;
  }
  const auto size = static_cast<size_t>(info.size);
  size_t send_needed = 0;
  size_t recv_needed = 0;
  bool in_place_allowed = false;
  switch (call.op) {
    case FRUGAL_COMM_ALL_REDUCE:
      require_equal(op, "recv", extents.recv, extents.send == kUnknown ? call.count : extents.send, "as many as send");
      send_needed = recv_needed = call.count;
      in_place_allowed = true;
      break;
    case FRUGAL_COMM_BROADCAST:
      if (call.root < 0 || call.root >= info.size)
        fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: root {} is outside the group's ranks 0..{}", op, call.root, info.size - 1);
      if (call.send != nullptr && call.send != call.recv)
        fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: send must be NULL (the buffer is recv)", op);
      call.send = nullptr;
      recv_needed = call.count;
      break;
    case FRUGAL_COMM_ALL_GATHER:
      send_needed = call.count;
      recv_needed = times(size, call.count, op, "size x count");
      require_equal(op, "recv", extents.recv, recv_needed, "the group's size x send's elements");
      break;
    case FRUGAL_COMM_ALL_GATHER_V:
      send_needed = call.count;
      recv_needed = check_parts(op, "recv", call.recv_counts, call.recv_displs, info.size, extents.recv, true, displs);
      if (call.recv_counts[info.rank] != call.count)
        fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: recv_counts[{}] (this rank) is {}, but send has {} elements", op,
             info.rank, call.recv_counts[info.rank], call.count);
      break;
    case FRUGAL_COMM_REDUCE_SCATTER:
      send_needed = times(size, call.count, op, "size x count");
      recv_needed = call.count;
      require_equal(op, "send", extents.send, send_needed, "the group's size x recv's elements");
      break;
    case FRUGAL_COMM_ALL_TO_ALL:
      send_needed = recv_needed = times(size, call.count, op, "size x count");
      require_equal(op, "recv", extents.recv, recv_needed, "as many as send");
      break;
    case FRUGAL_COMM_ALL_TO_ALL_V:
      if (call.count != 0)
        fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: count is {}; the counts arrays say it all (0)", op, call.count);
      displs.reserve(2 * size);  // both packed arrays, without moving the first
      send_needed = check_parts(op, "send", call.send_counts, call.send_displs, info.size, extents.send, false, displs);
      recv_needed = check_parts(op, "recv", call.recv_counts, call.recv_displs, info.size, extents.recv, true, displs);
      break;
    default: break;
  }
  if (send_needed > 0 && call.send == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: send is NULL", op);
  if (recv_needed > 0 && call.recv == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: recv is NULL", op);
  if (send_needed > 0 && recv_needed > 0 && !(in_place_allowed && call.send == call.recv)) {
    const size_t bytes = dtype->bits / 8u;
    const auto* s = static_cast<const char*>(call.send);
    const auto* r = static_cast<const char*>(call.recv);
    const bool overlap = s < r + recv_needed * bytes && r < s + send_needed * bytes;
    if (overlap)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: send and recv overlap{}", op,
           in_place_allowed ? " (in place means the same memory: pass one tensor as both)" : "");
  }
}

}  // namespace frugal::comm
