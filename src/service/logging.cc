#include "service/logging.h"


#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/rfc3339.h"
#include "spdlog/pattern_formatter.h"
#include "spdlog/spdlog.h"

namespace synergy::service {

namespace {

// The length of the valid UTF-8 sequence starting at s[i], or 0.
size_t Utf8Length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  // Overlong forms, surrogates, beyond U+10FFFF.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) {
    return 0;
  }
  return n;
}

class JsonFormatter : public spdlog::formatter {
 public:
  explicit JsonFormatter(std::string program) : program_(std::move(program)) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string line = absl::StrCat(
        "{\"time\":\"", Rfc3339Utc(msg.time), "\",\"level\":\"",
        std::string(spdlog::level::to_string_view(msg.level).data(), spdlog::level::to_string_view(msg.level).size()),
        "\",\"program\":\"", JsonEscape(program_), "\",\"msg\":\"",
        JsonEscape(std::string(msg.payload.data(), msg.payload.size())), "\"}\n");
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(program_); }

 private:
  std::string program_;
};

}  // namespace

std::string JsonEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += absl::StrFormat("\\u%04x", c);
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (const size_t n = Utf8Length(text, i); n > 0) {
      out.append(text, i, n);
      i += n;
      continue;
    } else {
      out += "\\ufffd";
    }
    ++i;
  }
  return out;
}

std::string Rfc3339Utc(std::chrono::system_clock::time_point t) {
  return FormatRfc3339Utc(std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter(const std::string& program) {
  return std::make_unique<JsonFormatter>(program);
}

absl::Status ConfigureLogging(const std::string& program, const std::string& format, const std::string& level) {
  const spdlog::level::level_enum lvl = spdlog::level::from_str(level);
  if (lvl == spdlog::level::off && level != "off") {
    return absl::InvalidArgumentError(absl::StrCat("log_level: '", level, "' is not one of trace, debug, info, warn, error"));
  }
  if (format == "json") {
    spdlog::set_formatter(JsonLogFormatter(program));
  } else if (format == "text") {
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("--log-format: '", format, "' is not text or json"));
  }
  spdlog::set_level(lvl);
  return absl::OkStatus();
}

}  // namespace synergy::service
