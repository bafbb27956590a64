// What the fuzz targets share: consuming frugal errors (and checking that
// each one is a clear error), reporting a finding that is not a crash, a
// context with the built-in plugins, and a scratch directory per input.
#pragma once

#include <stdlib.h>  // mkdtemp (POSIX)

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "frugal/frugal.h"

namespace frugal::fuzz {

// A broken promise of the API that is not a crash (a wrong value, a leak of
// ownership): printed, then abort(), so libFuzzer keeps the input.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

// Consumes the result of a frugal call: true on success. A failure must
// carry a known code and a message naming the problem (the "clear error"
// rule); anything else is a finding.
inline bool ok(frugal_error* error) {
  if (error == nullptr) return true;
  const int32_t code = frugal_error_code(error);
  const char* message = frugal_error_message(error);
  if (code <= FRUGAL_OK || std::strcmp(frugal_error_code_name(code), "UNKNOWN") == 0)
    finding("an error with an unknown code " + std::to_string(code));
  if (message == nullptr || message[0] == '\0') finding("an error without a message, code " + std::to_string(code));
  if (code == FRUGAL_ERR_INTERNAL) finding(std::string("an internal error (a bug, not bad input): ") + message);
  // Replaying one input, FRUGAL_FUZZ_VERBOSE=1 shows each refusal's reason.
  static const bool verbose = std::getenv("FRUGAL_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "refused: %s: %s\n", frugal_error_code_name(code), message);
  frugal_error_destroy(error);
  return false;
}

// A call of the harness itself that must succeed: a failure is a finding
// that quotes frugal's message.
inline void must(frugal_error* error, const std::string& what) {
  if (error == nullptr) return;
  const std::string message = frugal_error_message(error);
  frugal_error_destroy(error);
  finding(what + ": " + message);
}

// A host-memory view of a compact row-major tensor.
inline frugal_tensor host_view(void* data, int32_t dtype, int32_t ndim, const int64_t* shape) {
  frugal_tensor t{};
  t.struct_size = sizeof t;
  t.data = data;
  t.dtype = dtype;
  t.ndim = ndim;
  t.shape = shape;
  t.device.type = FRUGAL_DEVICE_CPU;
  return t;
}

// The telemetry of record `i` (1, 2, ...) of a plausible run: a falling
// loss, 2 spot nodes, 30 s of job clock per record.
inline frugal_telemetry telemetry_record(int64_t i) {
  frugal_telemetry t{};
  t.struct_size = sizeof t;
  t.step = 10 * i;
  t.tokens = 10000 * i;
  t.loss = 4.0 / static_cast<double>(i + 1);
  t.wall_time_s = 30.0 * static_cast<double>(i);
  t.nodes = 2;
  t.price_per_node_hour = 1.5;
  t.resource = FRUGAL_RESOURCE_SPOT;
  return t;
}

// One context for the whole run, with every built-in plugin loaded from the
// build tree and logging silenced (rejected inputs log warnings by design).
inline frugal_context* plugin_context() {
  static frugal_context* context = [] {
    frugal_context* created = nullptr;
    if (!ok(frugal_context_create(&created))) finding("frugal_context_create failed");
    if (!ok(frugal_context_set_log_callback(
            created, [](void*, int32_t, const char*, const char*) {}, nullptr, FRUGAL_LOG_ERROR)))
      finding("frugal_context_set_log_callback failed");
    size_t loaded = 0;
    if (!ok(frugal_context_discover_plugins(created, 0, &loaded)) || loaded == 0)
      finding("no built-in plugin was found next to libfrugal");
    return created;
  }();
  return context;
}

// A fresh directory under $TMPDIR, removed with its contents afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "frugal-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) finding("cannot create a scratch directory " + pattern);
    path_ = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace frugal::fuzz
