#pragma once
// How synergyd and synergy-node write their logs (spdlog, stderr): every
// line stamped in UTC as RFC 3339 with milliseconds
// (2026-12-04T21:22:23.456Z), as text
//   2026-12-04T21:22:23.456Z info j-000003 lease 7 granted: ...
// or as JSON, one object a line, for log shippers:
//   {"time":"2026-12-04T21:22:23.456Z","level":"info","program":"synergyd","msg":"j-000003 lease 7 granted: ..."}
// Messages are escaped as JSON strings; bytes that are not UTF-8 become
// U+FFFD, so every line parses.
#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "spdlog/formatter.h"

namespace synergy::service {

// `format` is "text" or "json", `level` one of trace, debug, info, warn,
// error (as the configs check them).
absl::Status ConfigureLogging(const std::string& program, const std::string& format, const std::string& level);

// The JSON formatter itself (exposed for tests).
std::unique_ptr<spdlog::formatter> JsonLogFormatter(const std::string& program);
// RFC 3339 in UTC with milliseconds.
std::string Rfc3339Utc(std::chrono::system_clock::time_point t);

}  // namespace synergy::service
