#include "synergy/quote.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace synergy {
namespace {

// One character of `text` at `at`: its code point, or -1 when the byte there
// does not start a valid UTF-8 sequence (then it stands alone, length 1).
struct Decoded {
  int32_t code_point;
  size_t length;
};

Decoded DecodeAt(absl::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  int32_t cp = 0;
  int32_t smallest = 0;  // below it the sequence is overlong
  if ((lead & 0xE0) == 0xC0) {
    length = 2, cp = lead & 0x1F, smallest = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, cp = lead & 0x0F, smallest = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, cp = lead & 0x07, smallest = 0x10000;
  } else {
    return {-1, 1};
  }
  if (at + length > text.size()) return {-1, 1};
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return {-1, 1};
    cp = (cp << 6) | (byte(at + i) & 0x3F);
  }
  if (cp < smallest || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {-1, 1};
  return {cp, length};
}

bool IsNonPrintable(int32_t cp) {
  // Controls (C0, DEL, C1), and the invisible characters that reorder or
  // hide text: the Arabic letter mark, zero-width space/joiners and marks,
  // bidi embeddings, overrides and isolates, line and paragraph
  // separators, the byte-order mark.
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C ||
         (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF;
}

// \xNN or \uNNNN, lower-case hex.
void AppendHex(std::string& out, char kind, uint32_t value, int digits) {
  static const char kHex[] = "0123456789abcdef";
  out += '\\';
  out += kind;
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += kHex[(value >> shift) & 15];
}

void AppendEscaped(std::string& out, absl::string_view text, size_t at, const Decoded& d) {
  if (d.code_point < 0) {
    AppendHex(out, 'x', static_cast<unsigned char>(text[at]), 2);
  } else if (!IsNonPrintable(d.code_point)) {
    out.append(text.data() + at, d.length);
  } else if (d.code_point == '\n') {
    out += "\\n";
  } else if (d.code_point == '\r') {
    out += "\\r";
  } else if (d.code_point == '\t') {
    out += "\\t";
  } else if (d.code_point < 0x80) {
    AppendHex(out, 'x', d.code_point, 2);
  } else {
    AppendHex(out, 'u', d.code_point, 4);
  }
}

}  // namespace

bool IsValidUtf8(absl::string_view text) {
  for (size_t at = 0; at < text.size();) {
    const Decoded d = DecodeAt(text, at);
    if (d.code_point < 0) return false;
    at += d.length;
  }
  return true;
}

bool IsPrintableText(absl::string_view text) {
  for (size_t at = 0; at < text.size();) {
    const Decoded d = DecodeAt(text, at);
    if (d.code_point < 0 || IsNonPrintable(d.code_point)) return false;
    at += d.length;
  }
  return true;
}

std::string EscapeControls(absl::string_view text, size_t max_chars, bool* cut) {
  std::string out;
  // A cut value is short; only a whole one is worth reserving for.
  out.reserve(max_chars > 0 ? std::min(text.size(), 4 * max_chars) : text.size());
  size_t chars = 0;
  size_t at = 0;
  while (at < text.size() && (max_chars == 0 || chars < max_chars)) {
    const Decoded d = DecodeAt(text, at);
    AppendEscaped(out, text, at, d);
    at += d.length;
    ++chars;
  }
  *cut = at < text.size();
  return out;
}

std::string EscapeForDisplay(absl::string_view text, size_t max_chars) {
  bool cut = false;
  std::string out = EscapeControls(text, max_chars, &cut);
  if (cut) out += "...";
  return out;
}

std::string QuoteValue(absl::string_view value) {
  bool cut = false;
  std::string out = absl::StrCat("'", EscapeControls(value, kQuotedChars, &cut), "'");
  if (cut) absl::StrAppend(&out, "... (", value.size(), " bytes)");
  return out;
}

}  // namespace synergy
