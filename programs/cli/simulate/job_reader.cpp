#include "job_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "input_error.hpp"
#include "input_limits.hpp"
#include "json_fields.hpp"
#include "loss_model.hpp"
#include "text_input.hpp"

namespace frugal::simulate {
namespace {

// The largest documented values of fields whose products the engine
// forms: keeping each finite keeps every product finite (a GPU at 1e12
// tokens/s on 1e5 nodes of 1024 GPUs is 1e20 tokens/s; prices times
// nodes times seconds stay far below the double range; kMaxPrice is in
// input_limits.hpp, shared with the traces).
constexpr double kMaxWorkTokens = 1e18;
constexpr double kMaxTokensPerGpuS = 1e12;
// A telemetry record counts processed tokens in an int64_t: a plan's
// tokens (the work plus its padding) must fit with room to spare.
constexpr double kMaxPlanTokens = 4611686018427387904.0;  // 2^62

bool known_name(const std::vector<std::string>& names, const std::string& name) {
  if (names.empty()) return true;
  // "plugin/name" qualifies a strategy; the part after the slash is its name.
  const std::string bare = name.substr(name.find('/') == std::string::npos ? 0 : name.find('/') + 1);
  return std::find(names.begin(), names.end(), bare) != names.end();
}

std::string listing(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool valid_option_name(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  });
}

// A JSON object of option values: integers become INT (readable as double
// too), other numbers DOUBLE, true/false BOOL, strings STRING.
std::vector<OptionValue> read_options(const JsonValue& object, const std::string& path, const std::string& source) {
  if (!object.is_object()) fail_in(source, fmt::format("{} must be an object, got {}", path, json_kind_name(object)));
  std::vector<OptionValue> options;
  for (const auto& member : object.items()) {
    const std::string& name = member.key();
    const JsonValue& value = member.value();
    if (!valid_option_name(name))
      fail_in(source, fmt::format("{}: option name '{}' is not 1-128 characters of [A-Za-z0-9_.-]", path, name));
    OptionValue option;
    option.name = name;
    if (value.is_number()) {
      const double number = json_number(value);
      if (number == std::floor(number) && std::abs(number) <= 9.007199254740992e15) {
        option.type = OptionValue::Type::kInt;
        option.int_value = static_cast<int64_t>(number);
      } else {
        option.type = OptionValue::Type::kDouble;
        option.double_value = number;
      }
    } else if (value.is_boolean()) {
      option.type = OptionValue::Type::kBool;
      option.bool_value = value.get<bool>();
    } else if (value.is_string()) {
      option.type = OptionValue::Type::kString;
      option.string_value = value.get<std::string>();
    } else {
      fail_in(source,
              fmt::format("{}.{} must be a number, true/false or a string, got {}", path, name, json_kind_name(value)));
    }
    options.push_back(std::move(option));
  }
  return options;
}

PolicySpec read_policy(const JsonValue& item, const std::string& path, const std::string& source,
                       const KnownStrategies& known) {
  PolicySpec policy;
  if (item.is_string()) {
    policy.name = item.get<std::string>();
  } else {
    JsonFields fields(item, path, source);
    policy.name = fields.string("name");
    if (const JsonValue* options = fields.object("options", true))
      policy.options = read_options(*options, path + ".options", source);
    fields.finish();
  }
  if (!known_name(known.policies, policy.name))
    fail_in(source, fmt::format("{}: unknown policy '{}' (known: {})", path, policy.name, listing(known.policies)));
  return policy;
}

int32_t read_resource(JsonFields& fields, const std::string& key, int32_t fallback) {
  if (!fields.has(key)) return fallback;
  const std::string text = fields.string(key);
  if (text == "spot") return FRUGAL_RESOURCE_SPOT;
  if (text == "reserved") return FRUGAL_RESOURCE_RESERVED;
  fields.fail(fmt::format("{} must be \"spot\" or \"reserved\", got \"{}\"", fields.path_of(key), text));
}

PlanSpec read_plan(const JsonValue& item, const std::string& path, const Job& job, const KnownStrategies& known) {
  JsonFields fields(item, path, job.source);
  PlanSpec plan;
  plan.name = fields.string("name");
  if (plan.name.empty()) fields.fail(path + ".name must not be empty");
  plan.description = fields.string("description", "");
  plan.resource = read_resource(fields, "resource", FRUGAL_RESOURCE_SPOT);
  plan.nodes = static_cast<uint32_t>(fields.integer("nodes", 1, 100000, job.nodes));
  plan.padding_fraction = fields.number("padding_fraction", 0.0, 0.99, 0.0);
  if (!(plan_tokens(job, plan) <= kMaxPlanTokens))
    fields.fail(
        fmt::format("{}.padding_fraction {} makes the plan process {:.3g} tokens (the work / (1 - "
                    "padding_fraction)), more than the {:.3g} a telemetry record can count",
                    path, plan.padding_fraction, plan_tokens(job, plan), kMaxPlanTokens));
  plan.schedule = fields.string("schedule", "");
  if (!plan.schedule.empty() && !known_name(known.schedules, plan.schedule))
    fields.fail(fmt::format("{}.schedule: unknown LR schedule '{}' (known: {})", path, plan.schedule,
                            listing(known.schedules)));
  if (const JsonValue* options = fields.object("schedule_options", true)) {
    if (plan.schedule.empty()) fields.fail(path + ".schedule_options given without a schedule");
    plan.schedule_options = read_options(*options, path + ".schedule_options", job.source);
  }
  if (const JsonValue* policies = fields.array("policies", true)) {
    for (size_t i = 0; i < policies->size(); ++i)
      plan.policies.push_back(read_policy((*policies)[i], fmt::format("{}.policies[{}]", path, i), job.source, known));
    if (plan.policies.size() > 64) fields.fail(path + ".policies: at most 64 policies");
  }
  fields.finish();
  return plan;
}

void read_work(JsonFields& top, Job& job) {
  JsonFields work(*top.object("work", false), "work", job.source);
  JsonFields throughput(*top.object("throughput", false), "throughput", job.source);
  job.tokens_per_gpu_s = throughput.number("tokens_per_gpu_s", 1e-9, kMaxTokensPerGpuS);
  job.scaling_efficiency = throughput.number("scaling_efficiency", 0.01, 1.0, 1.0);
  throughput.finish();
  if (work.has("tokens") == work.has("gpu_hours")) work.fail("work needs exactly one of \"tokens\" or \"gpu_hours\"");
  if (work.has("tokens"))
    job.work_tokens = work.number("tokens", 1.0, kMaxWorkTokens);
  else
    job.work_tokens = work.number("gpu_hours", 1e-6, 1e9) * 3600.0 * job.tokens_per_gpu_s;
  if (!(job.work_tokens <= kMaxWorkTokens))
    work.fail(
        fmt::format("work.gpu_hours {} x 3600 x throughput.tokens_per_gpu_s {} is {:.3g} tokens, more than "
                    "work.tokens allows ({:g})",
                    json_number(*work.get("gpu_hours")), job.tokens_per_gpu_s, job.work_tokens, kMaxWorkTokens));
  work.finish();
}

void read_loss(JsonFields& top, Job& job, const std::string& base_dir) {
  const JsonValue* object = top.object("loss", true);
  if (object == nullptr) return;  // the default power law
  JsonFields loss(*object, "loss", job.source);
  const std::string model = loss.string("model", "power_law");
  LossSpec& spec = job.loss;
  if (model == "power_law") {
    spec.kind = LossSpec::Kind::kPowerLaw;
    spec.initial = loss.number("initial", -1e9, 1e9, spec.initial);
    spec.floor = loss.number("floor", -1e9, 1e9, spec.floor);
    if (spec.floor >= spec.initial) loss.fail("loss.floor must be below loss.initial");
    spec.alpha = loss.number("alpha", 1e-6, 10.0, spec.alpha);
    spec.scale_tokens = loss.number("scale_tokens", 1e-9, 1e18, spec.scale_tokens);
  } else if (model == "log") {
    spec.kind = LossSpec::Kind::kLog;
    spec.log_file = loss.string("file");
    std::filesystem::path path(spec.log_file);
    if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
    read_loss_log(read_text_file(path.string()), path.string(), spec);
  } else {
    loss.fail(fmt::format("loss.model must be \"power_law\" or \"log\", got \"{}\"", model));
  }
  spec.noise = loss.number("noise", 0.0, 1.0, 0.0);
  spec.eval_noise = loss.number("eval_noise", 0.0, 1.0, spec.noise);
  loss.finish();
}

void read_costs(JsonFields& top, Job& job) {
  JsonFields checkpoint(*top.object("checkpoint", false), "checkpoint", job.source);
  job.checkpoint_full_s = checkpoint.number("full_s", 0.0, 1e6);
  job.checkpoint_heartbeat_s = checkpoint.number("heartbeat_s", 0.0, 1e6);
  job.checkpoint_every_steps = checkpoint.integer("every_steps", 1, INT64_MAX, job.checkpoint_every_steps);
  job.heartbeat_interval_s = checkpoint.number("heartbeat_interval_s", 1.0, 1e9, job.heartbeat_interval_s);
  checkpoint.finish();
  job.restart_s = top.number("restart_s", 0.0, 1e7, job.restart_s);

  JsonFields prices(*top.object("prices", false), "prices", job.source);
  job.spot_price = prices.number("spot", 0.0, kMaxPrice);
  job.reserved_price = prices.number("reserved", 0.0, kMaxPrice);
  prices.finish();

  if (const JsonValue* object = top.object("preemption", true)) {
    JsonFields preemption(*object, "preemption", job.source);
    auto& p = job.preemption;
    p.spot_mtbf_node_h = preemption.number("spot_mtbf_node_h", 0.0, 1e9, p.spot_mtbf_node_h);
    p.capacity_wait_mean_s = preemption.number("capacity_wait_mean_s", 0.0, 1e9, p.capacity_wait_mean_s);
    p.notice_s = preemption.number("notice_s", 0.0, 3600.0, p.notice_s);
    preemption.finish();
  }
}

void check_unique_names(const Job& job) {
  for (size_t i = 0; i < job.plans.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (job.plans[i].name == job.plans[j].name)
        throw InputError(fmt::format("{}: two plans are named '{}'", job.source, job.plans[i].name));
}

}  // namespace

Job parse_job(std::string_view text, const std::string& source, const std::string& base_dir,
              const KnownStrategies& known) {
  const JsonValue root = parse_json(text, source);
  JsonFields top(root, "", source);
  Job job;
  job.source = source;
  job.name = top.string("name");
  job.notes = top.string("notes", "");
  job.gpus_per_node = static_cast<uint32_t>(top.integer("gpus_per_node", 1, 1024));
  job.nodes = static_cast<uint32_t>(top.integer("nodes", 1, 100000, 1));
  read_work(top, job);
  job.tokens_per_step = top.integer("tokens_per_step", 1, INT64_MAX / 4, job.tokens_per_step);
  read_loss(top, job, base_dir);
  read_costs(top, job);
  job.telemetry_interval_s = top.number("telemetry_interval_s", 1.0, 1e7, job.telemetry_interval_s);
  job.max_wall_h = top.number("max_wall_h", 0.0, 1e7, 0.0);

  const JsonValue* plans = top.array("plans", true);
  const bool standard = top.boolean("standard_plans", plans == nullptr);
  if (plans != nullptr) {
    if (plans->empty() && !standard) top.fail("plans is empty (and standard_plans is false)");
    for (size_t i = 0; i < plans->size(); ++i)
      job.plans.push_back(read_plan((*plans)[i], fmt::format("plans[{}]", i), job, known));
  }
  top.finish();
  if (standard)
    for (auto& plan : standard_plans(job)) job.plans.push_back(std::move(plan));
  for (auto& plan : job.plans) fill_job_defaults(job, plan);
  check_unique_names(job);
  return job;
}

Job read_job_file(const std::string& path, const KnownStrategies& known) {
  const std::filesystem::path file(path);
  return parse_job(read_text_file(path), path, file.parent_path().string(), known);
}

}  // namespace frugal::simulate
