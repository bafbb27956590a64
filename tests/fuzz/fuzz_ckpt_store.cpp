// The checkpoint engine over a store written from fuzz bytes: manifests and
// shards of up to four checkpoints (ckpt_store_input.hpp), then everything
// a host does with them: list (manifests only and deep), latest, verify,
// inspect as JSON, restore (newest and each by name) and retention. In the
// fuzzing build checksums are computed but not enforced, so mutated
// manifests reach the structural checks behind them, and mutated state
// bytes reach the imports (the loss scaler's byte format among them).
//
// Beyond "no crash": a restore only succeeds on a checkpoint the engine
// reports VALID and leaves a usable loss scale, and the JSON of a manifest
// is valid UTF-8 with no raw control characters (it is shown in terminals
// and parsed by tools).
#include <cstring>
#include <string>
#include <vector>

#include "ckpt_store_input.hpp"
#include "ckpt_store_state.hpp"
#include "fuzz_support.hpp"

namespace {

using frugal::fuzz::finding;
using frugal::fuzz::ok;
namespace input = frugal::fuzz::ckpt_input;

// RFC 3629 UTF-8, and no control character other than a newline.
bool clean_json_text(const char* text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text);
  while (*p != 0) {
    const unsigned char c = *p;
    if (c < 0x80) {
      if (c < 0x20 && c != '\n') return false;
      ++p;
      continue;
    }
    int more = 0;
    uint32_t code = 0;
    if ((c & 0xE0) == 0xC0) {
      more = 1;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      more = 2;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      more = 3;
      code = c & 0x07;
    } else {
      return false;
    }
    for (int i = 1; i <= more; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      code = code << 6 | (p[i] & 0x3F);
    }
    const uint32_t smallest[] = {0, 0x80, 0x800, 0x10000};
    if (code < smallest[more] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    p += more + 1;
  }
  return true;
}

struct Listed {
  std::string name;
  int32_t status;
};

std::vector<Listed> list(frugal_ckpt_engine* engine, uint32_t flags) {
  std::vector<Listed> out;
  auto collect = [](void* user, const frugal_ckpt_info* info) -> int32_t {
    if (std::memchr(info->name, 0, sizeof info->name) == nullptr) finding("a listed name is not NUL-terminated");
    if (std::memchr(info->reason, 0, sizeof info->reason) == nullptr) finding("a reason is not NUL-terminated");
    static_cast<std::vector<Listed>*>(user)->push_back({info->name, info->status});
    return 0;
  };
  ok(frugal_ckpt_list(engine, flags, collect, &out));
  return out;
}

void restore(frugal_ckpt_engine* engine, const char* name, const std::vector<Listed>& verified,
             const frugal::fuzz::CkptState& state) {
  uint8_t metadata[256];
  size_t metadata_size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof info;
  if (!ok(frugal_ckpt_restore(engine, name, FRUGAL_CKPT_ALL_KINDS, metadata, sizeof metadata, &metadata_size, &info)))
    return;
  if (info.status != FRUGAL_CKPT_VALID) finding(std::string("restored a checkpoint that is not VALID: ") + info.name);
  if (metadata_size > sizeof metadata) finding("restore succeeded with more metadata than the buffer holds");
  state.check_restored();
  for (const auto& v : verified)
    if (v.name == info.name && v.status != FRUGAL_CKPT_VALID)
      finding("restored " + v.name + ", which deep verification had refused");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  frugal::fuzz::ScratchDir scratch;
  frugal_options* options = nullptr;
  if (!ok(frugal_options_create(&options))) finding("frugal_options_create failed");
  if (!ok(frugal_options_set_string(options, "root", scratch.path().c_str()))) finding("cannot set the root");
  frugal_store* store = nullptr;
  if (!ok(frugal_store_create(frugal::fuzz::plugin_context(), "fs", options, &store)))
    finding("the fs store did not open");
  frugal_options_destroy(options);
  for (const auto& file : input::decode(data, size)) {
    if (file.index >= input::kFileCount) continue;
    ok(frugal_store_put(store, input::file_key(file.index).c_str(), file.bytes.data(), file.bytes.size()));
  }

  frugal_ckpt_engine* engine = nullptr;
  if (!ok(frugal_ckpt_engine_create(store, nullptr, &engine))) finding("the engine did not start on a fuzzed store");
  frugal::fuzz::CkptState state;
  if (!state.register_with(engine)) finding("the engine refused the fuzz state's tensors");

  list(engine, 0);
  const auto deep = list(engine, FRUGAL_CKPT_LIST_VERIFY_SHARDS);
  frugal_ckpt_info info{};
  info.struct_size = sizeof info;
  ok(frugal_ckpt_latest(engine, FRUGAL_CKPT_ALL_KINDS, &info));
  for (const char* name : input::kCheckpoints) {
    frugal_ckpt_info verified{};
    verified.struct_size = sizeof verified;
    ok(frugal_ckpt_verify(engine, name, &verified));
    char* json = nullptr;
    if (ok(frugal_ckpt_inspect_json(engine, name, &json))) {
      if (json == nullptr) finding("inspect_json succeeded without a string");
      if (!clean_json_text(json)) finding(std::string("inspect_json of ") + name + " is not clean UTF-8 text");
      frugal_string_free(json);
    }
  }
  restore(engine, nullptr, deep, state);
  for (const char* name : input::kCheckpoints) restore(engine, name, deep, state);
  uint32_t removed = 0;
  ok(frugal_ckpt_gc(engine, &removed));
  // Retention keeps the newest valid checkpoint of each kind (keep >= 1).
  const auto after = list(engine, FRUGAL_CKPT_LIST_VERIFY_SHARDS);
  for (const auto& before : deep) {
    if (before.status != FRUGAL_CKPT_VALID) continue;
    bool newest_of_kind = true;
    for (const auto& other : deep)
      if (&other != &before && other.status == FRUGAL_CKPT_VALID && other.name[0] == before.name[0] &&
          other.name.substr(other.name.size() - 8) > before.name.substr(before.name.size() - 8))
        newest_of_kind = false;
    bool kept = false;
    for (const auto& a : after) kept = kept || a.name == before.name;
    if (newest_of_kind && !kept) finding("retention removed the newest valid checkpoint " + before.name);
  }
  frugal_ckpt_engine_destroy(engine);
  frugal_store_destroy(store);
  return 0;
}
