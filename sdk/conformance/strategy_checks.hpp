// strategy_checks.hpp — what every kind's checks share: the strategy under
// test, the sink its verdicts go to, and helpers for the recurring rules.
#pragma once
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "frugal/frugal.h"
#include "frugal/plugin.h"
#include "kit_options.hpp"
#include "report.hpp"

namespace frugal::conformance {

// Receives verdicts; begin() names the rule about to run, so a crash can be
// blamed on it.
struct Sink {
  std::function<void(const std::string& rule)> begin;
  std::function<void(Outcome outcome, const std::string& rule, const std::string& message)> verdict;
};

// One strategy under test.
struct Subject {
  std::string plugin_path;
  std::string name;   // short name
  std::string label;  // "plugin/name"
  int32_t kind = 0;
  uint32_t flags = 0;
  const std::vector<OptionArg>* option_args = nullptr;
  std::vector<DeclaredOption> declared;  // what it declares, as the core reports it
  // It chains a frugal_strategy_options_ext (possibly of 0 options); set
  // once the plugin is loaded directly, the only place that tells "declares
  // no option" from "declares nothing".
  bool declares_options = false;
  std::string tmpdir;  // fresh per strategy
  const frugal_host_api* host = nullptr;
  const void* vtable = nullptr;       // the kind's vtable, loaded directly
  frugal_context* context = nullptr;  // the plugin loaded by the core
};

// The slots every kind's vtable starts with.
struct CommonSlots {
  size_t struct_size;
  frugal_error* (*create)(const frugal_host_api*, const frugal_options*, void**);
  void (*destroy)(void*);
};

// An error returned to us: destroyed on scope exit.
class Error {
 public:
  explicit Error(frugal_error* e = nullptr) : e_(e) {}
  ~Error() { frugal_error_destroy(e_); }
  Error(const Error&) = delete;
  Error& operator=(const Error&) = delete;
  Error(Error&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  explicit operator bool() const { return e_ != nullptr; }
  [[nodiscard]] int32_t code() const { return frugal_error_code(e_); }
  // "CODE (message)" or "OK".
  [[nodiscard]] std::string describe() const;
  // Gives the error up (to a function that takes ownership).
  frugal_error* release() {
    frugal_error* e = e_;
    e_ = nullptr;
    return e;
  }

 private:
  frugal_error* e_;
};

// An options object destroyed on scope exit.
struct Options {
  frugal_options* p = nullptr;
  explicit Options(frugal_options* o) : p(o) {}
  ~Options() { frugal_options_destroy(p); }
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;
};

// A plugin instance made through the vtable directly, destroyed on exit.
class Instance {
 public:
  Instance() = default;
  Instance(void* p, void (*destroy)(void*)) : p_(p), destroy_(destroy) {}
  ~Instance() { reset(); }
  Instance(Instance&& o) noexcept : p_(o.p_), destroy_(o.destroy_) { o.p_ = nullptr; }
  Instance& operator=(Instance&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = o.p_;
      destroy_ = o.destroy_;
      o.p_ = nullptr;
    }
    return *this;
  }
  [[nodiscard]] void* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }
  void reset() {
    if (p_ != nullptr) destroy_(p_);
    p_ = nullptr;
  }

 private:
  void* p_ = nullptr;
  void (*destroy_)(void*) = nullptr;
};

class Checks {
 public:
  Checks(const Subject& subject, Sink& sink) : s(subject), sink_(sink) {}
  const Subject& s;

  void begin(const std::string& rule) { sink_.begin(rule); }
  void pass(const std::string& rule, const std::string& message) { sink_.verdict(Outcome::pass, rule, message); }
  void fail(const std::string& rule, const std::string& message) {
    ++failures_;
    sink_.verdict(Outcome::fail, rule, message);
  }
  // The rule could not run; `why` says what it would need.
  void skip(const std::string& rule, const std::string& why) { sink_.verdict(Outcome::skip, rule, why); }
  void check(bool ok, const std::string& rule, const std::string& message) {
    ok ? pass(rule, message) : fail(rule, message);
  }
  // PASS when `e` is an error (of `want`, when not FRUGAL_OK): the call
  // `what` (e.g. "lr(step -1)") was refused as the rule requires.
  bool expect_error(const std::string& rule, const std::string& what, frugal_error* e, int32_t want = FRUGAL_OK);
  // PASS when `e` is NULL.
  bool expect_ok(const std::string& rule, const std::string& what, frugal_error* e);
  [[nodiscard]] int failures() const { return failures_; }
  // What the kind's *_core check computed through libfrugal, for the direct
  // stage to compare with the same call made on the vtable (empty: none).
  std::vector<unsigned char> core_result;

  // The options the kit creates this strategy with: built values of the
  // declared required options and the --option values (throws
  // std::runtime_error). `omit`: leave that option out.
  [[nodiscard]] frugal_options* user_options(const std::string& omit = "") const;
  // Creates an instance through the vtable with the user's options; on
  // failure records the "create" rule and returns an empty Instance.
  Instance create(const char* rule = "create");

 private:
  Sink& sink_;
  int failures_ = 0;
};

// Bitwise equality of two values, for determinism checks.
template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// An argument struct followed by a zeroed tail, as a newer core would
// build it (set args.struct_size to sizeof(Larger) to send the tail).
template <typename Args>
struct Larger {
  Args args;
  unsigned char tail[64];
};

// Runs fn(i) on `threads` threads at once, started together.
void run_concurrently(int threads, const std::function<void(int)>& fn);

// The rules of every kind: create, unknown option refused, NULL instance
// out refused. Then each kind's own: *_core through the public API of its
// kind (the core's output checks see what the plugin produces), the other
// through the vtable directly.
bool check_common_create(Checks& c);

// export_state / import_state slots (policy, quantizer, router share them).
struct StateSlots {
  frugal_error* (*export_state)(void*, void*, size_t, size_t*);
  frugal_error* (*import_state)(void*, const void*, size_t);
};
// Exports `from`'s state; empty on error (recorded under rule "state").
std::vector<unsigned char> export_blob(Checks& c, const StateSlots& slots, void* from);
// The state rules: size query, NULL size refused, a blob imported into a
// fresh instance, a corrupted or truncated blob refused. `fresh` is a new
// instance; `after(instance)` is what the instance answers next (compared
// bytewise between `from` and the importer, so state must restore exactly).
void check_state(Checks& c, const StateSlots& slots, void* from, Instance fresh,
                 const std::function<std::vector<unsigned char>(void*)>& after);
void check_schedule_core(Checks& c);
void check_schedule(Checks& c);
void check_store_core(Checks& c);
void check_store(Checks& c);
void check_packer_core(Checks& c);
void check_packer(Checks& c);
void check_policy(Checks& c);
void check_quantizer_core(Checks& c);
void check_quantizer(Checks& c);
void check_router_core(Checks& c);
void check_router(Checks& c);
void check_comm_core(Checks& c);
void check_comm(Checks& c);
// The option rules (check_options.cpp): the declarations agree with what
// create accepts when called directly, without the core's checks.
void check_declared_options(Checks& c);

// Every check of one strategy: through the core (a context of its own),
// then directly, then the leak rule; records verdicts in `sink`.
void check_strategy(Subject subject, Sink& sink);

}  // namespace frugal::conformance
