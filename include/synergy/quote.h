#pragma once
// Values echoed in error messages of the configuration and trace readers.
//
// A refused value goes back to a terminal or a log line, so it is quoted and
// escaped, and cut short: a hostile file can neither write escape sequences
// to the screen nor a megabyte into one message. The format is the one of
// service/escape.h's QuoteForMessage (which also escapes C1 and bidi
// controls and invalid UTF-8, for text from the wire): for ASCII input both
// give the same text, so the two can become one without a message changing.
#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace synergy {

inline constexpr size_t kQuotedChars = 64;

// `text` with \n, \r, \t and the other C0 controls and DEL escaped (\xNN),
// at most `max_chars` characters of it kept (an escape counts as one);
// *cut tells whether some were left out.
std::string EscapeControls(absl::string_view text, size_t max_chars, bool* cut);

// "'" + EscapeControls(value, kQuotedChars) + "'", then "... (N bytes)" when
// cut: 'abc', 'a\x1b[2J', 'xxxx...xxxx'... (1048576 bytes).
std::string QuoteValue(absl::string_view value);

}  // namespace synergy
