#include "service/log_settings.h"

#include <set>

namespace synergy::service {

absl::Status CheckLogSettings(const YamlMap& m, const std::string& level, const std::string& format) {
  static const std::set<std::string> kLevels = {"trace", "debug", "info", "warn", "error"};
  if (m.Has("log_level") && !kLevels.count(level)) {
    return m.Get("log_level").Error("is not one of trace, debug, info, warn, error");
  }
  if (m.Has("log_format") && format != "text" && format != "json") {
    return m.Get("log_format").Error("is not text or json");
  }
  return absl::OkStatus();
}

}  // namespace synergy::service
