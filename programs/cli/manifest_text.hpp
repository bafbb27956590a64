// `frugal ckpt inspect` without --json: a checkpoint's manifest for a
// person to read, from the manifest as the library writes it as JSON
// (frugal_ckpt_inspect_json), so the tool reads checkpoints through the
// public C API only.
#pragma once

#include <string>

#include "json_text.hpp"

namespace frugal::cli {

// The manifest `manifest` (the parsed frugal_ckpt_inspect_json text) as
// text: its header fields, then one table each of shards, tensors and
// registered states (name, the kinds it is saved in, size, checksum).
// Names from the store are passed through terminal_text. Throws
// nlohmann's exception when a field is missing or of another type.
std::string manifest_text(const json::Json& manifest);

}  // namespace frugal::cli
