// crash_child <store_root>: a training loop that checkpoints every step
// until test_crash_consistency SIGKILLs it, then is started again on the
// same directory. It first resumes like a real job would: restores the
// newest valid checkpoint and checks it is exactly the state of its step,
// tensors and host states alike (so a kill never produced a checkpoint that
// restores wrong bytes, or a state of another step than its tensors'), then
// continues from the next step.
//
// It tells the parent what it knows on stdout, one line per event, written
// with write(2) so nothing is buffered when the kill comes:
//   resumed <s>     restored step s, bit for bit
//   begin <s>       about to save step s
//   committed <s>   the save of step s persisted (its wait returned OK)
//   FAIL <why>      a check or a call failed; exit status 3
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <string>

#include "ckpt_fixture.hpp"

using frugal::test::crash::State;

namespace {

void say(const std::string& line) {
  const std::string text = line + "\n";
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(4);  // the parent is gone: nobody to report to
    done += static_cast<size_t>(n);
  }
}

// Restores the newest valid checkpoint, if any; returns the next step to train.
uint64_t resume(frugal_ckpt_engine* engine, State& state) {
  state.poison();
  std::string metadata(frugal::test::crash::kMetadataCapacity, '\0');
  size_t metadata_size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  frugal_error* error = frugal_ckpt_restore(engine, nullptr, FRUGAL_CKPT_ALL_KINDS, metadata.data(), metadata.size(),
                                            &metadata_size, &info);
  if (error != nullptr && frugal_error_code(error) == FRUGAL_ERR_NOT_FOUND) {
    frugal_error_destroy(error);
    return 1;  // nothing committed yet: a fresh start
  }
  frugal::host::check(error);
  metadata.resize(static_cast<size_t>(metadata_size));
  if (metadata != frugal::test::crash::step_metadata(info.step))
    throw std::runtime_error("restored " + std::string(info.name) + " carries the metadata of another step: '" +
                             metadata.substr(0, metadata.find('\n')) + "'");
  // A heartbeat's full-only state comes from the full checkpoint it names.
  std::optional<uint64_t> full_step;
  if (info.kind == FRUGAL_CKPT_HEARTBEAT && info.full_source[0] != '\0') {
    frugal_ckpt_info source{};
    source.struct_size = sizeof(source);
    frugal::host::check(frugal_ckpt_verify(engine, info.full_source, &source));
    full_step = source.step;
  }
  if (const auto why = state.mismatch(info.step, info.kind, true, full_step); !why.empty())
    throw std::runtime_error("restored " + std::string(info.name) + ": " + why);
  say("resumed " + std::to_string(info.step));
  return info.step + 1;
}

}  // namespace

int main(int argc, char** argv) {
  using frugal::host::check;
  if (argc != 2) {
    say("FAIL usage: crash_child <store_root>");
    return 2;
  }
  try {
    State state;  // first: the engine borrows its memory, so it must outlive the engine
    auto context = frugal::host::make_context();
    check(frugal_context_load_plugin(context.get(), FRUGAL_STORE_FS_PLUGIN));
    auto store_options = frugal::host::make_options();
    check(frugal_options_set_string(store_options.get(), "root", argv[1]));
    check(frugal_options_set_bool(store_options.get(), "fsync", 1));
    frugal_store* raw_store = nullptr;
    check(frugal_store_create(context.get(), "fs", store_options.get(), &raw_store));
    frugal::test::StorePtr store(raw_store);
    auto engine_options = frugal::host::make_options();
    check(frugal_options_set_int(engine_options.get(), "shard_bytes", State::kShardBytes));
    frugal_ckpt_engine* raw_engine = nullptr;
    check(frugal_ckpt_engine_create(store.get(), engine_options.get(), &raw_engine));
    frugal::test::EnginePtr engine(raw_engine);
    check(state.register_all(engine.get()));
    check(state.register_states(engine.get()));
    uint64_t step = resume(engine.get(), state);
    state.fill(step);
    for (;; ++step) {
      const auto plan = frugal::test::crash::plan_for(step);
      const std::string metadata = frugal::test::crash::step_metadata(step);
      frugal_ckpt_save_args args{};
      args.struct_size = sizeof(args);
      args.kind = plan.kind;
      args.flags = plan.wait_flag ? FRUGAL_CKPT_SAVE_WAIT : 0;
      args.step = step;
      args.metadata = metadata.data();
      args.metadata_size = metadata.size();
      say("begin " + std::to_string(step));
      check(frugal_ckpt_save(engine.get(), &args, nullptr));
      // The next "training step" overwrites the registered memory while the
      // previous one persists: the checkpoint must hold the snapshot, not
      // whatever the tensors contain by the time the shard is written.
      state.fill(step + 1);
      check(frugal_ckpt_wait(engine.get(), nullptr));
      say("committed " + std::to_string(step));
    }
  } catch (const std::exception& e) {
    say(std::string("FAIL ") + e.what());
    return 3;
  }
}
