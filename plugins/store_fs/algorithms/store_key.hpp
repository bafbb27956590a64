// Key rules of frugal/store_vtable.h, checked again inside the plugin: the
// core checks too, but a key that reached the filesystem unchecked could
// name a path outside the root, so the backend never trusts its caller.
#pragma once

#include <string_view>
#include <vector>

namespace frugal::store_fs {

// 1..255 bytes of [A-Za-z0-9_.-], not starting with '.'.
bool is_valid_component(std::string_view name);

// The components of `key`, as views into it. Throws INVALID_ARGUMENT,
// naming `op`, the key and the broken rule, for any key outside the rules.
std::vector<std::string_view> split_key(std::string_view op, std::string_view key);

}  // namespace frugal::store_fs
