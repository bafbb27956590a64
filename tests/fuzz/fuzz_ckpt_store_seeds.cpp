// Writes seeds for fuzz_ckpt_store into the directory given: stores that
// the engine itself wrote (a full checkpoint, then a heartbeat, then both
// again), with the host states of ckpt_store_state.hpp (so every manifest
// has a state section and every checkpoint a state shard), encoded in the
// fuzzer's input format; and the same saved by an engine with a comm (a
// `local` group of one), whose checkpoints are manifest format 3. Generated at each run rather than committed, so
// they follow the manifest format as it changes.
#include <fstream>
#include <iostream>
#include <vector>

#include "ckpt_store_input.hpp"
#include "ckpt_store_state.hpp"
#include "fuzz_support.hpp"

namespace input = frugal::fuzz::ckpt_input;
using frugal::fuzz::finding;
using frugal::fuzz::ok;

namespace {

// Saves checkpoints 1..count (alternating kinds, steps as in kCheckpoints),
// with a comm when `sharded`.
std::vector<uint8_t> seed(int count, bool sharded) {
  frugal::fuzz::ScratchDir scratch;
  frugal_options* options = nullptr;
  if (!ok(frugal_options_create(&options)) || !ok(frugal_options_set_string(options, "root", scratch.path().c_str())))
    finding("options");
  frugal_store* store = nullptr;
  if (!ok(frugal_store_create(frugal::fuzz::plugin_context(), "fs", options, &store))) finding("fs store");
  frugal_options_destroy(options);
  frugal_options* keep = nullptr;
  if (!ok(frugal_options_create(&keep)) || !ok(frugal_options_set_int(keep, "keep_heartbeats", 4)) ||
      !ok(frugal_options_set_int(keep, "keep_full", 4)) || !ok(frugal_options_set_int(keep, "shard_bytes", 4096)))
    finding("engine options");
  frugal_comm* comm = nullptr;
  if (sharded && (!ok(frugal_comm_create(frugal::fuzz::plugin_context(), "local", nullptr, &comm)) ||
                  !ok(frugal_options_set_comm(keep, "comm", comm))))
    finding("local comm");
  frugal_ckpt_engine* engine = nullptr;
  if (!ok(frugal_ckpt_engine_create(store, keep, &engine))) finding("engine");
  frugal_options_destroy(keep);
  frugal::fuzz::CkptState state;
  if (!state.register_with(engine)) finding("register");
  const uint64_t steps[] = {10, 12, 20, 15};
  for (int i = 0; i < count; ++i) {
    for (size_t j = 0; j < state.weights.size(); ++j) state.weights[j] = static_cast<float>(i * 100 + j);
    state.step[0] = static_cast<int64_t>(steps[i]);
    if (!ok(frugal_loss_scaler_update(state.scaler, i % 2, nullptr))) finding("loss scaler update");
    state.host_bytes.assign(static_cast<size_t>(8 + 4 * i), static_cast<uint8_t>(0x30 + i));
    const char meta[] = "cursor";
    frugal_ckpt_save_args args{};
    args.struct_size = sizeof args;
    args.kind = i % 2 == 0 ? FRUGAL_CKPT_FULL : FRUGAL_CKPT_HEARTBEAT;
    args.flags = FRUGAL_CKPT_SAVE_WAIT;
    args.step = steps[i];
    args.metadata = meta;
    args.metadata_size = sizeof meta;
    if (!ok(frugal_ckpt_save(engine, &args, nullptr))) finding("save");
  }
  frugal_ckpt_engine_destroy(engine);
  frugal_comm_destroy(comm);
  std::vector<uint8_t> encoded;
  for (uint8_t index = 0; index < input::kFileCount; ++index) {
    uint64_t size = 0;
    if (frugal_error* missing = frugal_store_size(store, input::file_key(index).c_str(), &size)) {
      frugal_error_destroy(missing);
      continue;
    }
    input::File file;
    file.index = index;
    file.bytes.resize(size);
    if (!ok(frugal_store_read(store, input::file_key(index).c_str(), 0, file.bytes.data(), size))) finding("read");
    input::encode(file, encoded);
  }
  frugal_store_destroy(store);
  return encoded;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_ckpt_store_seeds DIR\n";
    return 2;
  }
  for (const bool sharded : {false, true})
    for (int count = 1; count <= 4; ++count) {
      const auto bytes = seed(count, sharded);
      std::ofstream out(std::string(argv[1]) + "/generated-" + (sharded ? "sharded-" : "") + std::to_string(count),
                        std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      if (!out) finding("cannot write a seed into " + std::string(argv[1]));
    }
  return 0;
}
