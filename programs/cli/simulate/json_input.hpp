// Reading the simulator's JSON inputs (job files, SkyPilot and AWS
// traces) with nlohmann-json's parser: strict RFC 8259 (no comments, no
// trailing commas, no NaN or Infinity, valid UTF-8 in strings, one value
// and nothing after it), plus the simulator's own rules: no duplicate
// member, numbers that fit a double, at most kMaxJsonDepth levels of
// nesting and kMaxJsonValues values in a document (input_limits.hpp),
// enforced while the document is read, before any of it is held.
//
// A refusal of the text reads "source:line:column: what is wrong" (the
// place where the parser stopped). Parsed values keep no position: the
// readers of the tree name a bad value by its path in the document
// ("source: plans[2].nodes must be ...").
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string_view>

#include "input_limits.hpp"

namespace frugal::simulate {

// A parsed document. Objects are ordered by member name (lookups are
// logarithmic whatever a file holds); the order in the file has no meaning.
using JsonValue = nlohmann::json;

// Parses a whole document; `source` names it in errors ("job.json").
// InputError for anything the rules above refuse. `max_values` is the
// readers' kMaxJsonValues; a test of the limit itself passes a small one
// (4 million values take seconds to parse, a minute under sanitizers).
JsonValue parse_json(std::string_view text, std::string_view source, std::size_t max_values = kMaxJsonValues);

// "an object", "an array", "a string", "a number", "true/false" or "null",
// for messages.
const char* json_kind_name(const JsonValue& value);
const char* json_kind_name(JsonValue::value_t kind);

// The member `key` of `object`, or nullptr (also when `object` is not an object).
const JsonValue* json_member(const JsonValue& object, std::string_view key);

// A number's value as a double (nlohmann keeps integers apart from other
// numbers; the simulator reads them all as doubles). `number` must be a number.
double json_number(const JsonValue& number);

}  // namespace frugal::simulate
