// A schedule plugin that declares its options and accepts any
// options in create, so a test sees exactly what the core checks. The
// environment variable FRUGAL_TEST_DECL_FAULT, read at init, breaks one
// declaration (names below); a test copies the file once per fault so each
// copy is loaded, and initialised, afresh.
#include <cstdlib>
#include <cstring>

#include "frugal/sdk/option_decl.hpp"
#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/schedule_adapter.hpp"

namespace {

class Echo {
 public:
  explicit Echo(const frugal::sdk::Options& options) : lr_(options.get_double("lr", 0.001)) {}
  double lr(int64_t) const { return lr_; }

 private:
  double lr_;
};

using namespace frugal::sdk;

frugal_option_decl g_decls[] = {
    double_option("lr", "peak rate").default_value("0.001").range(0.0, 10.0),
    int_option("steps", "total steps").required().range(1.0, 100.0),
    string_option("shape", "decay shape").default_value("a").choices("a|b"),
    bool_option("flag", "a switch").default_value("false"),
};
const frugal_option_decl* g_pointers[] = {&g_decls[0], &g_decls[1], &g_decls[2], &g_decls[3]};
frugal_strategy_options_ext g_ext{
    {sizeof(frugal_strategy_options_ext), FRUGAL_EXT_STRATEGY_OPTIONS, 0, nullptr}, 4, g_pointers};
frugal_strategy_options_ext g_second = g_ext;
frugal_strategy_desc g_strategy = schedule_strategy<Echo>("decl", "echoes lr", 0, &g_ext.header);
const frugal_strategy_desc* g_strategies[] = {&g_strategy};
frugal_plugin_desc g_desc{sizeof(frugal_plugin_desc),
                          FRUGAL_ABI_VERSION_MAJOR,
                          FRUGAL_ABI_VERSION_MINOR,
                          "option_decls",
                          "1.0",
                          "frugal tests",
                          "MIT",
                          1,
                          g_strategies,
                          nullptr,
                          nullptr,
                          nullptr};

void apply_fault(const char* fault) {
  auto is = [&](const char* name) { return std::strcmp(fault, name) == 0; };
  if (is("bad_type")) g_decls[0].type = 9;
  if (is("bad_name")) g_decls[0].name = "no spaces";
  if (is("duplicate")) g_decls[2].name = "lr";
  if (is("min_above_max")) g_decls[0].min = 20.0;
  if (is("default_out_of_range")) g_decls[0].default_value = "11";
  if (is("default_wrong_type")) g_decls[0].default_value = "fast";
  if (is("default_not_a_choice")) g_decls[2].default_value = "c";
  if (is("required_with_default")) g_decls[1].default_value = "5";
  if (is("null_doc")) g_decls[3].doc = nullptr;
  if (is("multiline_doc")) g_decls[3].doc = "two\nlines";
  if (is("bound_on_string")) g_decls[2].flags |= FRUGAL_OPTION_DECL_HAS_MIN;
  if (is("fractional_int_bound")) g_decls[1].min = 0.5;
  if (is("empty_choice")) g_decls[2].choices = "a||b";
  if (is("two_extensions")) g_ext.header.next = &g_second.header;
  if (is("undersized_decl")) g_decls[3].struct_size = 16;
  if (is("no_options")) g_ext.option_count = 0;
}

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v2(const frugal_host_api* host,
                                                                    const frugal_plugin_desc** out) {
  if (const char* fault = std::getenv("FRUGAL_TEST_DECL_FAULT")) apply_fault(fault);
  return hand_over_descriptor(host, out, g_desc);
}
