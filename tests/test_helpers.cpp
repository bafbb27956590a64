#include "test_helpers.hpp"

#include <link.h>

#include <catch2/catch.hpp>

namespace frugal::test {
namespace {

void capture(void* user_data, int32_t level, const char* source, const char* message) {
  auto* self = static_cast<CapturingContext*>(user_data);
  std::lock_guard lock(self->mutex);
  self->lines.push_back({level, source, message});
}

}  // namespace

CapturingContext::CapturingContext() : context(host::make_context()) {
  host::check(frugal_context_set_log_callback(context.get(), &capture, this, FRUGAL_LOG_TRACE));
}

bool CapturingContext::logged(const std::string& needle) {
  std::lock_guard lock(mutex);
  for (const auto& line : lines)
    if (line.message.find(needle) != std::string::npos) return true;
  return false;
}

std::string probe_echo(frugal_error* error) {
  REQUIRE(error != nullptr);
  const Outcome result = outcome(error);
  INFO("message: " << result.message);
  REQUIRE(result.code == FRUGAL_ERR_CANCELLED);
  REQUIRE(result.message.find("echo:") != std::string::npos);
  return result.message;
}

// Appended rather than joined with operator+: GCC 12 reports a false
// -Warray-bounds on that chain of temporaries (in unity builds).
std::string plugin_path(const std::string& variant) {
  std::string path(FRUGAL_TEST_PLUGIN_DIR);
  path.append("/").append(variant).append(".so");
  return path;
}

std::string builtin_path(const std::string& name) {
  std::string path(FRUGAL_BUILTIN_PLUGIN_DIR);
  path.append("/").append(name).append(".so");
  return path;
}

Outcome outcome(frugal_error* error) {
  Outcome result{frugal_error_code(error), frugal_error_message(error)};
  frugal_error_destroy(error);
  return result;
}

void expect_error(frugal_error* error, int code, std::initializer_list<const char*> mentions) {
  REQUIRE(error != nullptr);
  const auto result = outcome(error);
  INFO("message: " << result.message);
  CHECK(result.code == code);
  for (const char* mention : mentions) CHECK(result.message.find(mention) != std::string::npos);
}

bool is_mapped(const std::string& file_name) {
  struct Search {
    std::string suffix;
    bool found = false;
  } search{"/" + file_name};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        const std::string name = info->dlpi_name != nullptr ? info->dlpi_name : "";
        if (name.size() >= s->suffix.size() &&
            name.compare(name.size() - s->suffix.size(), s->suffix.size(), s->suffix) == 0)
          s->found = true;
        return 0;
      },
      &search);
  return search.found;
}

double lr_of(frugal_context* context, const char* name, int64_t step, const frugal_options* options) {
  auto schedule = host::make_schedule(context, name, options);
  double lr = 0.0;
  host::check(frugal_schedule_lr(schedule.get(), step, &lr));
  return lr;
}

frugal_loss_scaler_status loss_scaler_status(const frugal_loss_scaler* scaler) {
  frugal_loss_scaler_status status{};
  status.struct_size = sizeof status;
  host::check(frugal_loss_scaler_get_status(scaler, &status));
  return status;
}

}  // namespace frugal::test
