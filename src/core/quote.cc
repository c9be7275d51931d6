#include "synergy/quote.h"

#include "absl/strings/str_cat.h"

namespace synergy {

std::string EscapeControls(absl::string_view text, size_t max_chars, bool* cut) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  size_t at = 0;
  for (; at < text.size() && at < max_chars; ++at) {
    const unsigned char c = static_cast<unsigned char>(text[at]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    } else {
      out += static_cast<char>(c);
    }
  }
  *cut = at < text.size();
  return out;
}

std::string QuoteValue(absl::string_view value) {
  bool cut = false;
  std::string out = absl::StrCat("'", EscapeControls(value, kQuotedChars, &cut), "'");
  if (cut) absl::StrAppend(&out, "... (", value.size(), " bytes)");
  return out;
}

}  // namespace synergy
