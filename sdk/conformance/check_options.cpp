// The option rules: a strategy's declarations against what its
// create accepts when the kit calls it directly through the vtable, where
// the core's checks of the declarations do not run. A declaration states
// what create accepts on its own (plugin.h), so each one is a promise the
// code must keep: its default, each bound and each choice is accepted; the
// value just outside a bound, a string outside the choices and a missing
// required option are refused (with any error: the core gives OUT_OF_RANGE
// for a bound, INVALID_ARGUMENT for the others, before create). A value
// the declaration allows but create refuses with INVALID_ARGUMENT, the
// code of a constraint between options, is a SKIP naming the constraint.
//
// Each option is tried alone: the kit's usual options (built required
// values, --option values) with that one option set, or left out.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "frugal/sdk/option_decl.hpp"
#include "strategy_checks.hpp"

namespace frugal::conformance {

namespace {

// What create answers for the kit's options with `o` set to `value` (left
// out when nullopt); an instance it makes is destroyed at once.
Error create_with(const Checks& c, const DeclaredOption& o, const std::optional<Value>& value) {
  const auto* slots = static_cast<const CommonSlots*>(c.s.vtable);
  const Options options(c.user_options(o.name));
  if (value)
    if (const Error set{value->set(options.p, o.name)})
      throw std::runtime_error("the kit cannot set option '" + o.name + "' = " + value->shown() + ": " +
                               set.describe());
  void* instance = nullptr;
  Error e(slots->create(c.s.host, options.p, &instance));
  if (!e && instance != nullptr) slots->destroy(instance);
  return e;
}

// One rule's lines: a FAIL for each disagreement, else (finish) one PASS
// listing what agreed; nothing when no declaration concerns the rule.
class RuleLines {
 public:
  RuleLines(Checks& c, std::string rule, std::string lead) : c_(c), rule_(std::move(rule)), lead_(std::move(lead)) {
    c_.begin(rule_);
  }
  void finish() {
    if (!failed_ && !agreed_.empty()) c_.pass(rule_, lead_ + agreed_);
  }

  // create must accept o = value; `what` says why ("its declared default").
  // INVALID_ARGUMENT is what a constraint between options gives (plugin.h):
  // a declaration cannot state one, so that refusal is a SKIP naming it.
  void accepted(const DeclaredOption& o, const Value& value, const std::string& what) {
    const Error e = create_with(c_, o, value);
    if (e && e.code() == FRUGAL_ERR_INVALID_ARGUMENT) {
      c_.skip(rule_, "option '" + o.name + "' = " + value.shown() + " (" + what + "): create refuses it with " +
                         e.describe() +
                         ", a constraint between options that no declaration states; give the "
                         "options it depends on with --option to check this value");
      return;
    }
    if (e)
      return disagree(o, value.shown(), what,
                      "create refuses it: " + e.describe() +
                          "; the declaration says "
                          "create accepts it");
    agree(o.name + "=" + value.shown() + " accepted");
  }
  // create must refuse o = value (left out when nullopt).
  void refused(const DeclaredOption& o, const std::optional<Value>& value, const std::string& what,
               const std::string& core) {
    const Error e = create_with(c_, o, value);
    const std::string shown = value ? value->shown() : "(left out)";
    if (!e)
      return disagree(o, shown, what,
                      "create accepts it; the declaration says create refuses it (" + core +
                          ", and create called without the core must refuse it too)");
    agree(o.name + (value ? "=" + shown : " left out") + " -> " + frugal_error_code_name(e.code()));
  }
  void note(const std::string& text) { agree(text); }
  void disagree(const DeclaredOption& o, const std::string& shown, const std::string& what, const std::string& why) {
    failed_ = true;
    c_.fail(rule_, "option '" + o.name + "' = " + shown + " (" + what + "): " + why);
  }

 private:
  void agree(const std::string& text) { agreed_ += (agreed_.empty() ? "" : ", ") + text; }

  Checks& c_;
  std::string rule_;
  std::string lead_;
  std::string agreed_;
  bool failed_ = false;
};

constexpr const char* kRangeByCore = "the core refuses it with OUT_OF_RANGE before create";
constexpr const char* kArgumentByCore = "the core refuses it with INVALID_ARGUMENT before create";

void check_defaults(Checks& c) {
  RuleLines lines(c, "option-defaults", "create accepts each declared default given explicitly: ");
  for (const DeclaredOption& o : c.s.declared)
    if (o.default_value) lines.accepted(o, Value::parsed(*o.default_value), "its declared default");
  lines.finish();
}

// Each bound accepted; for an int min - 1 and max + 1 refused, for a double
// the next double below min and above max (std::nextafter): the closest
// value outside an inclusive bound.
void check_bounds(Checks& c) {
  RuleLines lines(c, "option-bounds", "create accepts each declared bound and refuses the value just outside: ");
  for (const DeclaredOption& o : c.s.declared) {
    for (const bool upper : {false, true}) {
      if (!o.has(upper ? FRUGAL_OPTION_DECL_HAS_MAX : FRUGAL_OPTION_DECL_HAS_MIN)) continue;
      const char* side = upper ? "max" : "min";
      const double bound = upper ? o.max : o.min;
      if (o.type == FRUGAL_OPTION_INT) {
        const int64_t at = int_bound(bound);
        lines.accepted(o, Value::of_int(at), std::string("declared ") + side);
        const int64_t edge = upper ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
        if (at == edge) {
          lines.note(o.name + ": no int64 " + (upper ? "above " : "below ") + std::to_string(at));
          continue;
        }
        lines.refused(o, Value::of_int(upper ? at + 1 : at - 1),
                      std::string(upper ? "above max " : "below min ") + std::to_string(at), kRangeByCore);
      } else {
        lines.accepted(o, Value::of_double(bound), std::string("declared ") + side);
        if (std::isinf(bound)) {
          lines.note(o.name + ": no double " + (upper ? "above " : "below ") + number_text(bound));
          continue;
        }
        const double infinity = std::numeric_limits<double>::infinity();
        std::string what = "the next double ";
        what += upper ? "above max " : "below min ";
        what += number_text(bound);
        lines.refused(o, Value::of_double(std::nextafter(bound, upper ? infinity : -infinity)), what, kRangeByCore);
      }
    }
  }
  lines.finish();
}

void check_choices(Checks& c) {
  RuleLines lines(c, "option-choices", "create accepts each declared choice and refuses any other string: ");
  for (const DeclaredOption& o : c.s.declared) {
    if (!o.choices) continue;
    const std::vector<std::string_view> choices = split_choices(*o.choices);
    for (const std::string_view choice : choices)
      lines.accepted(o, Value::of_string(std::string(choice)), "a declared choice");
    std::string other = "conformance-not-a-choice";
    while (std::find(choices.begin(), choices.end(), other) != choices.end()) other += "-either";
    lines.refused(o, Value::of_string(other), "not among " + *o.choices, kArgumentByCore);
  }
  lines.finish();
}

// The flags: a required option's absence refused; a directory option a
// string, given any fresh directory (what tools that need a valid value
// pass, plugin.h).
void check_flags(Checks& c) {
  RuleLines lines(c, "option-flags",
                  "each declared flag agrees with create (required: refused when left out; directory: a fresh "
                  "directory accepted): ");
  for (const DeclaredOption& o : c.s.declared) {
    if (o.required()) lines.refused(o, std::nullopt, "declared required", kArgumentByCore);
    if (!o.has(FRUGAL_OPTION_DECL_DIRECTORY)) continue;
    if (o.type != FRUGAL_OPTION_STRING || o.choices) {
      lines.disagree(o, "-", "declared directory",
                     std::string("a directory option must be a string without choices; it is a ") +
                         sdk::option_type_name(o.type) + (o.choices ? " with choices " + *o.choices : std::string()));
      continue;
    }
    lines.accepted(o, *built_value(o, c.s.tmpdir), "a fresh empty directory, as declared directory");
  }
  lines.finish();
}

}  // namespace

void check_declared_options(Checks& c) {
  c.begin("options");
  if (!c.s.declares_options)
    return c.skip("options",
                  "declares nothing (no frugal_strategy_options_ext): the core checks no option before "
                  "create and there is no declaration to compare with the code");
  if (c.s.declared.empty())
    return c.skip("options",
                  "declares that it takes no option (option_count 0): no declaration to compare; "
                  "unknown-option shows that create refuses any");
  check_defaults(c);
  check_bounds(c);
  check_choices(c);
  check_flags(c);
}

}  // namespace frugal::conformance
