// Declarations the core would refuse, one per FRUGAL_BAD_DECLARATION value;
// each must fail to compile with the rule's name in the error (see
// CMakeLists.txt). Without the macro it is a valid declaration that must
// compile, so a broken include path cannot pass as a refusal.
#include <array>

#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/schedule_adapter.hpp"

namespace {

struct Flat {
  explicit Flat(const frugal::sdk::Options&) {}
  double lr(int64_t) const { return 1.0; }
};

using frugal::sdk::schedule_strategy;

#ifndef FRUGAL_BAD_DECLARATION
#define FRUGAL_BAD_DECLARATION 0
#endif

#if FRUGAL_BAD_DECLARATION == 1  // strategy name with an upper-case letter
constexpr frugal_strategy_desc kStrategies[] = {schedule_strategy<Flat>("Flat", "", 0)};
#elif FRUGAL_BAD_DECLARATION == 2  // empty strategy name
constexpr frugal_strategy_desc kStrategies[] = {schedule_strategy<Flat>("", "", 0)};
#elif FRUGAL_BAD_DECLARATION == 3  // the same (kind, name) twice
constexpr frugal_strategy_desc kStrategies[] = {schedule_strategy<Flat>("flat", "", 0),
                                                schedule_strategy<Flat>("flat", "", 0)};
#elif FRUGAL_BAD_DECLARATION == 5  // no strategy at all
constexpr std::array<frugal_strategy_desc, 0> kStrategies{};
#elif FRUGAL_BAD_DECLARATION == 6  // a strategy without a vtable
constexpr frugal_strategy_desc kStrategies[] = {
    {sizeof(frugal_strategy_desc), FRUGAL_KIND_SCHEDULE, 0, "flat", "", nullptr, nullptr}};
#elif FRUGAL_BAD_DECLARATION == 8  // a 65-byte strategy name (64 is the most)
constexpr frugal_strategy_desc kStrategies[] = {
    schedule_strategy<Flat>("a1234567890123456789012345678901234567890123456789012345678901234", "", 0)};
#else                              // valid: the whole grammar, and one name under two kinds would be fine too
constexpr frugal_strategy_desc kStrategies[] = {
    schedule_strategy<Flat>("flat", "", 0), schedule_strategy<Flat>("flat.v2-b", "", 0),
    schedule_strategy<Flat>("a123456789012345678901234567890123456789012345678901234567890123", "", 0)};
#endif

#if FRUGAL_BAD_DECLARATION == 4  // plugin name with a space
constexpr const char* kName = "my plugin";
#elif FRUGAL_BAD_DECLARATION == 7  // no vendor
constexpr const char* kName = "my_plugin";
#define FRUGAL_TEST_VENDOR ""
#else
constexpr const char* kName = "my_plugin";
#endif
#ifndef FRUGAL_TEST_VENDOR
#define FRUGAL_TEST_VENDOR "Example"
#endif

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>(
    {.name = kName, .version = "1.0", .vendor = FRUGAL_TEST_VENDOR, .license = "MIT"});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
