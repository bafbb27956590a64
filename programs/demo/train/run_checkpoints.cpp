#include "run_checkpoints.hpp"

#include <chrono>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

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

// frugal_ckpt_state_fns over a HostState. No exception may cross the C
// boundary: each becomes the frugal error that fails the save or restore.
frugal_error* export_host_state(void* user_data, void* buffer, size_t capacity, size_t* size) {
  try {
    const std::vector<std::uint8_t> bytes = static_cast<HostState*>(user_data)->save();
    *size = bytes.size();
    if (buffer == nullptr) return nullptr;
    if (capacity < bytes.size()) return frugal_error_create(FRUGAL_ERR_OUT_OF_RANGE, "state grew during the save");
    if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
    return nullptr;
  } catch (const std::exception& e) {
    return frugal_error_create(FRUGAL_ERR_INTERNAL, e.what());
  }
}

frugal_error* import_host_state(void* user_data, const void* data, size_t size) {
  try {
    static_cast<HostState*>(user_data)->restore({static_cast<const std::uint8_t*>(data), size});
    return nullptr;
  } catch (const std::exception& e) {
    return frugal_error_create(FRUGAL_ERR_DATA_CORRUPTED, e.what());
  }
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

void RunCheckpoints::register_router(const std::string& name, frugal_router* router) {
  check(frugal_ckpt_register_router(engine_.get(), name.c_str(), router, 0));
}

void RunCheckpoints::register_quantizer(const std::string& name, frugal_quantizer* quantizer) {
  check(frugal_ckpt_register_quantizer(engine_.get(), name.c_str(), quantizer, 0));
}

void RunCheckpoints::register_scheduler(const std::string& name, frugal_scheduler* scheduler) {
  check(frugal_ckpt_register_scheduler(engine_.get(), name.c_str(), scheduler, 0));
}

void RunCheckpoints::register_state(const std::string& name, HostState state) {
  host_states_.push_back(std::make_unique<HostState>(std::move(state)));
  frugal_ckpt_state_fns fns{};
  fns.struct_size = sizeof(fns);
  fns.user_data = host_states_.back().get();
  fns.export_state = export_host_state;
  fns.import_state = import_host_state;
  frugal_error* error = frugal_ckpt_register_state(engine_.get(), name.c_str(), &fns, 0);
  if (error != nullptr) host_states_.pop_back();
  check(error);
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
  frugal_ckpt_info done{};
  done.struct_size = sizeof(done);
  check(frugal_ckpt_restore(engine_.get(), info.name, 0, nullptr, 0, nullptr, &done));
  // Every tensor and state is in every kind, so a demo checkpoint supplies
  // all of them; one that does not was written by another build.
  if (done.not_restored_count > 0) {
    char missing[FRUGAL_CKPT_TENSOR_NAME_CAPACITY] = {};
    check(frugal_ckpt_restore_report(engine_.get(), 0, missing, sizeof missing));
    throw std::runtime_error("checkpoint " + std::string(done.name) + " holds no '" + missing +
                             "': not a checkpoint of this frugal-demo");
  }
  return RestoredCheckpoint{done.name, done.emergency != 0};
}

SaveOutcome RunCheckpoints::save(std::int32_t kind, std::uint64_t step, bool blocking) {
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = kind;
  args.flags = blocking ? FRUGAL_CKPT_SAVE_WAIT : 0u;
  args.step = step;
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

RunCheckpoints::Emergency RunCheckpoints::emergency_save(std::uint64_t step, double deadline_s) {
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = FRUGAL_CKPT_HEARTBEAT;
  args.step = step;
  frugal_ckpt_emergency_result result{};
  result.struct_size = sizeof(result);
  check(frugal_ckpt_emergency_save(engine_.get(), &args, deadline_s, &result));
  return Emergency{result.name, result.committed != 0, result.seconds};
}

void RunCheckpoints::wait() { check(frugal_ckpt_wait(engine_.get(), nullptr)); }

}  // namespace frugal_demo
