// Text the CLI writes that may carry bytes it did not choose (a manifest's
// writer, tensor names, error reasons quoting them): JSON string escaping
// per RFC 8259 that always yields valid UTF-8, and a form of such text that
// is safe to print on a terminal.
//
// Invalid UTF-8 (a stray continuation byte, a truncated or overlong
// sequence, a surrogate, anything above U+10FFFF) is never copied: each
// byte that does not start a valid sequence stands for itself, as U+FFFD
// in JSON and as "\xHH" on a terminal.
#pragma once

#include <string>
#include <string_view>

namespace frugal::cli {

// `text` as a quoted JSON string literal: '"' and '\' escaped, the control
// characters (U+0000..U+001F, U+007F, U+0080..U+009F) as \n, \r, \t or
// \u00XX, each byte of invalid UTF-8 as \ufffd. The result is ASCII-safe
// valid UTF-8 whatever `text` holds.
std::string json_string(std::string_view text);

// `text` for a table or an error line on a terminal: valid printable UTF-8
// is kept, every control character (U+0000..U+001F, U+007F..U+009F, so no
// escape sequence reaches the terminal) and every byte of invalid UTF-8 is
// shown as "\xHH" (the UTF-8 bytes of a C1 control each as one \xHH).
std::string terminal_text(std::string_view text);

}  // namespace frugal::cli
