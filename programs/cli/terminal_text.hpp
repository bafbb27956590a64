// Text the CLI prints on a terminal that may carry bytes it did not
// choose (a manifest's writer, tensor names, error reasons quoting them),
// in a form that is safe there. (Its JSON is written by support/json, which
// escapes such text its own way.)
//
// Invalid UTF-8 (a stray continuation byte, a truncated or overlong
// sequence, a surrogate, anything above U+10FFFF) is never copied: each
// byte that does not start a valid sequence stands for itself as "\xHH".
#pragma once

#include <string>
#include <string_view>

namespace frugal::cli {

// `text` for a table or an error line on a terminal: valid printable UTF-8
// is kept, every control character (U+0000..U+001F, U+007F..U+009F, so no
// escape sequence reaches the terminal) and every byte of invalid UTF-8 is
// shown as "\xHH" (the UTF-8 bytes of a C1 control each as one \xHH).
std::string terminal_text(std::string_view text);

}  // namespace frugal::cli
