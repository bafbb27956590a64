// The compatibility matrix (ABI rules 2 and 3): plugins built against other
// minors of this ABI major load in this core and their strategies work
// through the public C API, one row per (built against) case; a plugin built
// against the previous major's headers is refused.
//
// The other direction, a host built against v2.0 struct sizes calling this
// library with smaller structs, is covered where each struct is handled:
//   test_plugin_loading "info structs are written only up to the caller's struct_size"
//   test_packer_api     "stats and view honour a smaller caller struct_size"
//   test_tensor_view (tests/sdk/cpp) and the tensor checks with FRUGAL_TENSOR_MIN_SIZE
// and the C99 sample hosts (samples/) are built exactly as a v2.0 host is.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "compat_probe.h"
#include "frugal/frugal.h"
#include "test_helpers.hpp"

using frugal::test::lr_of;
using frugal::test::outcome;
using frugal::test::plugin_path;

namespace {

struct Row {
  std::string file;           // the plugin
  const char* built_against;  // what the row stands for
  const char* name;           // the plugin's name
  uint32_t abi_minor;         // the minor it declares
  const char* linear;         // its schedule lr = slope * step (default slope 0.5)
  bool probe;                 // it is compat_plugin.cpp and has compat_probe
  double headers_minor;       // compat_probe: FRUGAL_ABI_VERSION_MINOR it was compiled with
};

std::string compat_path(const char* file) { return std::string(FRUGAL_COMPAT_PLUGIN_DIR) + "/" + file; }

const std::vector<Row> kMatrix = {
    {compat_path("compat_v2_0.so"), "the v2.0 headers", "compat_v2_0", 0, "compat_linear", true, 0.0},
    {compat_path("compat_v2_1.so"), "the v2.1 headers", "compat_v2_1", 1, "compat_linear", true, 1.0},
    {compat_path("compat_v2_2.so"), "the v2.2 headers", "compat_v2_2", 2, "compat_linear", true, 2.0},
    {compat_path("compat_v2_3.so"), "the v2.3 headers", "compat_v2_3", 3, "compat_linear", true, 3.0},
    {compat_path("compat_newer_minor.so"), "a later minor's headers: larger structs, extra slots", "compat_newer",
     FRUGAL_ABI_VERSION_MINOR + 1, "compat_linear", true, FRUGAL_ABI_VERSION_MINOR},
    // tests/core/loader/test_plugin.cpp, variants of the loader tests:
    {plugin_path("newer_minor"), "minor 7 with larger descriptors and vtable", "newer", 7, "newer_linear", false, 0},
    {plugin_path("older_minor"), "the smallest legal structs, garbage past them", "older", 0, "older_linear", false, 0},
};

double probe(frugal_context* context, compat_probe_step step) { return lr_of(context, "compat_probe", step); }

#define FRUGAL_COMPAT_STR_(x) #x
#define FRUGAL_COMPAT_STR(x) FRUGAL_COMPAT_STR_(x)
// "this core speaks ABI <major>.<minor>", from the headers this core was built with.
constexpr const char* kCoreSpeaks =
    "this core speaks ABI " FRUGAL_COMPAT_STR(FRUGAL_ABI_VERSION_MAJOR) "." FRUGAL_COMPAT_STR(FRUGAL_ABI_VERSION_MINOR);

}  // namespace

TEST_CASE("compatibility matrix: plugins of every minor of ABI 2 load and work in this core") {
  STATIC_REQUIRE(FRUGAL_ABI_VERSION_MAJOR == 2);
  for (const Row& row : kMatrix) {
    DYNAMIC_SECTION(row.name << ", built against " << row.built_against) {
      frugal::test::CapturingContext c;
      const auto loaded = outcome(frugal_context_load_plugin(c.context.get(), row.file.c_str()));
      INFO(loaded.message);
      REQUIRE(loaded.code == 0);

      frugal_plugin_info info{};
      info.struct_size = sizeof(info);
      REQUIRE(frugal_context_plugin_info(c.context.get(), 0, &info) == nullptr);
      CHECK(std::string(info.name) == row.name);
      CHECK(info.abi_major == FRUGAL_ABI_VERSION_MAJOR);
      CHECK(info.abi_minor == row.abi_minor);
      CHECK(c.logged("newer than this core") == (row.abi_minor > FRUGAL_ABI_VERSION_MINOR));

      // Calls work: defaults, and options that reach the plugin through the host table.
      CHECK(lr_of(c.context.get(), row.linear, 10) == Approx(5.0));
      auto options = frugal::host::make_options();
      frugal::host::check(frugal_options_set_double(options.get(), "slope", 3.0));
      CHECK(lr_of(c.context.get(), row.linear, 5, options.get()) == Approx(15.0));

      if (row.probe) {
        // What the plugin saw: this core's host table, which lacks the later
        // minor's slot, so a correct plugin falls back; and the core never
        // called the vtable slot it does not know.
        CHECK(probe(c.context.get(), kProbeHostStructSize) == static_cast<double>(sizeof(frugal_host_api)));
        CHECK(probe(c.context.get(), kProbeHostStructSize) >= static_cast<double>(FRUGAL_HOST_API_V2_0_SIZE));
        CHECK(probe(c.context.get(), kProbeHostAbiMinor) == FRUGAL_ABI_VERSION_MINOR);
        CHECK(probe(c.context.get(), kProbeUsedNewerHostSlot) == 0.0);
        CHECK(probe(c.context.get(), kProbeNewerVtableSlotCalls) == 0.0);
        CHECK(probe(c.context.get(), kProbeHeadersMinor) == row.headers_minor);
      }
    }
  }
}

TEST_CASE("compatibility matrix: a plugin built against the ABI 1.1 headers is refused, naming both versions") {
  frugal::test::CapturingContext c;
  const std::string file = compat_path("compat_v1_1.so");
  const auto loaded = outcome(frugal_context_load_plugin(c.context.get(), file.c_str()));
  INFO(loaded.message);
  CHECK(loaded.code == FRUGAL_ERR_ABI_MISMATCH);
  CHECK(loaded.message.find(file) != std::string::npos);
  CHECK(loaded.message.find("built for frugal ABI 1.x") != std::string::npos);  // the plugin's version
  CHECK(loaded.message.find("frugal_plugin_init_v1") != std::string::npos);
  CHECK(loaded.message.find(kCoreSpeaks) != std::string::npos);  // the core's
  CHECK(frugal_context_plugin_count(c.context.get()) == 0);
  CHECK(frugal_context_load_failure_count(c.context.get()) == 1);
}
