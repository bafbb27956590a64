#include "plugin/router.hpp"

#include <algorithm>
#include <string>

#include "algorithms/dispatch_plan.hpp"
#include "algorithms/expert_choice.hpp"
#include "algorithms/permute.hpp"
#include "plugin/plan_views.hpp"

namespace frugal::router::plugin {
namespace {

using sdk::PluginError;

std::string device_name(const frugal_device& d) {
  if (d.type == FRUGAL_DEVICE_CPU) return "CPU";
  if (d.type == FRUGAL_DEVICE_CUDA) return "CUDA:" + std::to_string(d.id);
  return "device type " + std::to_string(d.type);
}

// Runs on_cpu() or on_cuda() by the device, turning the algorithms' and the
// CUDA path's exceptions into frugal errors: RouterError (bad input, e.g. a
// NaN logit) -> INVALID_ARGUMENT, UnsupportedDevice -> UNSUPPORTED,
// CudaFailure -> DEVICE.
template <class Cpu, class Cuda>
void on_device(const frugal_device& device, const char* what, Cpu on_cpu, Cuda on_cuda) {
  try {
    if (device.type == FRUGAL_DEVICE_CPU) return on_cpu();
    if (device.type == FRUGAL_DEVICE_CUDA) return on_cuda();
  } catch (const RouterError& e) {
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string(what) + ": " + e.what());
  } catch (const cuda::UnsupportedDevice& e) {
    throw PluginError(FRUGAL_ERR_UNSUPPORTED, "tensors on " + device_name(device) + ": " + e.what());
  } catch (const cuda::CudaFailure& e) {
    throw PluginError(FRUGAL_ERR_DEVICE, "tensors on " + device_name(device) + ": " + e.what());
  }
  throw PluginError(FRUGAL_ERR_UNSUPPORTED,
                    std::string(what) + ": tensors on " + device_name(device) + " (router_moe runs on CPU and CUDA)");
}

cuda::Element element_of(const frugal_tensor& t) {
  return t.dtype == FRUGAL_DTYPE_FLOAT32 ? cuda::Element::f32 : cuda::Element::bf16;
}

}  // namespace

MoeRouter::MoeRouter(RouterKind kind, const sdk::Options& options) : config_(read_config(kind, options)) {
  if (kind == RouterKind::deepseek_v3) balancer_.emplace(config_.experts, config_.gamma);
  if (frugal_comm* comm = options.get_comm("ep_comm"); comm != nullptr) {
    group_.emplace(options.host(), comm);
    if (group_->ranks() > config_.experts)
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'ep_comm' has " + std::to_string(group_->ranks()) +
                                                         " ranks for " + std::to_string(config_.experts) +
                                                         " experts; every rank must own at least one expert");
    if (group_->device_type() != FRUGAL_DEVICE_CPU)
      throw PluginError(FRUGAL_ERR_UNSUPPORTED,
                        "option 'ep_comm' is a device comm; expert parallelism runs on host tensors over a host comm "
                        "(comm_mpi, comm_local) for now");
  }
}

frugal_route_layout MoeRouter::layout() const {
  frugal_route_layout l = layout_of(config_);
  if (group_) {
    l.ep_rank = static_cast<int32_t>(group_->rank());
    l.ep_ranks = static_cast<int32_t>(group_->ranks());
  }
  return l;
}

std::vector<float> MoeRouter::bias_snapshot() const {
  if (!balancer_) return {};
  const std::lock_guard lock(mutex_);
  return {balancer_->bias().begin(), balancer_->bias().end()};
}

void MoeRouter::route(const frugal_route_call& args) const {
  on_device(
      args.logits->device, "route", [&] { route_cpu(args); }, [&] { route_cuda(args); });
}

void MoeRouter::route_cpu(const frugal_route_call& args) const {
  if (group_) return route_group(args);
  const Logits logits = logits_of(*args.logits);
  const PlanSpans out = plan_spans(*args.plan);
  switch (config_.kind) {
    case RouterKind::topk_softmax: {
      const TopkSoftmaxResult r = topk_softmax(logits, config_.topk);
      write_routing(r.routing, out);
      write_plan(build_dispatch_plan(r.routing, config_.capacity), r.mean_prob, r.aux_loss, r.z_loss, out);
      return;
    }
    case RouterKind::deepseek_v3: {
      const std::vector<float> bias = bias_snapshot();
      const DeepSeekGateResult r = deepseek_v3_route(logits, bias, config_.deepseek);
      write_routing(r.routing, out);
      write_plan(build_dispatch_plan(r.routing, config_.capacity), r.mean_prob, r.aux_loss, r.z_loss, out);
      return;
    }
    case RouterKind::expert_choice: {
      const ExpertChoiceResult r =
          expert_choice_route(logits, ExpertChoiceOptions{config_.capacity.capacity_factor, config_.threads});
      // Balanced by construction: no load-balancing loss, and no z-loss option.
      write_plan(r.plan, r.mean_prob, 0.0f, 0.0f, out);
      return;
    }
  }
}

void MoeRouter::route_cuda(const frugal_route_call& args) const {
  if (group_)
    throw PluginError(FRUGAL_ERR_UNSUPPORTED,
                      "route: CUDA tensors with ep_comm; expert parallelism runs on host tensors for now");
  cuda::RouteRequest q;
  q.kind = config_.kind;
  q.logits = logits_of(*args.logits);
  q.k = config_.k;
  q.renormalize = config_.topk.renormalize;
  q.aux_coef = config_.kind == RouterKind::deepseek_v3 ? config_.deepseek.aux_coef : config_.topk.aux_coef;
  q.z_coef = config_.kind == RouterKind::deepseek_v3 ? config_.deepseek.z_coef : config_.topk.z_coef;
  q.score = config_.deepseek.score;
  q.groups = config_.deepseek.groups;
  q.topk_groups = config_.deepseek.topk_groups;
  q.route_scale = config_.deepseek.route_scale;
  const std::vector<float> bias = bias_snapshot();
  q.bias = bias.empty() ? nullptr : bias.data();
  q.policy = config_.capacity.policy;
  if (config_.kind == RouterKind::expert_choice) {
    q.capacity = expert_choice_capacity(q.logits.rows(), q.logits.cols(), config_.capacity.capacity_factor);
  } else if (q.policy != DropPolicy::dropless) {
    q.capacity = expert_capacity(q.logits.rows(), q.k, q.logits.cols(), config_.capacity.capacity_factor);
  }
  q.stream = args.stream;
  cuda::route(q, device_plan(plan_spans(*args.plan)));
}

void MoeRouter::permute(const frugal_route_move_call& args) const {
  const frugal_tensor& x = *args.input;
  const sdk::MatrixView<const void> in = rows_of<const void>(x);
  const sdk::MatrixView<void> out = rows_of<void>(*args.output);
  const std::span<int64_t> row_token = plan_spans(*args.plan).row_token;
  on_device(
      x.device, "permute",
      [&] {
        if (x.dtype == FRUGAL_DTYPE_FLOAT32) {
          permute_rows<float>(row_token, in.as<const float>(), out.as<float>(), config_.threads);
        } else {
          permute_rows<uint16_t>(row_token, in.as<const uint16_t>(), out.as<uint16_t>(), config_.threads);
        }
      },
      [&] {
        cuda::permute(row_token.data(), static_cast<int64_t>(row_token.size()), in.data(), in.row_stride(), out.data(),
                      out.row_stride(), in.cols(), element_of(x), args.stream);
      });
}

void MoeRouter::combine(const frugal_route_move_call& args) const {
  const frugal_tensor& y = *args.input;
  const sdk::MatrixView<const void> in = rows_of<const void>(y);
  const sdk::MatrixView<void> out = rows_of<void>(*args.output);
  const PlanSpans plan = plan_spans(*args.plan);
  on_device(
      y.device, "combine",
      [&] {
        if (y.dtype == FRUGAL_DTYPE_FLOAT32) {
          combine_rows<float>(plan.token_offsets, plan.token_rows, plan.row_weight, in.as<const float>(),
                              out.as<float>(), config_.threads);
        } else {
          combine_rows<uint16_t>(plan.token_offsets, plan.token_rows, plan.row_weight, in.as<const uint16_t>(),
                                 out.as<uint16_t>(), config_.threads);
        }
      },
      [&] {
        cuda::combine(plan.token_offsets.data(), plan.token_rows.data(), plan.row_weight.data(), out.rows(), in.data(),
                      in.row_stride(), out.data(), out.row_stride(), in.cols(), element_of(y), args.stream);
      });
}

void MoeRouter::update(const frugal_router_update_call& args) {
  // Refused even without a bias: frugal/router.h makes expert_load required.
  if (args.expert_load == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "update: expert_load is NULL");
  if (!balancer_) return;
  const frugal_tensor& t = *args.expert_load;
  const std::span<const int64_t> load(static_cast<const int64_t*>(t.data), static_cast<std::size_t>(t.shape[0]));
  const std::lock_guard lock(mutex_);
  try {
    balancer_->update(load);
  } catch (const RouterError& e) {
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string("update: ") + e.what());
  }
}

std::vector<std::byte> MoeRouter::export_state() const {
  if (!balancer_) return {};
  const std::lock_guard lock(mutex_);
  return balancer_->export_state();
}

void MoeRouter::import_state(std::span<const std::byte> blob) {
  if (!balancer_) {
    if (!blob.empty())
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "import_state: this router keeps no state; got a " +
                                                         std::to_string(blob.size()) + "-byte blob");
    return;
  }
  std::optional<BiasBalancer> restored;
  try {
    restored.emplace(BiasBalancer::import_state(blob));
  } catch (const PluginError& e) {
    throw PluginError(e.code(), std::string("import_state: ") + e.what());
  }
  if (static_cast<int64_t>(restored->bias().size()) != config_.experts)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                      "import_state: the state holds " + std::to_string(restored->bias().size()) +
                          " expert biases; this router has " + std::to_string(config_.experts) + " experts");
  if (restored->gamma() != config_.gamma)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "import_state: the state was made with gamma " +
                                                       std::to_string(restored->gamma()) + "; this router has " +
                                                       std::to_string(config_.gamma));
  const std::lock_guard lock(mutex_);
  balancer_ = std::move(restored);
}

}  // namespace frugal::router::plugin
