#include "run_checkpoints.hpp"

#include <chrono>

namespace frugal_demo {
namespace {

using frugal::host::check;

frugal_tensor float_vector_view(std::span<float> values, const std::vector<std::int64_t>& shape) {
  frugal_tensor view{};
  view.struct_size = sizeof(view);
  view.data = values.data();
  view.dtype = FRUGAL_DTYPE_FLOAT32;
  view.ndim = 1;
  view.device.type = FRUGAL_DEVICE_CPU;
  view.shape = shape.data();
  return view;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RunCheckpoints::RunCheckpoints(frugal_context* context, const std::filesystem::path& store_root,
                               std::span<float> parameters, std::span<float> optimizer_state)
    : parameter_shape_{static_cast<std::int64_t>(parameters.size())},
      optimizer_shape_{static_cast<std::int64_t>(optimizer_state.size())} {
  frugal::host::Options store_options;
  store_options.set("root", store_root.string());
  store_ = frugal::host::make_store(context, "fs", store_options.get());
  frugal::host::Options engine_options;
  // Two of each kind: the newest may be the one a kill tore.
  engine_options.set("keep_heartbeats", 2).set("keep_full", 2);
  engine_ = frugal::host::make_ckpt_engine(store_.get(), engine_options.get());
  const frugal_tensor params_view = float_vector_view(parameters, parameter_shape_);
  const frugal_tensor state_view = float_vector_view(optimizer_state, optimizer_shape_);
  check(frugal_ckpt_register(engine_.get(), "model/parameters", &params_view, 0));
  check(frugal_ckpt_register(engine_.get(), "optimizer/adamw_moments", &state_view, 0));
}

std::optional<RestoredCheckpoint> RunCheckpoints::restore_latest() {
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  frugal_error* error = frugal_ckpt_latest(engine_.get(), FRUGAL_CKPT_ALL_KINDS, &info);
  if (error != nullptr && frugal_error_code(error) == FRUGAL_ERR_NOT_FOUND) {
    frugal_error_destroy(error);
    return std::nullopt;
  }
  check(error);
  // Ask the metadata's size first, then restore into a buffer that fits.
  std::uint64_t size = 0;
  error = frugal_ckpt_restore(engine_.get(), info.name, 0, nullptr, 0, &size, nullptr);
  if (error != nullptr && frugal_error_code(error) == FRUGAL_ERR_OUT_OF_RANGE) {
    frugal_error_destroy(error);
  } else {
    check(error);
  }
  RestoredCheckpoint restored;
  restored.metadata.resize(static_cast<std::size_t>(size));
  frugal_ckpt_info done{};
  done.struct_size = sizeof(done);
  check(frugal_ckpt_restore(engine_.get(), info.name, 0, restored.metadata.data(), size, &size, &done));
  restored.name = done.name;
  restored.emergency = done.emergency != 0;
  return restored;
}

SaveOutcome RunCheckpoints::save(std::int32_t kind, std::uint64_t step, std::span<const std::uint8_t> metadata,
                                 bool blocking) {
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = kind;
  args.flags = blocking ? FRUGAL_CKPT_SAVE_WAIT : 0u;
  args.step = step;
  args.metadata = metadata.data();
  args.metadata_size = metadata.size();
  frugal_ckpt_save_result result{};
  result.struct_size = sizeof(result);
  const auto start = std::chrono::steady_clock::now();
  check(frugal_ckpt_save(engine_.get(), &args, &result));
  const double elapsed = seconds_since(start);
  // Blocking: the whole call stalled training. Asynchronous: only the wait
  // for a previous persist and the snapshot did.
  const double stall = blocking ? elapsed : result.wait_seconds + result.snapshot_seconds;
  return SaveOutcome{result.name, stall};
}

RunCheckpoints::Emergency RunCheckpoints::emergency_save(std::uint64_t step, std::span<const std::uint8_t> metadata,
                                                         double deadline_s) {
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = FRUGAL_CKPT_HEARTBEAT;
  args.step = step;
  args.metadata = metadata.data();
  args.metadata_size = metadata.size();
  frugal_ckpt_emergency_result result{};
  result.struct_size = sizeof(result);
  check(frugal_ckpt_emergency_save(engine_.get(), &args, deadline_s, &result));
  return Emergency{result.name, result.committed != 0, result.seconds};
}

void RunCheckpoints::wait() { check(frugal_ckpt_wait(engine_.get(), nullptr)); }

}  // namespace frugal_demo
