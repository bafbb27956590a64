#include "json_text.hpp"

namespace frugal::json {

std::string json_text(const Json& value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
}

}  // namespace frugal::json
