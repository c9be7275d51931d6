#pragma once
// Text from the wire, judged and shown safely. Whatever a client, a node or
// an agent sends ends up on someone's terminal (synergyctl's tables, the
// daemon's log, an error message): these functions decide what counts as
// printable and turn everything else into visible escapes, so that a job
// name cannot clear a screen, move the cursor, forge a table row or reverse
// the text after it.
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

namespace synergy::service {

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
// (escapes count as one) and "..." marks the cut.
std::string EscapeForDisplay(absl::string_view text, std::size_t max_chars = 0);

// For error messages that echo a client's value: "'" + the first 64
// characters escaped + "'", then "... (N bytes)" when cut, so an error
// never repeats a megabyte or an escape sequence back to a terminal or log.
inline constexpr std::size_t kQuotedValueChars = 64;
std::string QuoteForMessage(absl::string_view value);

}  // namespace synergy::service
