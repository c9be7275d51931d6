#include "service/logging.h"


#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "synergy/json_text.h"
#include "service/rfc3339.h"
#include "spdlog/pattern_formatter.h"
#include "spdlog/spdlog.h"

namespace synergy::service {

namespace {

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
