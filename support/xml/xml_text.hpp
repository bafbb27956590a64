// The one XML escaper of the tools: the SVG reports of `frugal simulate
// --plot` and of the demo write every name and label through it.
#pragma once

#include <string>
#include <string_view>

namespace frugal::xml {

// `text` as XML text content or attribute value: & < > " ' as entities, and
// each control character XML 1.0 does not allow (all below 0x20 but tab,
// newline and return) as a space. Other bytes are copied unchanged.
std::string xml_text(std::string_view text);

}  // namespace frugal::xml
