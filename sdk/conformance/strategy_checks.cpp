#include "strategy_checks.hpp"

#include <barrier>
#include <memory>
#include <stdexcept>
#include <thread>

#include "direct_plugin.hpp"

namespace frugal::conformance {

std::string Error::describe() const {
  if (e_ == nullptr) return "OK";
  return std::string(frugal_error_code_name(frugal_error_code(e_))) + " (" + frugal_error_message(e_) + ")";
}

bool Checks::expect_error(const std::string& rule, const std::string& what, frugal_error* e, int32_t want) {
  const Error err(e);
  if (!err) {
    fail(rule, what + " succeeded; it must return an error");
    return false;
  }
  if (want != FRUGAL_OK && err.code() != want) {
    fail(rule, what + " -> " + err.describe() + "; expected " + frugal_error_code_name(want));
    return false;
  }
  pass(rule, what + " -> " + frugal_error_code_name(err.code()));
  return true;
}

bool Checks::expect_ok(const std::string& rule, const std::string& what, frugal_error* e) {
  const Error err(e);
  if (err) {
    fail(rule, what + " failed: " + err.describe());
    return false;
  }
  pass(rule, what + " succeeded");
  return true;
}

frugal_options* Checks::user_options(const std::string& omit) const {
  return make_options(*s.option_args, s.name, s.tmpdir, s.declared, omit);
}

Instance Checks::create(const char* rule) {
  const auto* slots = static_cast<const CommonSlots*>(s.vtable);
  const Options options(user_options());
  void* p = nullptr;
  const Error e(slots->create(s.host, options.p, &p));
  if (e) {
    fail(rule, "needs options (pass --option " + s.name + ".key=value): " + e.describe());
    return {};
  }
  if (p == nullptr) {
    fail(rule, "create succeeded with a NULL instance (the header requires non-NULL on success)");
    return {};
  }
  return Instance(p, slots->destroy);
}

void run_concurrently(int threads, const std::function<void(int)>& fn) {
  std::barrier start(threads);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&, i] {
      start.arrive_and_wait();
      fn(i);
    });
  for (auto& t : pool) t.join();
}

bool check_common_create(Checks& c) {
  const auto* slots = static_cast<const CommonSlots*>(c.s.vtable);
  c.begin("create");
  {
    Instance made = c.create();
    if (!made) return false;
    c.pass("create", "create with the given options gives an instance");
  }
  c.begin("unknown-option");
  {
    const Options options(c.user_options());
    if (const Error set(frugal_options_set_int(options.p, "conformance_no_such_option", 1)); set) {
      c.fail("unknown-option", "frugal_options_set_int: " + set.describe());
      return false;
    }
    void* p = nullptr;
    frugal_error* e = slots->create(c.s.host, options.p, &p);
    if (e == nullptr && p != nullptr) slots->destroy(p);
    c.expect_error("unknown-option",
                   "create with option 'conformance_no_such_option' (vtable header: unknown "
                   "options must be reported as errors)",
                   e);
  }
  c.begin("null-arguments");
  {
    const Options options(c.user_options());
    c.expect_error("null-arguments", "create(instance out NULL)", slots->create(c.s.host, options.p, nullptr));
  }
  return true;
}

namespace {

// The required options neither the declaration nor --option gives a value.
std::vector<std::string> unbuilt_options(const Subject& s) {
  std::vector<std::string> out;
  for (const DeclaredOption& o : s.declared)
    if (o.required() && !o.buildable() && !given_by_user(*s.option_args, s.name, o.name)) out.push_back(o.name);
  return out;
}

// One SKIP line for every rule that needs an instance, naming the options.
void skip_instance_rules(Checks& c, const std::vector<std::string>& unbuilt) {
  std::string names, args;
  for (const std::string& name : unbuilt) {
    names += (names.empty() ? "'" : ", '") + name + "'";
    args += " --option " + c.s.name + "." + name + "=VALUE";
  }
  const bool one = unbuilt.size() == 1;
  c.skip("create", std::string("with every rule that needs an instance (core, create, the kind's rules, option-*): "
                               "required option") +
                       (one ? " " : "s ") + names + (one ? " is" : " are") +
                       " a string without choices, so no valid value can be built from its declaration; pass" + args);
}

// Whether the descriptor chains option declarations (FRUGAL_EXT_STRATEGY_OPTIONS).
bool chains_options(const frugal_strategy_desc& desc) {
  constexpr size_t kMaxChainLinks = 64;  // plugin.h: the core reads at most 64
  if (desc.struct_size < offsetof(frugal_strategy_desc, ext) + sizeof desc.ext) return false;
  size_t links = 0;
  for (const frugal_ext_header* link = desc.ext; link != nullptr && links < kMaxChainLinks; link = link->next, ++links)
    if (link->type == FRUGAL_EXT_STRATEGY_OPTIONS) return true;
  return false;
}

struct KindChecks {
  void (*core)(Checks&);
  void (*direct)(Checks&);
};

KindChecks kind_checks(int32_t kind) {
  switch (kind) {
    case FRUGAL_KIND_SCHEDULE: return {&check_schedule_core, &check_schedule};
    case FRUGAL_KIND_STORE: return {&check_store_core, &check_store};
    case FRUGAL_KIND_PACKER: return {&check_packer_core, &check_packer};
    case FRUGAL_KIND_POLICY: return {nullptr, &check_policy};
    case FRUGAL_KIND_QUANTIZER: return {&check_quantizer_core, &check_quantizer};
    case FRUGAL_KIND_ROUTER: return {&check_router_core, &check_router};
    case FRUGAL_KIND_COMM: return {&check_comm_core, &check_comm};
    default: return {nullptr, nullptr};
  }
}

}  // namespace

void check_strategy(Subject subject, Sink& sink) {
  Checks c(subject, sink);
  const KindChecks kind = kind_checks(subject.kind);
  if (kind.direct == nullptr) {
    c.skip("kind", std::string("kind ") + frugal_strategy_kind_name(subject.kind) + " has no checks");
    frugal_context_destroy(subject.context);
    return;
  }
  // Without a value for every required option no instance can be made:
  // the rules that need one would only report that.
  const std::vector<std::string> unbuilt = unbuilt_options(subject);
  if (!unbuilt.empty()) {
    skip_instance_rules(c, unbuilt);
  } else {
    try {
      if (kind.core != nullptr) kind.core(c);
    } catch (const std::exception& e) {
      c.fail("core", e.what());
    }
  }
  // The core unloads the plugin before it is loaded directly, so init runs
  // once per load as plugin.h promises the plugin.
  frugal_context_destroy(subject.context);
  subject.context = nullptr;

  std::unique_ptr<DirectPlugin> plugin;
  c.begin("direct-load");
  try {
    plugin = std::make_unique<DirectPlugin>(subject.plugin_path);
  } catch (const std::exception& e) {
    c.fail("direct-load", e.what());
    return;
  }
  const frugal_strategy_desc* desc = plugin->strategy(subject.kind, subject.name);
  if (desc == nullptr) {
    c.fail("descriptor", "a second load does not declare the same strategy (descriptors must stay unchanged)");
    return;
  }
  subject.host = plugin->host();
  subject.vtable = desc->vtable;
  subject.declares_options = chains_options(*desc);
  bool created = false;
  try {
    created = unbuilt.empty() && check_common_create(c);
    if (created) kind.direct(c);
  } catch (const std::exception& e) {
    c.fail("direct", e.what());
  }
  try {
    if (created) check_declared_options(c);
  } catch (const std::exception& e) {
    c.fail("options", e.what());
  }
  const long before = DirectPlugin::outstanding();
  plugin->unload();
  const long leaked = DirectPlugin::outstanding();
  c.begin("leaks");
  c.check(leaked == 0, "leaks",
          leaked == 0 ? "every host->alloc block was given back to host->free (plugin.h: the plugin frees it "
                        "before it unloads)"
                      : std::to_string(leaked) + " host->alloc block(s) never freed (" + std::to_string(before) +
                            " before on_unload); plugin.h: the plugin frees it with free before it unloads");
}

}  // namespace frugal::conformance
