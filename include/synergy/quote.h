#pragma once
// Text shown back to a person, judged and escaped in one place: values
// echoed in the error messages of the configuration, trace and RPC readers,
// and text from the wire that synergyctl prints. A refused value or a job's
// name ends up on a terminal or in a log line, so a hostile file or client
// can neither write escape sequences to the screen, forge a table row,
// reverse the text after it, nor put a megabyte into one message.
// (service/escape.h gives the same functions their service:: names.)
//
// "Not printable" here means, after decoding UTF-8:
//  - C0 controls U+0000-U+001F (tab and newline included) and DEL U+007F;
//  - C1 controls U+0080-U+009F (U+009B is CSI to many terminals);
//  - the bidirectional overrides and isolates (U+200E, U+200F,
//    U+202A-U+202E, U+2066-U+2069) and the line and paragraph separators
//    U+2028, U+2029, which reorder or break a line without a control code;
//  - any byte that is not part of valid UTF-8 (overlong forms, surrogates
//    and code points above U+10FFFF included), as protobuf's own check.
#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace synergy {

// Well-formed UTF-8 (what proto3 `string` fields must hold on the wire).
bool IsValidUtf8(absl::string_view text);

// Valid UTF-8 with no character of the list above. "" is printable.
bool IsPrintableText(absl::string_view text);

// `text` with every non-printable character replaced by a visible escape:
// \n, \r, \t for those three, \xNN for other C0 bytes, DEL and bytes of
// invalid UTF-8, \uNNNN for C1 controls, bidi controls and separators.
// Printable text comes back unchanged (backslashes are not doubled, so a
// path reads as written; the escape is for the eye, not to be parsed).
// With max_chars > 0 at most that many characters of `text` are kept
// (an escape counts as one; a character is never cut in half), and *cut
// tells whether some were left out.
std::string EscapeControls(absl::string_view text, size_t max_chars, bool* cut);

// EscapeControls, with "..." marking a cut.
std::string EscapeForDisplay(absl::string_view text, size_t max_chars = 0);

// For messages that echo a value: "'" + the first kQuotedChars characters
// escaped + "'", then "... (N bytes)" when cut:
// 'abc', 'a\x1b[2J', 'xxxx...xxxx'... (1048576 bytes).
inline constexpr size_t kQuotedChars = 64;
std::string QuoteValue(absl::string_view value);

}  // namespace synergy
