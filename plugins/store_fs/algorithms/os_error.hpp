// Turning operating-system failures into plugin errors. Messages carry no
// "store 'fs'" prefix: the core adds it to every error a store returns.
#pragma once

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>

namespace frugal::store_fs {

// strerror, but thread-safe (stores are used from several threads at once).
std::string os_reason(int err);

// Throws PluginError(code, message).
[[noreturn]] void fail(int32_t code, std::string message);

// Throws FRUGAL_ERR_IO "<what>: <os reason>", e.g.
// "put 'ckpt-1/shard-0': write failed: No space left on device".
[[noreturn]] void fail_io(std::string_view what, int err);

// fail_io with the current errno, read before `message()` builds the text:
// building it may allocate, and in fail_io(text, errno) the order in which
// the two arguments are evaluated is unspecified.
template <typename Message>
[[noreturn]] void fail_errno(Message&& message) {
  const int err = errno;
  fail_io(message(), err);
}

// "<op> '<key>'", the start of every per-key message.
std::string op_key(std::string_view op, std::string_view key);

}  // namespace frugal::store_fs
